// A change whose answer was lost, settled by the reconciler (src/reconcile/intents.ts) against the provider's lists:
// it keeps the same tags as the change seen to its end, and its outcome row keeps the born tags the audit replays.
import { expect, it } from 'vitest';
import type { Actor } from '../../src/ops/api.js';
import { newCorrelationId } from '../../src/ops/audit-rows.js';
import { openIntent } from '../../src/ops/carry-out.js';
import type { ChangeIntent } from '../../src/ops/changes.js';
import { BackOff } from '../../src/reconcile/back-off.js';
import { resolveIntents } from '../../src/reconcile/intents.js';
import { useOpsDeps } from '../harness/ops-deps.js';

const OPERATOR: Actor = { userId: 'UOPERATOR', source: 'command' };
const SALES = { labels: ['berlin'], owner: 'SSALES' };

const bed = useOpsDeps({ seed: { agents: 1, numbers: 1 } });

/** The change's intent left open as a process that died mid-call leaves it, then settled by a reconciler's pass. */
async function settled(change: ChangeIntent): Promise<void> {
  const { deps, clock } = bed();
  await openIntent(deps, OPERATOR, newCorrelationId(), change);
  clock.advance(60_000);
  const unknowns = { backOff: new BackOff(1_000), tellBatch: async () => {} };
  expect(await resolveIntents(deps, async () => {}, clock.now(), unknowns)).toBe(1);
}

it('a buy settled as done forgets the stale tags of a number bought again and keeps the tags it was born with', async () => {
  const { deps, outside } = bed();
  const [offered] = (await outside.searchNumbers({ region: 'GB', limit: 1 })).data;
  if (!offered) throw new Error('the sandbox sells numbers in GB');
  await deps.store.tags.set(offered.number, { labels: ['stale'], owner: 'SOLD' }, OPERATOR.userId);
  await outside.buyNumber(offered.number);
  await settled({ kind: 'number.buy', number: offered.number, tags: SALES });
  expect((await deps.store.tags.of([offered.number])).get(offered.number)).toEqual(SALES);
  const [row] = await deps.store.audit.recent(1);
  expect(row?.params).toMatchObject({ reconciled: true, tags: SALES });
});

it('a creation settled as done gives the agent the tags it was born with', async () => {
  const { deps, outside } = bed();
  const namedBefore = (await outside.listAgents()).filter((agent) => agent.name === 'Desk').map((agent) => agent.id);
  const agent = await outside.createAgent({ name: 'Desk', language: 'en-GB' });
  await settled({ kind: 'agent.create', name: 'Desk', language: 'en-GB', namedBefore, tags: SALES });
  expect((await deps.store.tags.of([agent.id])).get(agent.id)).toEqual(SALES);
});

it('a deletion settled as done forgets the agent tags', async () => {
  const { deps, outside } = bed();
  const [agent] = await outside.listAgents();
  if (!agent) throw new Error('the sandbox was seeded with an agent');
  await deps.store.tags.set(agent.id, SALES, OPERATOR.userId);
  await outside.deleteAgent(agent.id);
  await settled({ kind: 'agent.delete', agentId: agent.id, agentName: agent.name });
  expect(await deps.store.tags.of([agent.id])).toEqual(new Map());
});

it('a release settled as done forgets the number tags', async () => {
  const { deps, outside } = bed();
  const [number] = await outside.listPurchasedNumbers();
  if (!number) throw new Error('the sandbox was seeded with a number');
  await deps.store.tags.set(number.number, SALES, OPERATOR.userId);
  await outside.releaseNumber(number.id);
  await settled({ kind: 'number.release', numberId: number.id, number: number.number });
  expect(await deps.store.tags.of([number.number])).toEqual(new Map());
});
