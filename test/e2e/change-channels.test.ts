// VOICE_CHANGE_CHANNELS: changes are accepted only in the listed channels, by command and by button; listings,
// search and audit work anywhere; a change from elsewhere (the Home tab included) is refused, naming the channels,
// and audited. Every test runs with the channels given by the environment and again with the same channels set in
// Slack: they hold the same; only the refusal's naming differs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { OPERATOR, OPS_CHANNEL, startTestApp, type TestApp } from '../harness/app.js';
import {
  auditRows,
  blocksOf,
  onlyButton,
  outcomeOf,
  providerRequests,
  ruleWords,
  SETTINGS_SOURCES,
  shownText,
  voiceNumber,
} from './support.js';

const CHANGES = 'CCHANGES';

describe.each(SETTINGS_SOURCES)('channels from %s', (settingsFrom) => {
  const words = ruleWords(settingsFrom);
  /** The refusal's opening, naming the allowed channel. */
  const onlyIn = `Changes are made only in channel ${CHANGES}${words.tag('VOICE_CHANGE_CHANNELS')}`;

  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ settingsFrom, env: { VOICE_CHANGE_CHANNELS: CHANGES } });
  });
  afterAll(() => t.close());

  async function answerTo(text: string, channelId: string): Promise<string> {
    const sent = await t.command(text, OPERATOR, { channelId });
    return shownText(await t.respondedTo(sent.responseUrlId));
  }

  it('refuses a change from a channel not listed, naming the allowed one, and audits it', async () => {
    const number = await voiceNumber(t);
    const before = providerRequests(t);
    const answer = await answerTo(`numbers buy ${number}`, OPS_CHANNEL);
    expect(answer).toContain(`${onlyIn}, not in ${OPS_CHANNEL}`);
    expect(answer).toContain(words.whoChanges('VOICE_CHANGE_CHANNELS'));
    expect(providerRequests(t)).toEqual(before);
    expect((await auditRows(t)).at(-1)).toMatchObject({
      action: 'access.denied',
      outcome: 'denied',
      channel_id: OPS_CHANNEL,
      error_code: 'change_channel',
    });
  });

  it('still answers listings, search and audit anywhere', async () => {
    expect(await answerTo('numbers', OPS_CHANNEL)).not.toContain('Changes are made only in');
    expect(await answerTo('numbers search US', OPS_CHANNEL)).toContain('+1');
    const audit = await answerTo('audit', OPS_CHANNEL);
    expect(audit).toMatch(/attempt to \w+/);
    expect(audit).toContain('`change_channel`');
  });

  it('takes the change in the listed channel, but not its Confirm pressed elsewhere', async () => {
    const number = await voiceNumber(t, 'US', 1);
    const sent = await t.command(`numbers buy ${number}`, OPERATOR, { channelId: CHANGES });
    const confirmationId = onlyButton(blocksOf(await t.respondedTo(sent.responseUrlId)), ACTION.confirmChange);

    const elsewhere = await t.action({
      userId: OPERATOR,
      actionId: ACTION.confirmChange,
      value: confirmationId,
      container: { type: 'message', channelId: OPS_CHANNEL, isEphemeral: true },
    });
    expect(shownText(await outcomeOf(t, elsewhere.responseUrlId))).toContain(`${onlyIn}, not in ${OPS_CHANNEL}`);
    expect(t.sandbox.requestCount('buyNumber')).toBe(0);

    // The refusal left the confirmation usable where changes belong.
    const here = await t.action({
      userId: OPERATOR,
      actionId: ACTION.confirmChange,
      value: confirmationId,
      container: { type: 'message', channelId: CHANGES, isEphemeral: true },
    });
    expect(shownText(await outcomeOf(t, here.responseUrlId))).toContain('Bought');
    await t.settled();
    expect(t.sandbox.requestCount('buyNumber')).toBe(1);
  });

  it('refuses a change started from the Home tab, which has no channel', async () => {
    const since = t.slack.mark();
    await t.action({
      userId: OPERATOR,
      actionId: ACTION.buyNumber,
      value: await voiceNumber(t, 'US', 2),
      container: { type: 'view', viewId: 'VHOMETAB', viewType: 'home' },
    });
    const shown = await t.slack.waitFor('views.update', (call) => shownText(call).includes(onlyIn), {
      since,
      description: 'the refusal in the modal',
    });
    expect(shownText(shown)).toContain('not outside a channel (the Home tab)');
    expect((await auditRows(t)).at(-1)).toMatchObject({
      action: 'access.denied',
      source: 'home',
      error_code: 'change_channel',
    });
  });

  it('applies to a bulk plan as one request: refused where the plan is asked, and where its Apply is pressed', async () => {
    const refused = await answerTo('numbers buy US 3', OPS_CHANNEL);
    expect(refused).toContain(onlyIn);

    const sent = await t.command('numbers buy US 3', OPERATOR, { channelId: CHANGES });
    const batchId = onlyButton(blocksOf(await t.respondedTo(sent.responseUrlId)), ACTION.confirmBatch);
    const before = t.sandbox.requestCount('buyNumber');
    const elsewhere = await t.action({
      userId: OPERATOR,
      actionId: ACTION.confirmBatch,
      value: batchId,
      container: { type: 'message', channelId: OPS_CHANNEL, isEphemeral: true },
    });
    expect(shownText(await outcomeOf(t, elsewhere.responseUrlId))).toContain(`${onlyIn}, not in ${OPS_CHANNEL}`);
    await t.settled();
    expect(t.sandbox.requestCount('buyNumber')).toBe(before);
  });
});
