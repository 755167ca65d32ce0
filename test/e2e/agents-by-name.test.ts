// Agents named by their names wherever an agent is taken: `map`, `history`, `agents delete`, a routing plan's line and
// a workflow step find the agent of that name (whole, any case) as they find it by id. Two agents of one name are
// offered to choose from, and nothing changes until one is chosen; a name no agent has is answered with the names
// meant, and nothing changes. The audit keeps the agent's name beside its id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import type { SlackCall } from '../harness/fake-slack.js';
import {
  announcedWith,
  applyPlan,
  auditRows,
  blocksOf,
  buttonValues,
  buyThroughApp,
  confirmAs,
  copiedCodeBlock,
  createAgentThroughApp,
  onlyButton,
  outputNumbers,
  planThroughForm,
  press,
  readable,
  respondedWith,
  rowsOf,
  type SandboxAgent,
  type SentView,
  sandboxAgents,
  sandboxAvailable,
  shownText,
  stepEnd,
  stepPlan,
  submitPlanForm,
} from './support.js';

let t: TestApp;
let numbers: string[];
let berlin: SandboxAgent;
/** Two agents named "Night Desk". */
let nights: SandboxAgent[];

beforeAll(async () => {
  t = await startTestApp();
  const voice = (await sandboxAvailable(t, 'DE')).filter((entry) => entry.capabilities.includes('voice'));
  numbers = voice.slice(0, 6).map((entry) => entry.number);
  for (const number of numbers) await buyThroughApp(t, OPERATOR, number);
  berlin = (await createAgentThroughApp(t, OPERATOR, 'Berlin Support')).agent;
  await createAgentThroughApp(t, OPERATOR, 'Night Desk');
  await createAgentThroughApp(t, OPERATOR, 'Night Desk');
  nights = (await sandboxAgents(t)).filter((agent) => agent.name === 'Night Desk');
  expect(nights).toHaveLength(2);
});
afterAll(async () => {
  await t?.close();
});

const ask = async (text: string, user = OPERATOR): Promise<SlackCall> =>
  t.respondedTo((await t.command(text, user)).responseUrlId);

/** The app's routing records: number → agent id. */
async function routes(): Promise<Map<string, string>> {
  const rows = await rowsOf<{ phone_number: string; agent_id: string }>(t, 'SELECT phone_number, agent_id FROM routes');
  return new Map(rows.map((row) => [row.phone_number, row.agent_id]));
}

const number = (index: number): string => numbers[index] ?? '';

