// A buy as a person makes one, driven from the stub process, which owns the fake Slack the app answers to and the
// sandbox that sells the numbers: `/voice numbers buy NUMBER`, the Confirm button of the app's prompt pressed, and
// the answer that replaces "Working on it…". bench/engines.ts times buys on each engine, and presses Confirm on two
// replicas at once to count that each confirmation buys once.
import { performance } from 'node:perf_hooks';
import { ProviderClient } from '../src/provider/client.js';
import type { Sandbox } from '../src/sandbox/server.js';
import { ACTION } from '../src/slack/ids.js';
import type { FakeSlack, SlackCall } from '../test/harness/fake-slack.js';
import { blockAction, OPS_CHANNEL, slashCommand } from '../test/harness/payloads.js';
import { timedAnswer } from './answers.js';
import { buttonValue } from './blocks.js';
import { OPERATOR } from './constants.js';
import { sleep } from './stats.js';

const ANSWER_TIMEOUT_MS = 60_000;
// Long enough for a buy a replica made after its answer, which would be a bug, to reach the sandbox and be counted.
const QUIET_MS = 1_000;

export interface BuyTiming {
  /** The command sent → its prompt with Confirm at the fake Slack, ms. */
  askMs: number;
  /** Confirm pressed → the answer after "Working on it…", ms. */
  confirmMs: number;
}

export interface ClaimsResult {
  confirmations: number;
  /** Each confirmation's Confirm, pressed on every replica. */
  presses: number;
  /** The first press sent → the last answer, ms. */
  ms: number;
  /** Answers that say the number was bought. */
  bought: number;
  /** Answers that say the confirmation was used, or its change is under way or in progress. */
  refused: number;
  /** buyNumber requests that reached the sandbox. */
  providerBuys: number;
}

export interface BuysRequest {
  /** The request URLs (`…/slack/events`) of the app that is asked and of the one whose Confirm is pressed. */
  askUrl: string;
  confirmUrl: string;
  count: number;
}

export interface ClaimsRequest {
  askUrl: string;
  /** Every one of these replicas gets a press of every confirmation. */
  confirmUrls: string[];
  count: number;
}

export function buyFlow(slack: FakeSlack, sandbox: Sandbox) {
  let replies = 0;
  const handedOut = new Set<string>();

  /** Voice numbers for sale that no earlier call handed out (an ask that failed leaves its number unbought). */
  async function forSale(count: number): Promise<string[]> {
    const client = new ProviderClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
    const found: string[] = [];
    try {
      for await (const page of client.searchNumberPages({ limit: 100 }, { maxPages: 100 })) {
        for (const entry of page) {
          if (found.length === count) break;
          if (!entry.capabilities.includes('voice') || handedOut.has(entry.number)) continue;
          handedOut.add(entry.number);
          found.push(entry.number);
        }
        if (found.length === count) break;
      }
    } finally {
      await client.close();
    }
    if (found.length < count) throw new Error(`the sandbox has ${found.length} of ${count} voice numbers for sale`);
    return found;
  }

  /** Sends a signed request, timed to the first post to its response_url that `accept`s. */
  const send = (eventsUrl: string, body: (responseUrl: string) => string, accept: (call: SlackCall) => boolean) =>
    timedAnswer(slack, eventsUrl, `buy${++replies}`, body, accept, ANSWER_TIMEOUT_MS);

  /** `/voice numbers buy NUMBER`; the confirmation id of its prompt's Confirm. */
  async function ask(eventsUrl: string, number: string) {
    const prompt = await send(
      eventsUrl,
      (responseUrl) => slashCommand({ text: `numbers buy ${number}`, userId: OPERATOR, responseUrl }),
      () => true,
    );
    const confirmationId = buttonValue(prompt.body, ACTION.confirmChange);
    if (confirmationId === undefined) throw new Error(`no Confirm in the answer to buy ${number}: ${prompt.text}`);
    return { confirmationId, ms: prompt.ms };
  }

  async function press(eventsUrl: string, confirmationId: string) {
    const answer = await send(
      eventsUrl,
      (responseUrl) =>
        blockAction({
          userId: OPERATOR,
          actionId: ACTION.confirmChange,
          value: confirmationId,
          container: { type: 'message', channelId: OPS_CHANNEL, isEphemeral: true },
          responseUrl,
        }),
      (call) => !JSON.stringify(call.body).includes('Working on it'),
    );
    return { ...answer, bought: answer.text.includes('Bought') };
  }

  return {
    /** `count` buys one after another, each asked and confirmed to its answer. */
    async buys(request: BuysRequest): Promise<BuyTiming[]> {
      const timings: BuyTiming[] = [];
      for (const number of await forSale(request.count)) {
        const asked = await ask(request.askUrl, number);
        const confirmed = await press(request.confirmUrl, asked.confirmationId);
        if (!confirmed.bought) throw new Error(`the buy of ${number} was answered: ${confirmed.text}`);
        timings.push({ askMs: asked.ms, confirmMs: confirmed.ms });
      }
      return timings;
    },

    /** `count` confirmations asked for, then each one's Confirm pressed on every replica, all at the same moment. */
    async claims(request: ClaimsRequest): Promise<ClaimsResult> {
      const ids: string[] = [];
      for (const number of await forSale(request.count)) ids.push((await ask(request.askUrl, number)).confirmationId);
      const buysBefore = sandbox.requestCount('buyNumber');
      const started = performance.now();
      const answers = await Promise.all(ids.flatMap((id) => request.confirmUrls.map((url) => press(url, id))));
      const ms = performance.now() - started;
      await sleep(QUIET_MS);
      const bought = answers.filter((answer) => answer.bought).length;
      return {
        confirmations: ids.length,
        presses: answers.length,
        ms,
        bought,
        refused: answers.filter((answer) => /already used|under way|in progress/.test(answer.text)).length,
        providerBuys: sandbox.requestCount('buyNumber') - buysBefore,
      };
    },
  };
}
