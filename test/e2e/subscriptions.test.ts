// Subscriptions: `/voice subscribe` in a channel asks for a settings change, confirmed and audited; from then on the
// channel gets the changes its kinds and its filter pick, read from the labels its numbers had before each change,
// beside the announcements channel, which gets everything. `/voice subscriptions` lists them, each with Unsubscribe,
// and `/voice unsubscribe` stops it. A post Slack refuses is audited, and the change stands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/ops/api.js';
import { ProviderClient } from '../../src/provider/index.js';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { ADMIN, NOTIFY_CHANNEL, OPERATOR, OPS_CHANNEL, startTestApp, type TestApp } from '../harness/app.js';
import { textInput } from '../harness/payloads.js';
import {
  announced,
  auditRows,
  blocksOf,
  buttonValues,
  buyThroughApp,
  confirmAs,
  mapThroughApp,
  onlyButton,
  press,
  readable,
  type SandboxNumber,
  type SeededApp,
  sandboxNumbers,
  shownText,
  startSeededApp,
  viewOf,
  voiceNumber,
  waitUntil,
} from './support.js';

const SALES = 'CSALESOPS';
const SALES_TEAM = 'SSALESTEAM';
const asPerson = (userId: string): Actor => ({ userId, channelId: OPS_CHANNEL, source: 'command' });

/** `/voice TEXT` typed in `channel` by an admin, then Confirm; resolves with the outcome shown. */
async function confirmedIn(t: TestApp, channel: string, text: string): Promise<string> {
  const asked = await t.command(text, ADMIN, { channelId: channel });
  const prompt = await t.respondedTo(asked.responseUrlId);
  return shownText(await confirmAs(t, ADMIN, onlyButton(blocksOf(prompt), ACTION.confirmChange)));
}

/** Everything posted in a channel, as it reads now. */
const postedIn = (t: TestApp, channel: string): string =>
  announced(t, channel)
    .map((message) => message.text)
    .join('\n');

describe('a subscription with a filter', () => {
  let seeded: SeededApp;
  let t: TestApp;
  let sales: string;
  let support: string;
  let salesTest: string;
  let salesLater: string;
  beforeAll(async () => {
    seeded = await startSeededApp(
      { agents: 1, numbers: 4, routed: 0 },
      {
        settingsFrom: 'slack',
        groups: { [SALES_TEAM]: [OPERATOR] },
      },
    );
    t = seeded.t;
    [sales, support, salesTest, salesLater] = seeded.numbers.map((entry) => entry.number) as [
      string,
      string,
      string,
      string,
    ];
    const label = async (target: string, add: string[], owner?: string) => {
      const done = await t.app.ops.changeLabels(asPerson(ADMIN), { target, add, ...(owner ? { owner } : {}) });
      expect(done.ok, `labels on ${target}`).toBe(true);
    };
    await label(sales, ['team:sales'], SALES_TEAM);
    await label(support, ['team:support']);
    await label(salesTest, ['team:sales', 'test']);
    await label(salesLater, ['team:sales']);
  });
  afterAll(async () => {
    await seeded?.t.close();
  });

  it('is asked for by `/voice subscribe` in the channel, confirmed and audited as a settings change', async () => {
    const outcome = await confirmedIn(
      t,
      SALES,
      `subscribe route +label:team:sales -label:test owner:<!subteam^${SALES_TEAM}|@sales-team>`,
    );
    expect(outcome).toMatch(/changed the settings/i);
    const row = (await auditRows(t)).findLast((r) => r.action === 'settings.change' && r.outcome === 'succeeded');
    expect(JSON.parse(row?.params ?? '{}')).toEqual({
      changes: [
        {
          name: 'subscriptions',
          before: [],
          after: [
            {
              channel: SALES,
              kinds: ['route'],
              labels: ['team:sales'],
              without: ['test'],
              owners: [SALES_TEAM],
              quiet: false,
            },
          ],
        },
      ],
    });
    const listed = await t.respondedTo((await t.command('subscriptions', ADMIN)).responseUrlId);
    expect(shownText(listed)).toContain(`<#${SALES}>: route changes of what is labelled`);
    expect(buttonValues(blocksOf(listed), ACTION.unsubscribe)).toEqual([SALES]);
  });

  it('posts exactly the changes it picks, each also announced in the announcements channel', async () => {
    const agent = seeded.agent(0).id;
    for (const number of [sales, support, salesTest]) await mapThroughApp(t, OPERATOR, number, agent);
    await waitUntil(() => postedIn(t, SALES).includes(sales), 'the sales route posted in the subscribed channel');
    const posted = postedIn(t, SALES);
    expect(posted).not.toContain(support);
    expect(posted).not.toContain(salesTest);
    const everything = postedIn(t, NOTIFY_CHANNEL);
    for (const number of [sales, support, salesTest]) expect(everything).toContain(number);
  });

  it('leaves out the kinds it does not name: a sales number released is not posted', async () => {
    const released = await confirmedIn(t, OPS_CHANNEL, `numbers release ${sales}`);
    expect(released).toContain('Released');
    expect(postedIn(t, NOTIFY_CHANNEL)).toMatch(new RegExp(`released \\*\\${sales}`));
    expect(announced(t, SALES).filter((message) => message.text.includes('released'))).toEqual([]);
  });

  it('stops at `/voice unsubscribe`', async () => {
    expect(await confirmedIn(t, SALES, 'unsubscribe')).toMatch(/changed the settings/i);
    expect((await t.app.ops.settings({ fresh: true })).settings.subscriptions).toEqual([]);
    await mapThroughApp(t, ADMIN, salesLater, seeded.agent(0).id);
    expect(postedIn(t, NOTIFY_CHANNEL)).toContain(salesLater);
    expect(postedIn(t, SALES)).not.toContain(salesLater);
  });

  it('refuses words it does not read, and changes nothing', async () => {
    const answer = await t.respondedTo(
      (await t.command('subscribe routes', ADMIN, { channelId: SALES })).responseUrlId,
    );
    expect(shownText(answer)).toContain("I don't understand `routes` after `subscribe`");
    const owner = await t.respondedTo(
      (await t.command('subscribe owner:@sales', ADMIN, { channelId: SALES })).responseUrlId,
    );
    expect(shownText(owner)).toContain('Give a user group after `owner:`');
    expect((await t.app.ops.settings({ fresh: true })).settings.subscriptions).toEqual([]);
  });
});

