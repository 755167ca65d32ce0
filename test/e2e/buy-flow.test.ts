import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { OPERATOR, OPS_CHANNEL, startTestApp, type TestApp } from '../harness/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

type Block = {
  type: string;
  elements?: { action_id?: string; value?: string }[];
  accessory?: { action_id?: string; value?: string };
};

function buttons(blocks: Block[], actionId: string): string[] {
  return blocks
    .flatMap((block) => [...(block.elements ?? []), ...(block.accessory ? [block.accessory] : [])])
    .filter((element) => element.action_id === actionId)
    .map((element) => element.value ?? '');
}

it('searches, then buys a number after confirmation', async () => {
  const search = await t.command('numbers search US', OPERATOR);
  expect(search.status).toBe(200);
  const results = await t.respondedTo(search.responseUrlId ?? '');
  const buyable = buttons(results.body.blocks as Block[], ACTION.buyNumber);
  expect(buyable.length).toBeGreaterThan(0);
  const number = buyable[0] ?? '';

  const buy = await t.action({
    userId: OPERATOR,
    actionId: ACTION.buyNumber,
    value: number,
    container: { type: 'message', channelId: OPS_CHANNEL, isEphemeral: true },
  });
  const prompt = await t.respondedTo(buy.responseUrlId ?? '');
  expect(JSON.stringify(prompt.body)).toContain(number);
  const [confirmationId] = buttons(prompt.body.blocks as Block[], ACTION.confirmChange);

  const confirm = await t.action({
    userId: OPERATOR,
    actionId: ACTION.confirmChange,
    value: confirmationId ?? '',
    container: { type: 'message', channelId: OPS_CHANNEL, isEphemeral: true },
  });
  const done = await t.slack.waitFor(
    'response_url',
    (call) => call.responseUrlId === confirm.responseUrlId && JSON.stringify(call.body).includes('Bought'),
  );
  expect(JSON.stringify(done.body)).toContain(number);
  const posted = await t.slack.waitFor('chat.postMessage');
  expect(posted.body.channel).toBe('CNOTIFY');
  expect(JSON.stringify(posted.body)).toContain(number);
  expect(t.sandbox.requestCount('buyNumber')).toBe(1);
});
