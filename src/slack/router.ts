// Bolt hands every delivery to every listener in turn (about 35). The router keeps them in one map and hands a
// delivery to its one listener, found by what identifies it, with the deps of its delivery (see delivery.ts).
import type {
  AllMiddlewareArgs,
  AnyMiddlewareArgs,
  Context,
  Middleware,
  OptionsSource,
  SlackAction,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlackEventMiddlewareArgs,
  SlackOptionsMiddlewareArgs,
  SlackViewAction,
  SlackViewMiddlewareArgs,
} from '@slack/bolt';
import type { SlackDeps } from './deps.js';

/** A listener: Bolt's arguments for its kind of delivery, and the deps bound to the delivery. */
type Listener<Args> = (args: Args & AllMiddlewareArgs, deps: SlackDeps) => Promise<void>;
type ViewConstraint = string | { callback_id: string; type: 'view_submission' | 'view_closed' };

/** What the listener modules register on, rather than Bolt's App. */
export interface ListenerRouter {
  command(name: string, listener: Listener<SlackCommandMiddlewareArgs>): void;
  action<Action extends SlackAction = SlackAction>(
    actionId: string,
    listener: Listener<SlackActionMiddlewareArgs<Action>>,
  ): void;
  view<ViewAction extends SlackViewAction = SlackViewAction>(
    constraint: ViewConstraint,
    listener: Listener<SlackViewMiddlewareArgs<ViewAction>>,
  ): void;
  options<Source extends OptionsSource = 'block_suggestion'>(
    actionId: string,
    listener: Listener<SlackOptionsMiddlewareArgs<Source>>,
  ): void;
  event<EventType extends string = string>(
    type: EventType,
    listener: Listener<SlackEventMiddlewareArgs<EventType>>,
  ): void;
  function(callbackId: string, listener: Listener<SlackEventMiddlewareArgs<'function_executed'>>): void;
}

type AnyListener = Listener<AnyMiddlewareArgs>;

/** The key a delivery is routed by, as the listener registered it; undefined for a delivery no listener takes. */
function keyOf(body: Record<string, unknown>): string | undefined {
  if (typeof body.command === 'string') return `command ${body.command}`;
  switch (body.type) {
    case 'block_actions': {
      const [action] = body.actions as { action_id?: string }[];
      return `action ${action?.action_id}`;
    }
    case 'block_suggestion':
      return `options ${body.action_id}`;
    case 'view_submission':
    case 'view_closed':
      return `${body.type} ${(body.view as { callback_id?: string } | undefined)?.callback_id}`;
    case 'event_callback': {
      const event = body.event as { type?: string; function?: { callback_id?: string } } | undefined;
      return event?.type === 'function_executed' ? `function ${event.function?.callback_id}` : `event ${event?.type}`;
    }
    default:
      return undefined;
  }
}

/** `depsOf` gives the deps of the delivery a listener is handed. */
export function listenerRouter(depsOf: (context: Context) => SlackDeps): {
  router: ListenerRouter;
  middleware: Middleware<AnyMiddlewareArgs>;
} {
  const routes = new Map<string, AnyListener>();
  const add = (key: string, listener: unknown) => {
    if (routes.has(key)) throw new Error(`${key} has a listener already`);
    routes.set(key, listener as AnyListener);
  };
  const view = (constraint: ViewConstraint) =>
    typeof constraint === 'string' ? `view_submission ${constraint}` : `${constraint.type} ${constraint.callback_id}`;
  const router: ListenerRouter = {
    command: (name, listener) => add(`command ${name}`, listener),
    action: (actionId, listener) => add(`action ${actionId}`, listener),
    view: (constraint, listener) => add(view(constraint), listener),
    options: (actionId, listener) => add(`options ${actionId}`, listener),
    event: (type, listener) => add(`event ${type}`, listener),
    function: (callbackId, listener) => add(`function ${callbackId}`, listener),
  };
  const middleware: Middleware<AnyMiddlewareArgs> = async (args) => {
    const key = keyOf(args.body as unknown as Record<string, unknown>);
    const listener = key === undefined ? undefined : routes.get(key);
    // Nothing of the app's takes it: Bolt's own handling of an unlistened delivery goes on.
    if (!listener) return args.next();
    await listener(args, depsOf(args.context));
  };
  return { router, middleware };
}
