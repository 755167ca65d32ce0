import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { DatabaseUnreachable } from '../store/sql.js';
import type { SlackDeps } from './flows.js';
import { acknowledge, tellPrivately } from './private-answer.js';
import { requesterIn } from './who-asked.js';

/**
 * When the database cannot be reached, whatever was asked stops where it was, and the person is told so rather than
 * left with Slack's "dispatch_failed". Before the acknowledgement nothing has started. After it, a change may have
 * reached the provider (never without its intent, written first) and its outcome not been written down: the
 * reconciler finds it once the database is back, and tells the person what became of it.
 */
export function sayWhenDatabaseUnreachable(deps: SlackDeps): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    try {
      await args.next();
    } catch (error) {
      if (!(error instanceof DatabaseUnreachable)) throw error;
      deps.logger.error({ err: error }, 'the database cannot be reached: the request was not handled');
      const before = `Voice Ops cannot reach its database (${error.database}) just now, so it did nothing. Try again in a minute.`;
      const acknowledged = await acknowledge(args, before).then(
        () => true,
        () => false, // acknowledged already: the database went away while the request was handled
      );
      if (acknowledged && 'command' in args.body) return;
      const during =
        `Voice Ops lost its database (${error.database}) while handling this. If it was a change, the change is ` +
        'checked with the provider as soon as the database is back, and you will be told what became of it.';
      await tellPrivately(deps, args.body, requesterIn(args.context).userId, acknowledged ? before : during);
    }
  };
}
