// The Slack URL proves a request is Slack's before it reads anything into it: no signature, a timestamp more than five
// minutes off either way (Slack's rule, in its "Verifying requests from Slack" guide), or a signature that does not
// match the raw bytes, and the request is refused with 401 before any parse; one declaring more than the limit, 413. A flood of such bodies costs a hash at
// most, and signed commands are acknowledged through it.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../src/slack/receiver.js';
import { startTestApp, type TestApp } from '../harness/app.js';
import { metricValue } from '../harness/metrics.js';
import { slashCommand } from '../harness/payloads.js';
import { JSON_CONTENT_TYPE } from '../harness/signing.js';

/** The largest body read: within the limit, so that a refusal comes from the signature. */
const LARGEST = BODY_LIMIT_BYTES;
const FLOOD = 150;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** A `voice_ops_slack_requests_refused_total` count by reason, from /metrics. */
const refused = (reason: string) =>
  metricValue(t.app.url, `voice_ops_slack_requests_refused_total{reason="${reason}"}`);

/** An unparseable body: were it parsed, the app would log it as malformed and answer 400, not 401. */
const junk = (bytes: number) => `{"payload":${'['.repeat(bytes - 11)}`;

/** POSTs `body` unsigned, or with the headers given; resolves with the status, or the error that ended it. */
async function unsigned(body: string, headers: Record<string, string> = {}): Promise<number | string> {
  try {
    const answer = await request(t.eventsUrl, {
      method: 'POST',
      body,
      headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
    });
    await answer.body.dump();
    return answer.statusCode;
  } catch (error) {
    // The app may end the connection with its answer before the whole body went out.
    return (error as { code?: string }).code ?? String(error);
  }
}

describe('the timestamp', () => {
  it('ten minutes in the future is refused, as ten minutes in the past is', async () => {
    const body = slashCommand({ text: 'help', userId: 'UVIEWER', responseUrl: t.slack.respondUrl('r-future') });
    const now = Math.floor(Date.now() / 1000);
    const before = await refused('stale');
    expect((await t.post(body, { timestamp: now + 600 })).status).toBe(401);
    expect((await t.post(body, { timestamp: now - 600 })).status).toBe(401);
    expect(await refused('stale')).toBe(before + 2);
    // Four minutes off either way is within Slack's window.
    expect((await t.post(body, { timestamp: now + 240 })).status).toBe(200);
  });
});

describe('a forged or missing signature', () => {
  it('is refused before any parse, whatever the body holds', async () => {
    const forged = {
      'x-slack-signature': `v0=${'0'.repeat(64)}`,
      'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
    };
    const [bad, none] = [await refused('bad signature'), await refused('unsigned')];

    expect(await unsigned(junk(LARGEST), forged)).toBe(401);
    expect(await unsigned(junk(2_000))).toBe(401);

    expect(await refused('bad signature')).toBe(bad + 1);
    expect(await refused('unsigned')).toBe(none + 1);
    await t.settled();
    expect(t.logs.text()).not.toMatch(/Malformed request body|not a JSON object/);
  });

  it('a body over the size limit is refused with 413 before it is read', async () => {
    const forged = {
      'x-slack-signature': `v0=${'0'.repeat(64)}`,
      'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
    };
    const before = await refused('too large');
    expect(await unsigned(junk(LARGEST + 1), forged)).toBe(413);
    expect(await refused('too large')).toBe(before + 1);
  });
});

describe("Slack's ssl_check", () => {
  it('is answered unsigned, and nothing else an unsigned body carries reaches a listener', async () => {
    // shape: Slack slash command docs, "ssl_check"; the payload beside it is a block_actions an attacker would send.
    const smuggled = JSON.stringify({
      type: 'block_actions',
      user: { id: 'UADMIN', team_id: 'T1' },
      team: { id: 'T1' },
      trigger_id: 't.1',
      response_url: t.slack.respondUrl('smuggled'),
      actions: [{ action_id: 'search_numbers', block_id: 'b', type: 'button', value: 'x' }],
    });
    const body = `ssl_check=1&token=x&payload=${encodeURIComponent(smuggled)}`;
    const since = t.slack.mark();
    const answer = await request(t.eventsUrl, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect([answer.statusCode, await answer.body.text()]).toEqual([200, '']);
    await t.settled();
    expect(t.slack.calls().slice(since)).toEqual([]);
    expect(t.logs.text()).not.toContain('search_numbers');
  });
});

describe('a flood of unsigned 1 MiB bodies', () => {
  it('leaves every signed command acknowledged, and every flooding request refused', async () => {
    const before = await refused('unsigned');
    const flood = Array.from({ length: FLOOD }, () => unsigned(junk(LARGEST)));
    const commands = Array.from({ length: 10 }, (_, i) =>
      t.post(slashCommand({ text: 'help', userId: 'UVIEWER', responseUrl: t.slack.respondUrl(`flood-${i}`) })),
    );

    const acknowledged = await Promise.all(commands);
    const floodAnswers = await Promise.all(flood);

    expect(acknowledged.map((answer) => answer.status)).toEqual(commands.map(() => 200));
    // Each flooding request was refused: answered 401, or cut off by the app's answer while its body still went out.
    expect(floodAnswers.filter((answer) => answer !== 401 && answer !== 'EPIPE' && answer !== 'ECONNRESET')).toEqual(
      [],
    );
    expect(await refused('unsigned')).toBe(before + FLOOD);
  });
});
