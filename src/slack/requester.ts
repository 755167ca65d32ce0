// Telling the requester of an interrupted change how it ended: through the interaction's response_url while Slack
// still takes posts there (30 minutes), replacing the "Working on it…" they were left with; else privately.
import type { Logger } from '../log.js';
import type { Actor, BatchView } from '../ops/api.js';
import type { TellBatch, TellRequester } from '../reconcile/intents.js';
import type { SlackClients } from './clients.js';
import { privateReply } from './respond.js';
import { interruptedMessage, settledMessage } from './views/batches.js';
import { reconciledMessage } from './views/results.js';

const RESPONSE_URL_LIFETIME_MS = 30 * 60_000;

export function tellRequester(clients: SlackClients, logger: Logger, now: () => Date): TellRequester {
  return async ({ actor, replyAddress, openedAt }, outcome) => {
    const fresh = now().getTime() - Date.parse(openedAt) < RESPONSE_URL_LIFETIME_MS;
    const to = { userId: actor.userId, channelId: actor.channelId, responseUrl: fresh ? replyAddress : undefined };
    await privateReply(clients, to, logger)(reconciledMessage(outcome), { replace: true });
  };
}

/** Tells the requester of a batch cut short by a stopped process where it stopped, with a Resume, privately. */
export function tellInterruptedBatch(clients: SlackClients, logger: Logger) {
  return (actor: Actor, view: BatchView): Promise<void> =>
    privateReply(clients, { userId: actor.userId, channelId: actor.channelId }, logger)(interruptedMessage(view));
}

/** Tells the requester of a batch how it ended once its items being settled are settled, privately. */
export function tellSettledBatch(clients: SlackClients, logger: Logger): TellBatch {
  return (actor, view) =>
    privateReply(clients, { userId: actor.userId, channelId: actor.channelId }, logger)(settledMessage(view));
}