describe('an agent named by its name', () => {
  it('is routed to by `/voice map NUMBER "NAME"`, and unquoted, in any case; audit and announcement name it', async () => {
    const sent = await t.command(`map ${number(0)} "Berlin Support"`, OPERATOR);
    await respondedWith(t, sent.responseUrlId, 'Routed');
    const unquoted = await t.command(`map ${number(1)} berlin support`, OPERATOR);
    await respondedWith(t, unquoted.responseUrlId, 'Routed');
    await t.settled();
    const routed = await routes();
    expect([routed.get(number(0)), routed.get(number(1))]).toEqual([berlin.id, berlin.id]);
    const row = (await auditRows(t)).findLast((entry) => entry.action === 'routing.map' && entry.target === number(1));
    expect(JSON.parse(row?.params ?? '{}')).toMatchObject({ agentId: berlin.id, agentName: 'Berlin Support' });
    const announcement = await announcedWith(t, number(1));
    expect(announcement.text).toContain(`*Berlin Support* (\`${berlin.id}\`)`);
  });

  it('has its history told by `/voice history NAME`, unquoted or quoted, titled with its name and id', async () => {
    for (const text of ['history Berlin Support', 'history "berlin support"']) {
      const shown = shownText(await ask(text));
      expect(shown).toContain(`*History of* *Berlin Support* (\`${berlin.id}\`)`);
      expect(shown).toContain(number(0));
      expect(shown).toContain(number(1));
      expect(shown).not.toContain('Nothing has happened');
    }
  });

  it('filters `/voice numbers agent "NAME"` and `/voice audit NAME` to its numbers and changes', async () => {
    const listed = shownText(await ask('numbers agent "Berlin Support"'));
    expect(listed).toContain(number(0));
    expect(listed).toContain(number(1));
    expect(listed).not.toContain(number(2));
    const audit = shownText(await ask('audit Berlin Support'));
    expect(audit).toContain(number(0));
    expect(audit).not.toContain(number(2));
  });

  it('is deleted by `/voice agents delete "NAME"` after its confirmation', async () => {
    const { agent } = await createAgentThroughApp(t, OPERATOR, 'Pop-up Desk');
    const prompt = await ask('agents delete "pop-up desk"', ADMIN);
    expect(shownText(prompt)).toContain('Pop-up Desk');
    await confirmAs(t, ADMIN, onlyButton(blocksOf(prompt), ACTION.confirmChange));
    expect((await sandboxAgents(t)).map((entry) => entry.id)).not.toContain(agent.id);
    const deleted = (await auditRows(t)).findLast((row) => row.action === 'agent.delete');
    expect(deleted).toMatchObject({ target: agent.id, outcome: 'succeeded' });
    expect(JSON.parse(deleted?.params ?? '{}')).toMatchObject({ name: 'Pop-up Desk' });
  });

  it('routes a routing plan line that names it, in quotes', async () => {
    const plan = await planThroughForm(t, OPERATOR, `${number(2)} "Berlin Support"\n${number(3)} ${nights[0]?.id}`);
    expect(shownText(plan)).not.toMatch(/at fault/);
    await applyPlan(t, plan);
    const routed = await routes();
    expect([routed.get(number(2)), routed.get(number(3))]).toEqual([berlin.id, nights[0]?.id]);
  });

  it('is routed to by a Route numbers workflow step whose agent input is its name', async () => {
    const { execution } = await t.runStep('route_numbers', {
      user_id: OPERATOR,
      numbers: number(2),
      agent_id: 'night desk',
    });
    // Two agents share that name, and a step has nobody to ask: it ends saying so, and nothing is planned.
    const end = await stepEnd(t, execution);
    expect(end.outcome).toBe('failed');
    const error = end.outcome === 'failed' ? end.error : '';
    expect(error).toContain('2 agents are named "night desk"');
    for (const night of nights) expect(error).toContain(night.id);
    expect((await routes()).get(number(2))).toBe(berlin.id);

    const named = await t.runStep('route_numbers', {
      user_id: OPERATOR,
      numbers: number(4),
      agent_id: 'Berlin Support',
    });
    const plan = await stepPlan(t, named.execution, OPERATOR);
    expect(shownText(plan.call)).toContain('Berlin Support');
    await t.action({ userId: OPERATOR, actionId: ACTION.confirmBatch, value: plan.batchId, container: plan.container });
    expect(outputNumbers(await stepEnd(t, named.execution))).toEqual([number(4)]);
    expect((await routes()).get(number(4))).toBe(berlin.id);
  });
  it('is kept by id in `/voice export`, its name beside it as a comment, which pastes back as nothing to change', async () => {
    const exported = copiedCodeBlock(await ask('export'));
    expect(exported).toContain(`${number(0)} ${berlin.id}  # Berlin Support`);
    expect(exported).toContain(`${number(3)} ${nights[0]?.id}  # Night Desk`);
    expect(shownText(await planThroughForm(t, OPERATOR, exported))).toContain('nothing to change');
  });
  it('picks the numbers of a Release numbers step whose filter names it, in quotes', async () => {
    const { execution } = await t.runStep('release_numbers', { user_id: ADMIN, numbers: 'agent "Berlin Support"' });
    const plan = await stepPlan(t, execution, ADMIN);
    for (const routed of [number(0), number(1), number(2), number(4)]) expect(shownText(plan.call)).toContain(routed);
    expect(shownText(plan.call)).not.toContain(number(3));
    await t.action({ userId: ADMIN, actionId: ACTION.cancelBatch, value: plan.batchId, container: plan.container });
    expect((await stepEnd(t, execution)).outcome).toBe('failed');
  });
});

