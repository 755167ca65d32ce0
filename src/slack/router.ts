// Bolt hands every delivery to every listener in turn, each behind its own filter middleware, so a delivery costs
// work for each of the app's listeners (about 35: every button of every list has its own). The router keeps them
// in one map and hands a delivery to its one listener, found by what identifies it: the command, the action_id, the
// view's callback_id and type, the type-ahead's action_id, the event's type, the workflow step's callback_id.
import type { AnyMiddlewareArgs, App, Middleware } from '@slack/bolt';

/** What the listener modules register on: Bolt's own signatures, so they read as Bolt listeners do. */
export type Listeners = Pick<App, 'command' | 'action' | 'view' | 'options' | 'event' | 'function'>;

type Listener = Middleware<AnyMiddlewareArgs>;
type ViewConstraint = string | { callback_id: string; type: 'view_submission' | 'view_closed' };

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

export function listenerRouter(): { listeners: Listeners; middleware: Middleware<AnyMiddlewareArgs> } {
  const routes = new Map<string, Listener>();
  const add = (key: string, listeners: unknown[]) => {
    const [listener, ...more] = listeners;
    if (typeof listener !== 'function' || more.length > 0) throw new Error(`${key}: give one listener function`);
    if (routes.has(key)) throw new Error(`${key} has a listener already`);
    routes.set(key, listener as Listener);
  };
  const view = (constraint: ViewConstraint) =>
    typeof constraint === 'string' ? `view_submission ${constraint}` : `${constraint.type} ${constraint.callback_id}`;
  const listeners = {
    command: (name: string, ...rest: unknown[]) => add(`command ${name}`, rest),
    action: (actionId: string, ...rest: unknown[]) => add(`action ${actionId}`, rest),
    view: (constraint: ViewConstraint, ...rest: unknown[]) => add(view(constraint), rest),
    options: (actionId: string, ...rest: unknown[]) => add(`options ${actionId}`, rest),
    event: (type: string, ...rest: unknown[]) => add(`event ${type}`, rest),
    function: (callbackId: string, ...rest: unknown[]) => add(`function ${callbackId}`, rest),
  };
  const middleware: Middleware<AnyMiddlewareArgs> = async (args) => {
    const key = keyOf(args.body as unknown as Record<string, unknown>);
    const listener = key === undefined ? undefined : routes.get(key);
    // Nothing of the app's takes it: Bolt's own handling of an unlistened delivery goes on.
    if (!listener) return args.next();
    await listener(args);
  };
  // Only the string and object constraints above are used; Bolt's overloads are kept as the type the modules see.
  return { listeners: listeners as unknown as Listeners, middleware };
}
