import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { type DatabaseFault, databaseFault } from '../store/faults.js';
import { DatabaseUnreachable } from '../store/sql.js';
import { openDelivery } from './delivery.js';
import type { SlackDeps } from './deps.js';
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

/** What happened to the database, as the person is told it: before anything started, and while handling. */
const WORDS: Record<DatabaseFault, { before: string; during: string; back: string }> = {
  unreachable: { before: 'cannot reach its database', during: 'lost its database', back: 'is back' },
  busy: { before: 'found its database too busy', during: 'found its database too busy', back: 'answers' },
  full: { before: 'found its database full', during: 'found its database full', back: 'has room again' },
  'not writable': {
    before: 'cannot write to its database',
    during: 'could not write to its database',
    back: 'takes writes again',
  },
  failing: { before: 'met an error in its database', during: 'met an error in its database', back: 'answers' },
};

const ADVICE: Record<DatabaseFault, string> = {
  unreachable: 'Try again in a minute.',
  busy: 'Try again in a moment.',
  full: 'Tell whoever runs Voice Ops: its database needs room.',
  'not writable': 'Tell whoever runs Voice Ops: its database takes no writes.',
  failing: 'Try again; if it happens again, tell whoever runs Voice Ops.',
};

/**
 * When the database fails in any way (cannot be reached, is busy, full, takes no writes, or errs), whatever was asked
 * stops where it was, and the person is told what is known rather than left with Slack's "dispatch_failed" or a
 * "Working on it…" for good. Before any listener had the delivery nothing has started, and a command's
 * acknowledgement says so. Once a listener had it: if no change was sent to the provider on its behalf, nothing was
 * changed; if a change's intent was written, or the change sent (never without its intent, written first), the
 * reconciler finishes or settles it once the database answers, and tells the person what became of it. (Whether a listener
 * acknowledged cannot be asked: in Socket Mode a second acknowledgement is only logged.)
 */
export function sayWhenDatabaseFails(deps: SlackDeps): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const delivery = openDelivery(args.context);
    try {
      await args.next();
    } catch (error) {
      const fault = databaseFault(error);
      if (fault === undefined) throw error;
      deps.metrics.databaseFault(fault);
      const userId = requesterIn(args.context).userId;
      const started = args.context[LISTENING] === true;
      deps.logger.error(
        { err: error, fault, started, changeSent: delivery.changeSent, userId },
        'a database failure stopped a request: the person is told',
      );
      const words = WORDS[fault];
      const where = error instanceof DatabaseUnreachable ? ` (${error.database})` : '';
      if (!started) {
        const text = `Voice Ops ${words.before}${where} just now, so it did nothing. ${ADVICE[fault]}`;
        // A wait for the database can outlast Slack's three seconds: Bolt has then answered the request itself, and
        // a command is told through its response_url like any other delivery.
        const acknowledged = await acknowledge(args, text).then(
          () => 'command' in args.body,
          () => false,
        );
        if (!acknowledged) await tellPrivately(deps, args.body, userId, text);
        return;
      }
      // Acknowledged already, most likely: a second acknowledgement throws over HTTP and is only logged in Socket Mode.
      if ('ack' in args && args.ack) await (args.ack as () => Promise<void>)().catch(() => {});
      const during = `Voice Ops ${words.during}${where} while handling this`;
      const text = delivery.changeSent
        ? `${during}, after the change reached the provider: it is checked with the provider as soon as the ` +
          `database ${words.back}, and you will be told what became of it.`
        : delivery.intentOpened
          ? `${during}, after the change was started and before it reached the provider: Voice Ops finishes or ` +
            `settles it with the provider as soon as the database ${words.back}, and you will be told what became of it.`
          : `${during}, and stopped: nothing was changed. ${ADVICE[fault]}`;
      // In place of a "Working on it…" the click may have shown.
      await tellPrivately(deps, args.body, userId, text, { replace: true });
    }
  };
}