describe('two agents of one name', () => {
  it('are offered to choose from, with their ids and numbers; nothing changes until one is chosen', async () => {
    const before = await routes();
    const maps = t.sandbox.requestCount('mapNumber');
    const choice = await ask(`map ${number(5)} "Night Desk"`);
    const shown = shownText(choice);
    expect(shown).toContain('2 agents are named Night Desk');
    for (const night of nights) expect(shown).toContain(night.id);
    expect(shown).toContain(number(3)); // routed to the first by the plan above
    const values = buttonValues(blocksOf(choice), ACTION.chooseAgent);
    expect(values).toHaveLength(2);
    expect(await routes()).toEqual(before);
    expect(t.sandbox.requestCount('mapNumber')).toBe(maps);

    const pressed = await press(t, OPERATOR, ACTION.chooseAgent, values[1] ?? '');
    await respondedWith(t, pressed.responseUrlId, 'Routed');
    await t.settled();
    expect((await routes()).get(number(5))).toBe(nights[1]?.id);
  });

  it('are offered for `/voice agents delete NAME`, and the one chosen is deleted after its confirmation', async () => {
    // The two route numbers, so a third of the name, routing none, is the one to delete.
    await createAgentThroughApp(t, OPERATOR, 'Night Desk');
    const third = (await sandboxAgents(t)).find(
      (agent) => agent.name === 'Night Desk' && !nights.some((night) => night.id === agent.id),
    );
    const choice = await ask('agents delete Night Desk', ADMIN);
    const values = buttonValues(blocksOf(choice), ACTION.chooseAgent);
    expect(values).toHaveLength(3);
    expect(buttonValues(blocksOf(choice), ACTION.confirmChange)).toEqual([]);
    expect((await sandboxAgents(t)).filter((agent) => agent.name === 'Night Desk')).toHaveLength(3);
    const chosen = values.find((value) => value.includes(third?.id ?? '-')) ?? '';
    const pressed = await press(t, ADMIN, ACTION.chooseAgent, chosen);
    const prompt = await t.respondedTo(pressed.responseUrlId);
    await confirmAs(t, ADMIN, onlyButton(blocksOf(prompt), ACTION.confirmChange));
    const left = (await sandboxAgents(t)).filter((agent) => agent.name === 'Night Desk').map((agent) => agent.id);
    expect(left.sort()).toEqual(nights.map((night) => night.id).sort());
  });

  it('make a plan line that names them an error that gives their ids', async () => {
    const answer = await submitPlanForm(t, OPERATOR, `${number(0)} "Night Desk"`);
    expect(answer.json).toMatchObject({ response_action: 'update' });
    const shown = readable((answer.json as { view: SentView }).view.blocks);
    expect(shown).toContain('2 agents are named "Night Desk"');
    for (const night of nights) expect(shown).toContain(night.id);
    expect((await routes()).get(number(0))).toBe(berlin.id);
  });
});

describe('a name no agent has', () => {
  it('is answered with the names meant, changes nothing, and is audited as refused', async () => {
    const before = await routes();
    const shown = shownText(await ask(`map ${number(5)} "Berlin Suport"`));
    expect(shown).toContain('No agent is named "Berlin Suport"');
    expect(shown).toContain('did you mean "Berlin Support"?');
    expect(shown).toContain('/voice agents Berlin Suport');
    expect(await routes()).toEqual(before);
    const refused = (await auditRows(t)).findLast((row) => row.action === 'routing.map');
    expect(refused).toMatchObject({ outcome: 'rejected' });
    expect(refused?.error_message).toContain('No agent is named "Berlin Suport"');
  });

  it('in a filter is answered so, rather than with an empty list', async () => {
    const shown = shownText(await ask('numbers agent "Nobody Here"'));
    expect(shown).toContain('No agent is named "Nobody Here"');
    expect(shown).not.toMatch(/no numbers/i);
  });

  it('never has "nothing happened" said of it in history', async () => {
    const shown = shownText(await ask('history Berlin Suport'));
    expect(shown).toContain('No agent is named "Berlin Suport"');
    expect(shown).not.toContain('Nothing has happened');
  });
});
