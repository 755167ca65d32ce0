// On Node 20 an AsyncLocalStorage in use turns on async hooks for the whole process: every promise then calls a hook
// in JavaScript, which cost a lone command about a tenth of its CPU. The app carries a delivery's scope and a change's
// fence explicitly instead, so that commands, pages and changes leave the hooks off. With them off, a promise's
// continuation runs with no async id of its own (0); with them on, it gets one.
import { executionAsyncId } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { buyThroughApp, createAgentThroughApp, mapThroughApp, shownText, voiceNumber } from './support.js';

async function continuationId(): Promise<number> {
  await null;
  return executionAsyncId();
}

describe('the app turns no async hooks on', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('while it answers commands and carries out changes', async () => {
    expect(await continuationId(), 'the hooks are off before the app has handled anything').toBe(0);
    for (const text of ['help', 'agents', 'numbers']) {
      const { responseUrlId } = await t.command(text, OPERATOR);
      expect(shownText(await t.respondedTo(responseUrlId))).not.toBe('');
    }
    const number = await voiceNumber(t, 'US');
    await buyThroughApp(t, OPERATOR, number);
    const { agent } = await createAgentThroughApp(t, OPERATOR, 'Hooks');
    await mapThroughApp(t, OPERATOR, number, agent.id);
    await t.settled();
    expect(await continuationId()).toBe(0);
  });
});
