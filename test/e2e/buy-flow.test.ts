import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { OPERATOR, OPS_CHANNEL, startTestApp, type TestApp } from '../harness/app.js';
import { buyThroughApp, EPHEMERAL, respondedWith, shownText } from './support.js';

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

it('puts the confirmation where Buy was pressed, and the search again after it, without the number bought', async () => {
  const search = await t.command('numbers search CA', OPERATOR);
  const results = await t.respondedTo(search.responseUrlId ?? '');
  const number = buttons(results.body.blocks as Block[], ACTION.buyNumber)[0] ?? '';

  const buy = await t.action({ userId: OPERATOR, actionId: ACTION.buyNumber, value: number, container: EPHEMERAL });
  const prompt = await t.respondedTo(buy.responseUrlId ?? '');
  expect(prompt.body.replace_original, 'the confirmation replaces the search result').toBe(true);
  const [confirmationId] = buttons(prompt.body.blocks as Block[], ACTION.confirmChange);

  const confirm = await t.action({
    userId: OPERATOR,
    actionId: ACTION.confirmChange,
    value: confirmationId ?? '',
    container: EPHEMERAL,
  });
  const done = await respondedWith(t, confirm.responseUrlId, `Bought *${number}*`);
  expect(done.body.replace_original).toBe(true);
  expect(shownText(done)).toContain('Available numbers in Canada (CA)');
  const stillForSale = buttons(done.body.blocks as Block[], ACTION.buyNumber);
  expect(stillForSale.length).toBeGreaterThan(0);
  expect(stillForSale).not.toContain(number);
});

it('leaves a note in place of the confirmation when Buy is cancelled: nothing bought, and how to search again', async () => {
  const search = await t.command('numbers search GB', OPERATOR);
  const results = await t.respondedTo(search.responseUrlId ?? '');
  const number = buttons(results.body.blocks as Block[], ACTION.buyNumber)[0] ?? '';
  const buy = await t.action({ userId: OPERATOR, actionId: ACTION.buyNumber, value: number, container: EPHEMERAL });
  const prompt = await t.respondedTo(buy.responseUrlId ?? '');
  const [confirmationId] = buttons(prompt.body.blocks as Block[], ACTION.cancelChange);
  const bought = t.sandbox.requestCount('buyNumber');

  const cancel = await t.action({
    userId: OPERATOR,
    actionId: ACTION.cancelChange,
    value: confirmationId ?? '',
    container: EPHEMERAL,
  });
  const note = await respondedWith(t, cancel.responseUrlId, 'was not bought');
  expect(note.body.replace_original).toBe(true);
  expect(shownText(note)).toContain(number);
  expect(shownText(note)).toContain('/voice numbers search');
  expect(t.sandbox.requestCount('buyNumber')).toBe(bought);
});

it('shows no search after a buy typed as a command, even after a search', async () => {
  const search = await t.command('numbers search FR', OPERATOR);
  const number = buttons((await t.respondedTo(search.responseUrlId ?? '')).body.blocks as Block[], ACTION.buyNumber)[0];
  await buyThroughApp(t, OPERATOR, number ?? '');
  const outcome = t.slack
    .calls('response_url')
    .filter((call) => shownText(call).includes(`Bought *${number}*`))
    .at(-1);
  if (!outcome) throw new Error(`no outcome showing ${number} bought`);
  expect(shownText(outcome)).not.toContain('Available numbers');
});
