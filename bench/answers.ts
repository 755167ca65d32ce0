// A signed request sent to an app and timed until its answer reaches the fake Slack's response_url.
import { performance } from 'node:perf_hooks';
import { type FakeSlack, RESPONSE_URL, type SlackCall } from '../test/harness/fake-slack.js';
import { postToSlackApp } from '../test/harness/signing.js';
import { SIGNING_SECRET } from './constants.js';

export interface TimedAnswer {
  body: SlackCall['body'];
  /** What a person reads of the post: its text and its blocks. */
  text: string;
  /** From sending the request to the post. */
  ms: number;
}

/**
 * Sends `body` (given the response_url it is to carry, the one named `responseUrlId`) and resolves with the first
 * post to that response_url which `accept`s. The wait is registered before sending.
 */
export async function timedAnswer(
  slack: FakeSlack,
  eventsUrl: string,
  responseUrlId: string,
  body: (responseUrl: string) => string,
  accept: (call: SlackCall) => boolean,
  timeoutMs: number,
): Promise<TimedAnswer> {
  let answeredAt = Number.NaN;
  const answer = slack.waitFor(
    RESPONSE_URL,
    (call) => {
      if (call.responseUrlId !== responseUrlId || !accept(call)) return false;
      answeredAt = performance.now();
      return true;
    },
    { timeoutMs, since: slack.mark() },
  );
  answer.catch(() => undefined);
  const sentAt = performance.now();
  const ack = await postToSlackApp(eventsUrl, SIGNING_SECRET, body(slack.respondUrl(responseUrlId)));
  if (ack.status !== 200) throw new Error(`the request was answered ${ack.status}: ${ack.body}`);
  const call = await answer;
  return { body: call.body, text: JSON.stringify(call.body), ms: answeredAt - sentAt };
}
