// A channel bound to a team, set through the channels form: there, lists, pickers and the export show only the team's
// numbers and agents under a line that says so; a change of anything else is refused at the request and at the
// Confirm, audited; a number bought and an agent created there are the team's, and the audit log says so. Elsewhere
// everything is as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, INPUT, SETTINGS } from '../../src/slack/ids.js';
import { ADMIN, OPS_CHANNEL, startTestApp, type TestApp } from '../harness/app.js';
import { multiSelectInput, type StateValues, textInput } from '../harness/payloads.js';
import { confirmInModal, openForm, submitForm } from './settings-forms.js';
import {
  auditRows,
  blocksOf,
  buttonValues,
  copiedCodeBlock,
  listedAgents,
  listedNumbers,
  mapThroughApp,
  onlyButton,
  outcomeOf,
  readable,
  respondedWith,
  rowsOf,
  sandboxNumbers,
  shownText,
  suggested,
  viewOf,
  voiceNumber,
  waitUntil,
} from './support.js';

const SALES = 'CSALES';
const TEAM = 'SSALES';
const BOUND = `Showing <!subteam^${TEAM}>'s numbers`;

/** One row of the channels form's bindings as submitted: a channel (or none), a team (or none) and labels typed. */
const bindingRow = (index: number, row: { channel?: string; owner?: string; labels?: string }): StateValues => ({
  [SETTINGS.binding(index, 'channel')]: {
    [SETTINGS.value]: { type: 'multi_conversations_select', selected_conversations: row.channel ? [row.channel] : [] },
  },
  [SETTINGS.binding(index, 'owner')]: { [SETTINGS.groupPick]: multiSelectInput(row.owner ? [row.owner] : []) },
  [SETTINGS.binding(index, 'labels')]: { [SETTINGS.value]: textInput(row.labels ?? '') },
});

