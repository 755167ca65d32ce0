// Nothing spends money on what cannot be bought, and a buy does not dead-end. A number the provider does not offer is
// refused before any confirmation, with the nearest numbers that are for sale; one sold to someone else between the
// confirmation and the Confirm is said so; a plan again of a bulk buy marks what is no longer for sale. After a buy,
// its answer routes what was bought to an agent picked in place, or to one created for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, INPUT, SETTINGS } from '../../src/slack/ids.js';
import { decodeMetadata } from '../../src/slack/metadata.js';
import { ADMIN, OPERATOR, OPS_CHANNEL, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { selectInput, textInput } from '../harness/payloads.js';
import { grant } from './settings-forms.js';
import {
  applyPlan,
  auditRows,
  blockKitProblems,
  blocksOf,
  buttonValues,
  confirmAs,
  createAgentThroughApp,
  EPHEMERAL,
  elementsOf,
  hasElement,
  onlyButton,
  outcomeOf,
  press,
  readable,
  respondedWith,
  type SandboxAvailable,
  sandboxNumbers,
  sandboxRequest,
  shownText,
  suggested,
  viewOf,
  voiceNumber,
} from './support.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** A number in the sandbox's first German block, on a line past those it sells. */
const NEVER_SOLD = '+493023125999';

/** The Buy buttons of an answer: the numbers it offers instead. */
const offered = (blocks: ReturnType<typeof blocksOf>) => buttonValues(blocks, ACTION.buyNumber);

describe('a buy of a number that is not for sale', () => {
  it('is answered "not for sale" with the nearest for sale in its region, no confirmation, and one refused audit row', async () => {
    const answer = await t.respondedTo((await t.command(`numbers buy ${NEVER_SOLD}`, OPERATOR)).responseUrlId);

    expect(shownText(answer)).toContain(`${NEVER_SOLD} is not for sale.`);
    expect(buttonValues(blocksOf(answer), ACTION.confirmChange)).toEqual([]);
    const instead = offered(blocksOf(answer));
    expect(instead).toHaveLength(3);
    const region = await sandboxRequest(t, 'GET', '/list-available-numbers?region=DE&limit=100');
    const forSale = new Set((region.body.data as SandboxAvailable[]).map((entry) => entry.number));
    for (const number of instead) {
      // Nearest by digits: the same block of numbers, which the sandbox still sells.
      expect(number.startsWith('+493023125')).toBe(true);
      expect(forSale.has(number)).toBe(true);
    }
    expect(blockKitProblems(answer)).toEqual([]);
    const rows = (await auditRows(t)).filter((row) => row.target === NEVER_SOLD);
    expect(rows.map((row) => [row.action, row.outcome, row.error_code])).toEqual([
      ['number.buy', 'rejected', 'not_for_sale'],
    ]);
    expect(t.sandbox.requestCount('buyNumber')).toBe(0);

    // An offered number is bought from there: its Buy asks for the usual confirmation.
    const pressed = await press(t, OPERATOR, ACTION.buyNumber, instead[0] ?? '');
    const prompt = await respondedWith(t, pressed.responseUrlId, `Buy *${instead[0]}*`);
    expect(buttonValues(blocksOf(prompt), ACTION.confirmChange)).toHaveLength(1);
  });

  it('is refused so when the number was sold elsewhere since a search showed it', async () => {
    const number = await voiceNumber(t, 'FR', 0);
    t.sandbox.faults.sellElsewhere(number);
    try {
      const answer = await t.respondedTo((await t.command(`numbers buy ${number}`, OPERATOR)).responseUrlId);
      expect(shownText(answer)).toContain(`${number} is not for sale.`);
      expect(offered(blocksOf(answer))).not.toContain(number);
      expect(offered(blocksOf(answer)).length).toBeGreaterThan(0);
    } finally {
      t.sandbox.faults.clear();
    }
  });
});

describe('a number sold to someone else between the confirmation and the Confirm', () => {
  it('is answered as sold, with the nearest still for sale, buying nothing', async () => {
    const number = await voiceNumber(t, 'GB', 1);
    const asked = await t.respondedTo((await t.command(`numbers buy ${number}`, OPERATOR)).responseUrlId);
    t.sandbox.faults.sellElsewhere(number);
    try {
      const outcome = await confirmAs(t, OPERATOR, onlyButton(blocksOf(asked), ACTION.confirmChange));

      const shown = shownText(outcome);
      expect(shown).toContain(`${number} was sold to someone else after you asked; nothing was bought.`);
      expect(shown).not.toContain('deleted or released');
      expect(offered(blocksOf(outcome)).length).toBeGreaterThan(0);
      expect(offered(blocksOf(outcome))).not.toContain(number);
      expect((await sandboxNumbers(t)).map((entry) => entry.number)).not.toContain(number);
      const last = (await auditRows(t)).filter((row) => row.target === number).at(-1);
      expect(last).toMatchObject({ outcome: 'failed', error_code: 'sold_elsewhere' });
    } finally {
      t.sandbox.faults.clear();
    }
  });
});

describe('a bulk buy planned again', () => {
  it('marks a number no longer for sale as left out, and buys only the rest', async () => {
    const plan = await t.respondedTo((await t.command('numbers buy IT 2', OPERATOR)).responseUrlId);
    // Both purchases fail at the provider, and are planned again.
    t.sandbox.faults.inject('buyNumber', { type: 'status', status: 400, body: { error: 'rejected' } }, { times: 2 });
    const ended = await applyPlan(t, plan);
    expect(shownText(ended)).toContain('Bought 0 of 2');
    const [first, second] = shownText(plan).match(/\+39\d+/g) ?? [];
    t.sandbox.faults.sellElsewhere(first ?? '');
    try {
      const [again] = buttonValues(blocksOf(ended), ACTION.planAgain);
      const pressed = await press(t, OPERATOR, ACTION.planAgain, again ?? '');
      const replanned = await respondedWith(t, pressed.responseUrlId, 'Plan');

      expect(shownText(replanned)).toContain(`*${first}*: not for sale now: left out`);
      expect(shownText(replanned)).toContain('1 not for sale now, left out');
      expect(onlyButton(blocksOf(replanned), ACTION.confirmBatch)).not.toBe('');
      expect(shownText(await applyPlan(t, replanned))).toContain('Bought 1 of 1');
      const owned = (await sandboxNumbers(t)).map((entry) => entry.number);
      expect(owned).toContain(second);
      expect(owned).not.toContain(first);
    } finally {
      t.sandbox.faults.clear();
    }
  });
});

describe('after a buy, the way on to an agent', () => {
  /** The picker under a buy's answer, with the block that names what it routes. */
  function routePicker(blocks: ReturnType<typeof blocksOf>) {
    const block = blocks.find((candidate) =>
      elementsOf([candidate]).some((element) => element.action_id === ACTION.routeBought),
    );
    expect(block, 'a Route to an agent picker').toBeDefined();
    return { blockId: block?.block_id ?? '' };
  }

  it('routes the number bought to the agent picked under the Bought answer', async () => {
    const { agent } = await createAgentThroughApp(t, OPERATOR, 'Picked after a buy');
    const number = await voiceNumber(t, 'ES', 0);
    const asked = await t.respondedTo((await t.command(`numbers buy ${number}`, OPERATOR)).responseUrlId);
    const bought = await confirmAs(t, OPERATOR, onlyButton(blocksOf(asked), ACTION.confirmChange));
    expect(shownText(bought)).toContain(`Bought *${number}*`);
    const { blockId } = routePicker(blocksOf(bought));

    const offeredAgents = await suggested(t, { block: blockId, action: ACTION.routeBought }, '');
    expect(offeredAgents.options.map((option) => option.value)).toContain(agent.id);
    const picked = await t.action({
      userId: OPERATOR,
      actionId: ACTION.routeBought,
      blockId,
      selectedOption: { text: agent.name, value: agent.id },
      selectType: 'external_select',
      container: EPHEMERAL,
    });
    const routed = await outcomeOf(t, picked.responseUrlId);
    expect(shownText(routed)).toContain(`Routed *${number}*`);
    await t.settled();
    const rows = await auditRows(t);
    expect(rows.filter((row) => row.action === 'routing.map' && row.target === number).at(-1)?.outcome).toBe(
      'succeeded',
    );
  });

  it('after a bulk buy, creates an agent for the numbers bought and plans them to it, with no id copied', async () => {
    const plan = await t.respondedTo((await t.command('numbers buy NL 2', OPERATOR)).responseUrlId);
    const ended = await applyPlan(t, plan);
    expect(shownText(ended)).toContain('Bought 2 of 2');
    const numbers = shownText(plan).match(/\+31\d+/g) ?? [];
    expect(numbers).toHaveLength(2);
    routePicker(blocksOf(ended));

    const since = t.slack.mark();
    const pressed = await press(
      t,
      OPERATOR,
      ACTION.createAgentForBought,
      onlyButton(blocksOf(ended), ACTION.createAgentForBought),
    );
    const opened = await t.slack.waitFor('views.open', (call) => call.body.trigger_id === pressed.triggerId, { since });
    const form = viewOf(opened);
    expect(form.callback_id).toBe(CALLBACK.createAgent);
    expect(decodeMetadata(form.private_metadata).bought).toBeDefined();
    await t.submit({
      userId: OPERATOR,
      callbackId: CALLBACK.createAgent,
      viewId: 'VFORBOUGHT',
      privateMetadata: form.private_metadata ?? '',
      stateValues: {
        [INPUT.agentName.block]: { [INPUT.agentName.action]: textInput('Made for what was bought') },
        [INPUT.agentLanguage.block]: { [INPUT.agentLanguage.action]: selectInput('nl-NL') },
        [INPUT.agentLanguageOther.block]: { [INPUT.agentLanguageOther.action]: textInput(null) },
      },
    });
    const routePlan = await t.slack.waitFor(
      'chat.postEphemeral',
      (call) =>
        call.body.channel === OPS_CHANNEL &&
        shownText(call).includes('Made for what was bought') &&
        buttonValues(blocksOf(call), ACTION.confirmBatch).length === 1,
      { since, description: 'the plan routing the numbers bought to the new agent' },
    );
    for (const number of numbers) expect(shownText(routePlan)).toContain(number);
    expect(shownText(await applyPlan(t, routePlan))).toContain('Routed 2 of 2');
  });
});

describe('a settings change made from the settings summary', () => {
  it('brings the summary already shown up to date, in its place', async () => {
    const app = await startTestApp({ settingsFrom: 'slack' });
    try {
      const summary = await app.respondedTo((await app.command('settings', ADMIN)).responseUrlId);
      expect(shownText(summary)).not.toContain(`<@${VIEWER}>`);
      const since = app.slack.mark();
      const { outcome } = await grant(app, { admins: [ADMIN], operators: [OPERATOR, VIEWER] });
      expect(outcome).toMatch(/changed the settings/i);

      // The summary's Change button opened the form: its response_url replaces that message with what is now in force.
      const replaced = await app.slack.waitFor(
        RESPONSE_URL,
        (call) => call.body.replace_original === true && shownText(call).includes(`<@${VIEWER}>`),
        { since, description: 'the settings summary replaced with the new operators' },
      );
      expect(readable(blocksOf(replaced))).toContain(readable(blocksOf(summary)).split('\n')[0] ?? '');
      expect(hasElement(blocksOf(replaced), SETTINGS.open.roles)).toBe(true);
    } finally {
      await app.close();
    }
  });
});
