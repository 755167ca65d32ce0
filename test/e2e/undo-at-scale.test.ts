// A batch of 1,000 maps, the most a plan holds, undone in one plan: every number routed back to the agent it left,
// the plan and its result within Slack's limits, and the batch of the Undo naming the batch it undoes.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_BATCH_ITEMS } from '../../src/ops/bulk-items.js';
import { ACTION } from '../../src/slack/ids.js';
import { OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { RESPONSE_URL, type SlackCall } from '../harness/fake-slack.js';
import {
  auditRows,
  blockKitProblems,
  blocksOf,
  onlyButton,
  press,
  rowsOf,
  type SandboxAgent,
  sandboxAgents,
  shownText,
  waitUntil,
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

/** Applies a plan and waits for its result. */
async function apply(plan: SlackCall): Promise<SlackCall> {
  const pressed = await press(t, OPERATOR, ACTION.confirmBatch, onlyButton(blocksOf(plan), ACTION.confirmBatch));
  let result: SlackCall | undefined;
  await waitUntil(
    () => {
      result = t.slack
        .calls(RESPONSE_URL)
        .filter((call) => call.responseUrlId === pressed.responseUrlId)
        .findLast((call) => /^:white_check_mark: Routed/.test(shownText(call)));
      return result !== undefined;
    },
    'the batch to end',
    120_000,
  );
  await t.settled();
  return result as SlackCall;
}

const agentsRouted = async () =>
  rowsOf<{ agent_id: string; n: number }>(t, 'SELECT agent_id, COUNT(*) AS n FROM routes GROUP BY agent_id');

it('routes 1,000 numbers back to the agent each left, in one plan', { timeout: 300_000 }, async () => {
  const plan = async (text: string) => t.respondedTo((await t.command(text, OPERATOR)).responseUrlId);
  await apply(await plan(`map unrouted to ${first.id}`));
  const moved = await apply(await plan(`map agent ${first.id} to ${second.id}`));
  expect(shownText(moved)).toContain(`Routed ${MAX_BATCH_ITEMS.toLocaleString('en-US')} of`);

  const undone = await t.respondedTo(
    (await press(t, OPERATOR, ACTION.undoChange, onlyButton(blocksOf(moved), ACTION.undoChange))).responseUrlId,
  );
  expect(shownText(undone)).toContain(`${MAX_BATCH_ITEMS.toLocaleString('en-US')} numbers to route`);
  const back = await apply(undone);
  expect(shownText(back)).toContain(`Routed ${MAX_BATCH_ITEMS.toLocaleString('en-US')} of`);
  expect((await agentsRouted()).map((row) => [row.agent_id, Number(row.n)])).toEqual([[first.id, MAX_BATCH_ITEMS]]);

  const requests = (await auditRows(t)).filter((row) => row.action === 'batch.map' && row.outcome === 'requested');
  const [, movedRequest, undoRequest] = requests;
  expect(JSON.parse(undoRequest?.params ?? '{}').undoes).toBe(movedRequest?.correlation_id);
});
