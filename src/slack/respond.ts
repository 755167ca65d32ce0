// Private replies to one user: the response_url, else an ephemeral message, else a direct message. Each is seen by
// that user alone, so even an agent token may take any of them.
import { Agent } from 'undici';
import { ExchangeFailed, exchange } from '../http-exchange.js';
import type { Logger } from '../log.js';
import { SLACK_BUDGETS, type SlackClients, slackErrorCode } from './clients.js';
import type { SlackMessage } from './views/blocks.js';

/** A private reply; `replace` takes the place of the message that held the button, where the route allows. */
export type Respond = (message: SlackMessage, options?: { replace?: boolean }) => Promise<void>;

/** Where a user can be reached privately: what the interaction carried. */
export interface Recipient {
  userId: string;
  channelId?: string;
  responseUrl?: string;
}

/** No route reached the user; `routes` says what each one answered. */
export class Undelivered extends Error {
  override readonly name = 'Undelivered';
  constructor(readonly routes: string[]) {
    super(`the reply reached no one (${routes.join('; ')})`);
  }
}

export function privateReply(clients: SlackClients, to: Recipient, logger: Logger): Respond {
  return async (message, options = {}) => {
    const routes: [name: string, send: () => Promise<unknown>][] = [];
    const { responseUrl, channelId } = to;
    if (responseUrl) {
      const reply = { response_type: 'ephemeral', replace_original: options.replace ?? false, ...message };
      routes.push(['response_url', () => postToResponseUrl(responseUrl, reply)]);
    }
    // Ephemeral messages need the app in the channel, and a DM channel is not the app's: the app's own DM follows.
    if (channelId && !channelId.startsWith('D')) {
      routes.push([
        'ephemeral',
        () => clients.ui.chat.postEphemeral({ ...message, channel: channelId, user: to.userId }),
      ]);
    }
    routes.push(['direct message', () => clients.ui.chat.postMessage({ ...message, channel: to.userId })]);

    const failures: string[] = [];
    for (const [name, send] of routes) {
      try {
        await send();
        if (failures.length > 0)
          logger.info({ userId: to.userId, route: name, failures }, 'reply delivered by a fallback');
        return;
      } catch (error) {
        failures.push(`${name}: ${slackErrorCode(error) === 'unknown' ? errorText(error) : slackErrorCode(error)}`);
      }
    }
    throw new Undelivered(failures);
  };
}

/** Why a route failed, for the log: a failed exchange says what failed under it (a refused connection, say). */
function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const under = error instanceof ExchangeFailed && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${under}`.slice(0, 120);
}

/**
 * The connections replies are posted over, kept alive per origin. Not undici's global dispatcher: whichever undici
 * first sets that (Node's own, for `fetch`, is older) decides which handlers it takes.
 */
const replies = new Agent();

/**
 * Through undici's dispatch: Bolt's respond() goes through fetch, several times the CPU per reply, which shows in
 * every user's acknowledgement time under load. One deadline covers connecting and Slack's whole answer.
 */
export async function postToResponseUrl(url: string, message: object): Promise<void> {
  const { origin, pathname, search } = new URL(url);
  const answer = await exchange(
    replies,
    {
      origin,
      method: 'POST',
      path: `${pathname}${search}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message),
    },
    SLACK_BUDGETS.ui.timeoutMs,
  );
  // Slack answers `ok`; only a refusal's body says anything, and says why.
  if (answer.status >= 200 && answer.status <= 299) return;
  throw new Error(`response_url answered ${answer.status}: ${answer.text.slice(0, 200)}`);
}