describe('a channel bound to a team', () => {
  let t: TestApp;
  /** Bought in #sales, and so the team's; bought in the ops channel, and so nobody's. */
  let theirs: string;
  let others: string;
  let agentId: string;

  async function answerIn(channelId: string, text: string): Promise<string> {
    const sent = await t.command(text, ADMIN, { channelId });
    return shownText(await t.respondedTo(sent.responseUrlId));
  }

  async function buyIn(channelId: string, number: string): Promise<void> {
    const asked = await t.command(`numbers buy ${number}`, ADMIN, { channelId });
    const confirmationId = onlyButton(blocksOf(await t.respondedTo(asked.responseUrlId)), ACTION.confirmChange);
    const container = { type: 'message', channelId, isEphemeral: true } as const;
    const confirmed = await t.action({
      userId: ADMIN,
      actionId: ACTION.confirmChange,
      value: confirmationId,
      container,
    });
    await respondedWith(t, confirmed.responseUrlId, 'Bought');
    await t.settled();
  }

  const tagsOf = (subject: string) =>
    rowsOf<{ labels: string; owner: string | null }>(t, 'SELECT labels, owner FROM tags WHERE subject = ?', [subject]);

  beforeAll(async () => {
    t = await startTestApp({ settingsFrom: 'slack', groups: { [TEAM]: [] } });
    await openForm(t, ADMIN, 'channels');
    const form = { ...bindingRow(0, { channel: SALES, owner: TEAM }), ...bindingRow(1, {}) };
    const { viewId, shown } = await submitForm(t, ADMIN, form);
    expect(readable(shown.blocks)).toContain(`<#${SALES}> now shows only <!subteam^${TEAM}>'s (was everything)`);
    await confirmInModal(t, ADMIN, viewId, shown.private_metadata ?? '');

    theirs = await voiceNumber(t, 'US');
    others = await voiceNumber(t, 'US', 1);
    await buyIn(SALES, theirs);
    await buyIn(OPS_CHANNEL, others);
    const created = await t.command('agents create "Sales desk" en-US', ADMIN, { channelId: SALES });
    await respondedWith(t, created.responseUrlId, 'Created agent');
    await t.settled();
    const row = (await auditRows(t)).findLast((candidate) => candidate.action === 'agent.create');
    agentId = row?.target ?? '';
    await mapThroughApp(t, ADMIN, theirs, agentId);
    await mapThroughApp(t, ADMIN, others, agentId);
  });
  afterAll(() => t.close());

  it('says under its input a channel bound twice, or bound to nothing, and asks nothing', async () => {
    const answer = await t.submit({
      userId: ADMIN,
      callbackId: CALLBACK.settings,
      stateValues: {
        ...bindingRow(0, { channel: SALES, owner: TEAM }),
        ...bindingRow(1, { channel: SALES, labels: 'vip' }),
        ...bindingRow(2, { channel: 'CSUPPORT' }),
      },
    });
    expect(answer.json).toEqual({
      response_action: 'errors',
      errors: {
        [SETTINGS.binding(1, 'channel')]: 'That channel is bound above already: a channel is bound once.',
        [SETTINGS.binding(2, 'owner')]: 'Choose a team or type labels, or clear the channel to remove it.',
      },
    });
  });

  it('gives a number bought and an agent created there its team, in the store and in the outcome row', async () => {
    expect(await tagsOf(theirs)).toEqual([{ labels: '[]', owner: TEAM }]);
    expect(await tagsOf(agentId)).toEqual([{ labels: '[]', owner: TEAM }]);
    expect(await tagsOf(others)).toEqual([]);
    const rows = await auditRows(t);
    for (const [action, target] of [
      ['number.buy', theirs],
      ['agent.create', agentId],
    ] as const) {
      const outcome = rows.find((row) => row.action === action && row.target === target && row.outcome === 'succeeded');
      expect(JSON.parse(outcome?.params ?? '{}')).toMatchObject({ tags: { labels: [], owner: TEAM } });
    }
  });

  it('lists only the team’s numbers and agents there, saying so, and everything elsewhere', async () => {
    const sent = await t.command('numbers', ADMIN, { channelId: SALES });
    const listed = await t.respondedTo(sent.responseUrlId);
    expect(listedNumbers(blocksOf(listed))).toEqual([theirs]);
    expect(shownText(listed)).toContain(BOUND);

    const elsewhere = await t.command('numbers', ADMIN, { channelId: OPS_CHANNEL });
    const all = await t.respondedTo(elsewhere.responseUrlId);
    expect(listedNumbers(blocksOf(all)).sort()).toEqual([theirs, others].sort());
    expect(shownText(all)).not.toContain('Showing');

    const agents = await t.command('agents', ADMIN, { channelId: SALES });
    const shown = await t.respondedTo(agents.responseUrlId);
    expect(listedAgents(blocksOf(shown))).toEqual([agentId]);
    expect(shownText(shown)).toContain(`Showing <!subteam^${TEAM}>'s agents`);
  });

  it('offers only the team’s numbers in a form opened there, and exports only their routes', async () => {
    const container = {
      type: 'view',
      viewId: 'VMAPSALES',
      viewType: 'modal',
      privateMetadata: JSON.stringify({ channelId: SALES }),
    } as const;
    const answer = await t.suggest({
      userId: ADMIN,
      actionId: INPUT.mapNumber.action,
      blockId: INPUT.mapNumber.block,
      value: '',
      container,
    });
    type Options = { option_groups?: { options: { value: string }[] }[]; options?: { value: string }[] };
    const json = answer.json as Options;
    const offered = [...(json.options ?? []), ...(json.option_groups ?? []).flatMap((group) => group.options)];
    expect(offered.map((option) => option.value)).toEqual([theirs]);
    const anywhere = await suggested(t, INPUT.mapNumber, '');
    expect(anywhere.options.map((option) => option.value).sort()).toEqual([theirs, others].sort());

    const exported = await t.command('export', ADMIN, { channelId: SALES });
    const reply = await t.respondedTo(exported.responseUrlId);
    expect(copiedCodeBlock(reply)).toContain(theirs);
    expect(copiedCodeBlock(reply)).not.toContain(others);
    expect(shownText(reply)).toContain(BOUND);
  });

  it('refuses there a change of a number outside it, at the request and at the Confirm, naming the binding', async () => {
    const refusal = `is bound to <!subteam^${TEAM}>: ${others} is not theirs. Change it from its own channel.`;
    expect(await answerIn(SALES, `numbers release ${others}`)).toContain(refusal);
    expect((await auditRows(t)).at(-1)).toMatchObject({
      action: 'access.denied',
      outcome: 'denied',
      channel_id: SALES,
      error_code: 'channel_binding',
    });

    const asked = await t.command(`numbers release ${others}`, ADMIN, { channelId: OPS_CHANNEL });
    const confirmationId = onlyButton(blocksOf(await t.respondedTo(asked.responseUrlId)), ACTION.confirmChange);
    const pressed = await t.action({
      userId: ADMIN,
      actionId: ACTION.confirmChange,
      value: confirmationId,
      container: { type: 'message', channelId: SALES, isEphemeral: true },
    });
    expect(shownText(await outcomeOf(t, pressed.responseUrlId))).toContain(refusal);
    expect(t.sandbox.requestCount('releaseNumber')).toBe(0);
  });

  it('asks there as before for what it covers, by a number’s provider id too, and for the settings', async () => {
    const id = (await sandboxNumbers(t)).find((entry) => entry.number === theirs)?.id ?? '';
    const asked = await t.command(`numbers release ${id}`, ADMIN, { channelId: SALES });
    expect(buttonValues(blocksOf(await t.respondedTo(asked.responseUrlId)), ACTION.confirmChange)).toHaveLength(1);
    const stateValues = { [SETTINGS.block('undoHours')]: { [SETTINGS.value]: textInput('12') } };
    const privateMetadata = JSON.stringify({ channelId: SALES });
    await t.submit({ userId: ADMIN, viewId: 'VSETSALES', callbackId: CALLBACK.settings, stateValues, privateMetadata });
    const prompt = await t.slack.waitFor(
      'views.update',
      (call) => call.body.view_id === 'VSETSALES' && readable(blocksOf(call)).includes('Undo is offered for 12 hours'),
    );
    expect(viewOf(prompt).callback_id).toBe(CALLBACK.confirmChange);
  });

  it('gives numbers bought in bulk there the team too', async () => {
    const sent = await t.command('numbers buy DE 2', ADMIN, { channelId: SALES });
    const batchId = onlyButton(blocksOf(await t.respondedTo(sent.responseUrlId)), ACTION.confirmBatch);
    const container = { type: 'message', channelId: SALES, isEphemeral: true } as const;
    await t.action({ userId: ADMIN, actionId: ACTION.confirmBatch, value: batchId, container });
    const bought = () => rowsOf(t, "SELECT subject FROM tags WHERE subject LIKE '+49%' AND owner = ?", [TEAM]);
    await waitUntil(async () => (await bought()).length === 2, 'the two numbers bought in bulk to be the team’s');
    await t.settled();
  });

  it('shows there the card of its team’s number and agent only, and says another’s is outside the binding', async () => {
    const created = await t.command('agents create "Ops desk" en-US', ADMIN, { channelId: OPS_CHANNEL });
    await respondedWith(t, created.responseUrlId, 'Created agent');
    await t.settled();
    const opsAgent = (await auditRows(t)).findLast((row) => row.action === 'agent.create')?.target ?? '';
    for (const [text, subject] of [
      [`numbers ${others}`, others],
      [`agents ${opsAgent}`, opsAgent],
    ] as const) {
      const sent = await t.command(text, ADMIN, { channelId: SALES });
      const answer = await t.respondedTo(sent.responseUrlId);
      expect(shownText(answer)).toContain(
        `is bound to <!subteam^${TEAM}>: ${subject} is not theirs. Look it up from its own channel.`,
      );
      expect(buttonValues(blocksOf(answer), ACTION.confirmChange)).toEqual([]);
      expect(await answerIn(OPS_CHANNEL, text)).not.toContain('Look it up from its own channel');
    }
    expect(await answerIn(SALES, `numbers ${theirs}`)).not.toContain('Look it up from its own channel');
    expect(await answerIn(SALES, `agents ${agentId}`)).not.toContain('Look it up from its own channel');
  });
});
