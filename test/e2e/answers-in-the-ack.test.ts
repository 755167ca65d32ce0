// A command whose answer waits on no I/O after its delivery's key (help, a typo's correction) is answered in its
// acknowledgement, which Slack shows as the reply: nothing is posted to its response_url. A command that asks the
// provider is acknowledged bare at once, while the provider is still asked, and answered on its response_url: a
// typed list always asks it, even when the app read that list a moment before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderClient } from '../../src/provider/index.js';
import { ADMIN, startTestApp, type TestApp } from '../harness/app.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { createAgentThroughApp, shownText, voiceNumber } from './support.js';

let t: TestApp;
let outside: ProviderClient;

beforeAll(async () => {
  t = await startTestApp();
  await createAgentThroughApp(t, ADMIN, 'Front desk');
  // Someone with the provider's key, in its dashboard: no Voice Ops involved.
  outside = new ProviderClient({ baseUrl: t.sandbox.url, apiKey: t.sandbox.apiKey, timeoutMs: 2_000 });
});
afterAll(async () => {
  await outside?.close();
  await t?.close();
});

/** What reached the command's response_url: posts, and the reply its acknowledgement carried (`inAck`). */
const repliesTo = (responseUrlId: string | undefined) =>
  t.slack.calls(RESPONSE_URL).filter((call) => call.responseUrlId === responseUrlId);

describe('answers in the acknowledgement', () => {
  it('`/voice help` is answered in its acknowledgement, and nothing is posted to its response_url', async () => {
    const sent = await t.command('help', ADMIN);
    expect(sent.status).toBe(200);
    expect(sent.json).toMatchObject({ response_type: 'ephemeral', text: 'Voice Ops commands' });
    // The listener is done by the time the ack is written: a post would have been sent before it.
    expect(repliesTo(sent.responseUrlId).map((call) => call.inAck)).toEqual([true]);
    expect(shownText(await t.respondedTo(sent.responseUrlId))).toContain('/voice agents');
  });

  it('a mistyped command word is corrected in the acknowledgement', async () => {
    const sent = await t.command('agnets', ADMIN);
    expect(repliesTo(sent.responseUrlId).map((call) => call.inAck)).toEqual([true]);
    expect(shownText(await t.respondedTo(sent.responseUrlId))).toContain('Did you mean `/voice agents`?');
  });

  it('`/voice agents` is acknowledged bare while the provider is asked, then answered on its response_url', async () => {
    t.sandbox.faults.inject('listAgents', { type: 'hold' }, { times: 1 });
    try {
      const sent = await t.command('agents', ADMIN);
      expect(sent).toMatchObject({ status: 200, body: '' });
      expect(repliesTo(sent.responseUrlId)).toEqual([]);
      t.sandbox.faults.clear();
      const answer = await t.respondedTo(sent.responseUrlId);
      expect(answer.inAck).toBeUndefined();
      expect(shownText(answer)).toContain('Front desk');
    } finally {
      t.sandbox.faults.clear();
    }
  });
});

describe('a typed list', () => {
  const listed = async (text: string) => shownText(await t.respondedTo((await t.command(text, ADMIN)).responseUrlId));

  it('`/voice agents` shows an agent made outside the app a moment after the list was read', async () => {
    expect(await listed('agents')).toContain('Front desk');
    await outside.createAgent({ name: 'Dashboard desk', language: 'en-GB' });
    expect(await listed('agents')).toContain('Dashboard desk');
  });

  it('`/voice numbers` shows a number bought outside the app a moment after the list was read', async () => {
    await listed('numbers');
    const number = await voiceNumber(t, 'GB');
    await outside.buyNumber(number);
    expect(await listed('numbers')).toContain(number);
  });
});
