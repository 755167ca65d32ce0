// A batch of 1,000 maps, the most a plan holds, undone in one plan: every number routed back to the agent it left,
// the plan and its result within Slack's limits, and the batch of the Undo naming the batch it undoes.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_BATCH_ITEMS } from '../../src/ops/bulk-items.js';
import { ACTION } from '../../src/slack/ids.js';
import { OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import {
  applyPlan,
  auditRows,
  blockKitProblems,
  blocksOf,
  onlyButton,
  press,
  rowsOf,
  type SandboxAgent,
  sandboxAgents,
  shownText,
} from './support.js';

let t: TestApp;
let first: SandboxAgent;
let second: SandboxAgent;

beforeAll(async () => {
  t = await startTestApp({ sandboxNumbersPerRegion: 100, sandboxSeed: { agents: 2, numbers: MAX_BATCH_ITEMS } });
  [first, second] = (await sandboxAgents(t)) as [SandboxAgent, SandboxAgent];
});
afterAll(async () => {
  const sent = t?.slack.calls().filter((call) => call.method === RESPONSE_URL || call.method === 'chat.postMessage');
  const problems = (sent ?? []).flatMap(blockKitProblems);
  await t?.close();
  expect(problems).toEqual([]);
});

const agentsRouted = async () =>
  rowsOf<{ agent_id: string; n: number }>(t, 'SELECT agent_id, COUNT(*) AS n FROM routes GROUP BY agent_id');

it('routes 1,000 numbers back to the agent each left, in one plan', { timeout: 300_000 }, async () => {
  const plan = async (text: string) => t.respondedTo((await t.command(text, OPERATOR)).responseUrlId);
  await applyPlan(t, await plan(`map unrouted to ${first.id}`), OPERATOR, 120_000);
  const moved = await applyPlan(t, await plan(`map agent ${first.id} to ${second.id}`), OPERATOR, 120_000);
  expect(shownText(moved)).toContain(`Routed ${MAX_BATCH_ITEMS.toLocaleString('en-US')} of`);

  const undone = await t.respondedTo(
    (await press(t, OPERATOR, ACTION.undoChange, onlyButton(blocksOf(moved), ACTION.undoChange))).responseUrlId,
  );
  expect(shownText(undone)).toContain(`${MAX_BATCH_ITEMS.toLocaleString('en-US')} numbers to route`);
  const back = await applyPlan(t, undone, OPERATOR, 120_000);
  expect(shownText(back)).toContain(`Routed ${MAX_BATCH_ITEMS.toLocaleString('en-US')} of`);
  expect((await agentsRouted()).map((row) => [row.agent_id, Number(row.n)])).toEqual([[first.id, MAX_BATCH_ITEMS]]);

  const requests = (await auditRows(t)).filter((row) => row.action === 'batch.map' && row.outcome === 'requested');
  const [, movedRequest, undoRequest] = requests;
  expect(JSON.parse(undoRequest?.params ?? '{}').undoes).toBe(movedRequest?.correlation_id);
});
