import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { DatabaseUnreachable } from '../store/sql.js';
import type { SlackDeps } from './flows.js';
import { acknowledge, tellPrivately } from './private-answer.js';
import { requesterIn } from './who-asked.js';

// Set on the context once the delivery has passed every middleware: a listener has it, and may have acknowledged it.
const LISTENING = 'voiceOpsListening';

/** Registered after every other middleware, so that a failure can tell whether a listener had the delivery. */
export function listenersHaveIt(): Middleware<AnyMiddlewareArgs> {
  return async ({ context, next }) => {
    context[LISTENING] = true;
    await next();
  };
}

/**
 * When the database cannot be reached, whatever was asked stops where it was, and the person is told so rather than
 * left with Slack's "dispatch_failed". Before any listener had the delivery nothing has started, and a command's
 * acknowledgement says so. Once a listener had it, a change may have reached the provider (never without its
 * intent, written first) and its outcome not been written down: the reconciler finds it once the database is back,
 * and tells the person what became of it. (Whether a listener acknowledged cannot be asked: in Socket Mode a second
 * acknowledgement is only logged.)
 */
export function sayWhenDatabaseUnreachable(deps: SlackDeps): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    try {
      await args.next();
    } catch (error) {
      if (!(error instanceof DatabaseUnreachable)) throw error;
      deps.logger.error({ err: error }, 'the database cannot be reached: the request was not handled');
      const userId = requesterIn(args.context).userId;
      if (args.context[LISTENING] !== true) {
        const text = `Voice Ops cannot reach its database (${error.database}) just now, so it did nothing. Try again in a minute.`;
        await acknowledge(args, text);
        if (!('command' in args.body)) await tellPrivately(deps, args.body, userId, text);
        return;
      }
      // Acknowledged already, most likely: a second acknowledgement throws over HTTP and is only logged in Socket Mode.
      if ('ack' in args && args.ack) await (args.ack as () => Promise<void>)().catch(() => {});
      const text =
        `Voice Ops lost its database (${error.database}) while handling this. If it was a change, the change is ` +
        'checked with the provider as soon as the database is back, and you will be told what became of it.';
      await tellPrivately(deps, args.body, userId, text);
    }
  };
}