describe('a bulk change', () => {
  let seeded: SeededApp;
  afterAll(async () => {
    await seeded?.t.close();
  });

  it('is posted where its numbers matched before it, with only those: a bulk release by the labels they had', async () => {
    seeded = await startSeededApp({ agents: 1, numbers: 2, routed: 0 }, { settingsFrom: 'slack' });
    const { t } = seeded;
    const [labelled, bare] = seeded.numbers.map((entry) => entry.number) as [string, string];
    expect((await t.app.ops.changeLabels(asPerson(ADMIN), { target: labelled, add: ['team:sales'] })).ok).toBe(true);
    await confirmedIn(t, SALES, 'subscribe release +label:team:sales');

    const planned = await t.respondedTo((await t.command('numbers release unrouted', ADMIN)).responseUrlId);
    const pressed = await press(
      t,
      ADMIN,
      ACTION.confirmBatchTyped,
      onlyButton(blocksOf(planned), ACTION.confirmBatchTyped),
    );
    const opened = viewOf(await t.slack.waitFor('views.open', (call) => call.body.trigger_id === pressed.triggerId));
    await t.submit({
      userId: ADMIN,
      callbackId: CALLBACK.confirmBatch,
      privateMetadata: opened.private_metadata,
      stateValues: { [INPUT.typedConfirmation.block]: { [INPUT.typedConfirmation.action]: textInput('2') } },
    });
    await waitUntil(() => postedIn(t, SALES).includes(labelled), 'the bulk release posted in the subscribed channel');
    // Only the number it picked, said to be part of the batch; the announcements channel gets both.
    expect(postedIn(t, SALES)).not.toContain(bare);
    expect(postedIn(t, SALES)).toContain("1 of the batch's 2 numbers");
    await waitUntil(() => postedIn(t, NOTIFY_CHANNEL).includes(bare), 'the bulk release announced');
    expect(postedIn(t, NOTIFY_CHANNEL)).toContain(labelled);
  });
});

describe('changes made outside Voice Ops', () => {
  let seeded: SeededApp;
  let outside: ProviderClient;
  afterAll(async () => {
    await outside?.close();
    await seeded?.t.close();
  });

  it('are posted in a subscribed channel only as far as its filter picks them', async () => {
    seeded = await startSeededApp(
      { agents: 1, numbers: 2, routed: 0 },
      { settingsFrom: 'slack', groups: { [SALES_TEAM]: [OPERATOR] } },
    );
    const { t } = seeded;
    outside = new ProviderClient({ baseUrl: t.sandbox.url, apiKey: t.sandbox.apiKey, timeoutMs: 2_000 });
    const [owned, other] = seeded.numbers as [SandboxNumber, SandboxNumber];
    const labelled = await t.app.ops.changeLabels(asPerson(ADMIN), { target: owned.number, owner: SALES_TEAM });
    expect(labelled.ok).toBe(true);
    await confirmedIn(t, SALES, `subscribe owner:<!subteam^${SALES_TEAM}|@sales-team>`);
    await t.app.reconcile();

    await outside.releaseNumber(owned.id);
    await outside.releaseNumber(other.id);
    await t.app.reconcile();

    await waitUntil(() => postedIn(t, SALES).includes(owned.number), 'the owned number posted in the channel');
    expect(postedIn(t, SALES)).not.toContain(other.number);
    expect(postedIn(t, NOTIFY_CHANNEL)).toContain(other.number);
  });
});

describe('a subscribed channel Slack will not post in', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No announcements channel: the subscribed channel is the only one posted in.
    t = await startTestApp({ env: { NOTIFY_CHANNEL_ID: '' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is audited, and the change stands', async () => {
    await confirmedIn(t, SALES, 'subscribe buy');
    const number = await voiceNumber(t, 'DE');
    t.slack.failNext('chat.postMessage', 'not_in_channel');
    await buyThroughApp(t, OPERATOR, number);
    expect((await sandboxNumbers(t)).map((entry) => entry.number)).toContain(number);
    const failed = (await auditRows(t)).findLast((row) => row.action === 'change.announce');
    expect([failed?.outcome, failed?.target, failed?.error_code]).toEqual(['failed', number, 'not_in_channel']);
    expect(readable(announced(t, SALES).flatMap((message) => message.blocks))).not.toContain(number);
  });
});
