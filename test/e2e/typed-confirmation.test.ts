// VOICE_TYPED_RELEASE: releasing a number that routes to an agent (it silences a live line) asks the requester to
// type the number's last four digits in a modal; a wrong entry is an inline error and changes nothing. Every test
// runs with the rule given by the environment and again with it set in Slack: it holds the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { ADMIN, startTestApp, type TestApp } from '../harness/app.js';
import { textInput } from '../harness/payloads.js';
import {
  askForConfirmation,
  blocksOf,
  buyThroughApp,
  createAgentThroughApp,
  hasElement,
  mapThroughApp,
  onlyButton,
  outcomeOf,
  press,
  rowsOf,
  SETTINGS_SOURCES,
  sandboxNumbers,
  shownText,
  viewOf,
  voiceNumber,
} from './support.js';

describe.each(SETTINGS_SOURCES)('the rule from %s', (settingsFrom) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ settingsFrom, env: { VOICE_TYPED_RELEASE: 'true' } });
  });
  afterAll(() => t.close());

  async function routedNumber(skip: number): Promise<string> {
    const { agent } = await createAgentThroughApp(t, ADMIN, `Desk ${skip}`);
    const number = await voiceNumber(t, 'US', skip);
    await buyThroughApp(t, ADMIN, number);
    await mapThroughApp(t, ADMIN, number, agent.id);
    return number;
  }

  const stateOf = async (id: string): Promise<string | undefined> =>
    (await rowsOf<{ state: string }>(t, 'SELECT state FROM confirmations WHERE id = ?', [id]))[0]?.state;

  const typed = (value: string) => ({
    [INPUT.typedConfirmation.block]: { [INPUT.typedConfirmation.action]: textInput(value) },
  });

  it('asks for the last four digits in a modal: a wrong entry is an inline error, the right one releases', async () => {
    const number = await routedNumber(0);
    const asked = await t.command(`numbers release ${number}`, ADMIN);
    const prompt = await t.respondedTo(asked.responseUrlId);
    expect(shownText(prompt)).toContain('type the last four digits');
    expect(hasElement(blocksOf(prompt), ACTION.confirmChange)).toBe(false);
    const confirmationId = onlyButton(blocksOf(prompt), ACTION.confirmTyped);

    const since = t.slack.mark();
    const pressed = await press(t, ADMIN, ACTION.confirmTyped, confirmationId);
    const opened = await t.slack.waitFor('views.open', (call) => call.body.trigger_id === pressed.triggerId, { since });
    const modal = viewOf(opened);
    expect(modal.callback_id).toBe(CALLBACK.confirmChange);
    expect(JSON.stringify(modal.blocks)).toContain(`Type the last four digits of ${number} to release it`);

    const submit = (value: string) =>
      t.submit({
        userId: ADMIN,
        callbackId: CALLBACK.confirmChange,
        privateMetadata: modal.private_metadata,
        stateValues: typed(value),
      });
    const wrong = await submit('0000');
    expect(wrong.json).toMatchObject({
      response_action: 'errors',
      errors: { [INPUT.typedConfirmation.block]: expect.stringContaining('nothing was changed') },
    });
    expect(t.sandbox.requestCount('releaseNumber')).toBe(0);
    expect(await stateOf(confirmationId)).toBe('pending');

    const right = await submit(number.slice(-4));
    expect(right.json).toMatchObject({ response_action: 'update' });
    await t.slack.waitFor('views.update', (call) => shownText(call).includes('Released'), { since });
    await t.settled();
    expect(t.sandbox.requestCount('releaseNumber')).toBe(1);
    expect((await sandboxNumbers(t)).map((entry) => entry.number)).not.toContain(number);
  });

  it('changes nothing when the typed confirmation is skipped by a plain Confirm', async () => {
    const number = await routedNumber(1);
    const asked = await t.command(`numbers release ${number}`, ADMIN);
    const confirmationId = onlyButton(blocksOf(await t.respondedTo(asked.responseUrlId)), ACTION.confirmTyped);
    const before = t.sandbox.requestCount('releaseNumber');
    const pressed = await press(t, ADMIN, ACTION.confirmChange, confirmationId);
    expect(shownText(await outcomeOf(t, pressed.responseUrlId))).toContain('Type the last four digits');
    await t.settled();
    expect(t.sandbox.requestCount('releaseNumber')).toBe(before);
    expect(await stateOf(confirmationId)).toBe('pending');
  });

  it('asks nothing more for a number that routes nowhere', async () => {
    const number = await voiceNumber(t, 'US', 2);
    await buyThroughApp(t, ADMIN, number);
    const { prompt } = await askForConfirmation(t, ADMIN, `numbers release ${number}`);
    expect(shownText(prompt)).not.toContain('type the last four digits');
  });
});
