// `/voice history +NUMBER` and `AGENT_ID`, and the History button of their cards: every change that happened to one
// number or agent, newest first, with when, what, who, how (a command, a button, an Undo…) and its audit id, paged
// with Older; bad input gets a sentence.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, type TestApp } from '../harness/app.js';
import type { SlackCall } from '../harness/fake-slack.js';
import {
  applyPlan,
  auditRows,
  blocksOf,
  buyThroughApp,
  confirmAs,
  hasElement,
  onlyButton,
  planThroughForm,
  press,
  type SandboxAgent,
  type SandboxNumber,
  shownText,
  startSeededApp,
  voiceNumber,
  waitUntil,
} from './support.js';

let t: TestApp;
let agent: (index: number) => SandboxAgent;
let numbers: SandboxNumber[];
let bought: string;

beforeAll(async () => {
  ({ t, agent, numbers } = await startSeededApp({ agents: 3, numbers: 21, routed: 0 }));
  bought = await voiceNumber(t, 'US');
});
afterAll(async () => {
  await t?.close();
});

const ask = async (text: string, user = OPERATOR): Promise<SlackCall> =>
  t.respondedTo((await t.command(text, user)).responseUrlId);

/** `/voice map NUMBER AGENT` (the number bought, unless named), confirmed when it re-routes: what is finally shown. */
async function mapped(agentId: string, number = bought): Promise<SlackCall> {
  const answer = await ask(`map ${number} ${agentId}`);
  if (!hasElement(blocksOf(answer), ACTION.confirmChange)) return answer;
  return confirmAs(t, OPERATOR, onlyButton(blocksOf(answer), ACTION.confirmChange));
}

/** The lines of a history page, newest first. */
const linesOf = (page: SlackCall): string[] =>
  shownText(page)
    .split('\n')
    .filter((line) => line.startsWith('•'));

it('tells a number’s changes newest first, each with who, how and its audit id', async () => {
  await buyThroughApp(t, OPERATOR, bought);
  await mapped(agent(0).id);
  const rerouted = await mapped(agent(1).id);
  // The re-route is undone: the Undo's plan, applied, routes the number back.
  const plan = await t.respondedTo(
    (await press(t, OPERATOR, ACTION.undoChange, onlyButton(blocksOf(rerouted), ACTION.undoChange))).responseUrlId,
  );
  const applied = await press(t, OPERATOR, ACTION.confirmBatch, onlyButton(blocksOf(plan), ACTION.confirmBatch));
  await waitUntil(
    () =>
      t.slack.calls().some((call) => call.responseUrlId === applied.responseUrlId && /Routed 1/.test(shownText(call))),
    'the Undo to be applied',
  );
  await t.settled();

  const lines = linesOf(await ask(`history ${bought}`));
  expect(lines).toHaveLength(4);
  expect(lines[0]).toMatch(
    new RegExp(
      `re-routed from \\*${agent(1).name}\\*.* to \\*${agent(0).name}\\*.*<@${OPERATOR}> · Undo · audit #\\d+`,
    ),
  );
  expect(lines[1]).toMatch(
    new RegExp(`re-routed from \\*${agent(0).name}\\*.* to \\*${agent(1).name}\\*.* · button · audit #`),
  );
  expect(lines[2]).toMatch(new RegExp(`routed to \\*${agent(0).name}\\*.* · command · audit #`));
  expect(lines[3]).toMatch(/bought · <@UOPERATOR> · button · audit #\d+/);
  // Each audit id is the row of the change that succeeded.
  const ids = lines.map((line) => Number(/audit #(\d+)/.exec(line)?.[1]));
  const rows = await auditRows(t);
  expect(ids.map((id) => rows.find((row) => row.id === id)?.outcome)).toEqual(Array(4).fill('succeeded'));
});

it('tells an agent’s changes: the numbers routed to it and away from it', async () => {
  const lines = linesOf(await ask(`history ${agent(1).id}`));
  expect(lines).toHaveLength(2);
  expect(lines[0]).toContain(`re-routed from *${agent(1).name}*`);
  expect(lines[1]).toContain(`to *${agent(1).name}*`);
  // Each line names the number whose route moved.
  for (const line of lines) expect(line).toContain(`*${bought}*: `);
});

it('opens from the History button of a number’s card, and pages back with Older', async () => {
  for (let round = 0; round < 20; round++) await mapped(agent(round % 2 === 0 ? 1 : 0).id);
  const card = await ask(`numbers ${bought}`, ADMIN);
  const page = await t.respondedTo(
    (await press(t, ADMIN, ACTION.showHistory, onlyButton(blocksOf(card), ACTION.showHistory))).responseUrlId,
  );
  const newest = linesOf(page);
  expect(newest).toHaveLength(20);
  const older = await t.respondedTo(
    (await press(t, ADMIN, ACTION.historyOlder, onlyButton(blocksOf(page), ACTION.historyOlder))).responseUrlId,
  );
  const rest = linesOf(older);
  expect(rest).toHaveLength(4);
  expect(rest.at(-1)).toContain('bought');
  expect(hasElement(blocksOf(older), ACTION.historyOlder)).toBe(false);
  // No line is on both pages.
  const idsOf = (lines: string[]) => lines.map((line) => /audit #(\d+)/.exec(line)?.[1]);
  expect(new Set([...idsOf(newest), ...idsOf(rest)]).size).toBe(24);
});

it('offers Older only when there is an older entry: none at exactly a page of 20, the 21st behind it at 21', async () => {
  const { id, name } = agent(2);
  const [last, ...first] = numbers.map((entry) => entry.number);
  if (!last || first.length !== 20) throw new Error('21 seeded numbers');
  await applyPlan(t, await planThroughForm(t, OPERATOR, first.map((number) => `${number} ${id}`).join('\n')));
  const full = await ask(`history ${id}`);
  expect(linesOf(full)).toHaveLength(20);
  expect(hasElement(blocksOf(full), ACTION.historyOlder)).toBe(false);

  await mapped(id, last);
  const page = await ask(`history ${id}`);
  const newest = linesOf(page);
  expect(newest).toHaveLength(20);
  expect(newest[0]).toContain(`*${last}*: routed to *${name}*`);
  const older = await t.respondedTo(
    (await press(t, OPERATOR, ACTION.historyOlder, onlyButton(blocksOf(page), ACTION.historyOlder))).responseUrlId,
  );
  const [oldest, ...more] = linesOf(older);
  expect(more).toEqual([]);
  expect(hasElement(blocksOf(older), ACTION.historyOlder)).toBe(false);
  // The 21st is the first of the plan's routes to be audited, and on no newer page.
  const idOf = (line: string | undefined) => Number(/audit #(\d+)/.exec(line ?? '')?.[1]);
  expect(Math.min(...newest.map(idOf))).toBeGreaterThan(idOf(oldest));
  expect(oldest).toContain(`routed to *${name}*`);
});

it('answers bad input with a sentence, and a number nothing happened to with that', async () => {
  expect(shownText(await ask('history'))).toContain('`history` needs a number');
  expect(shownText(await ask('history +1'))).toContain('Number');
  expect(shownText(await ask('history +14155550199'))).toContain('Nothing has happened to +14155550199');
  // Digits without their + are taken for an agent id, and the answer says how to ask for a number.
  expect(shownText(await ask('history 14155550199'))).toContain('If it is a number, type it as +14155550199.');
});
