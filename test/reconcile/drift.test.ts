// Changes made outside Voice Ops (src/reconcile/drift.ts), found by its exported function on a real store and the
// sandbox over HTTP, changed meanwhile by a second client as someone at the provider's dashboard would: what is found,
// how it is named and audited, the routing records it drops, and what is not taken for a change made outside.
import { expect, it } from 'vitest';
import { type Actor, ROUTE_DROPPED } from '../../src/ops/api.js';
import { newCorrelationId } from '../../src/ops/audit-rows.js';
import { carryOut, openIntent } from '../../src/ops/carry-out.js';
import { workFor } from '../../src/ops/kinds/index.js';
import { detectDrift } from '../../src/reconcile/drift.js';
import type { StoredChange } from '../../src/store/records.js';
import { type OpsBed, useOpsDeps } from '../harness/ops-deps.js';

const OPERATOR: Actor = { userId: 'UOPERATOR', source: 'command' };
const MINUTE_MS = 60_000;

const bed = useOpsDeps({ seed: { agents: 2, numbers: 1 } });

/** A pass a minute after the last, as the reconciler makes one. */
function pass({ deps, clock }: OpsBed) {
  clock.advance(MINUTE_MS);
  return detectDrift(deps, clock.now);
}

/** The audit rows of what was found outside, oldest first. */
async function foundOutside({ deps }: OpsBed) {
  const rows = await deps.store.audit.recent(50);
  return rows
    .filter((row) => row.source === 'provider')
    .reverse()
    .map(({ action, target, params }) => ({ action, target, params }));
}

/** A number the sandbox has for sale. */
async function forSale({ outside }: OpsBed): Promise<string> {
  const [number] = (await outside.searchNumbers({ region: 'GB', limit: 1 })).data;
  if (!number) throw new Error('the sandbox sells numbers in GB');
  return number.number;
}

async function made({ deps }: OpsBed, change: StoredChange): Promise<void> {
  const done = await carryOut(deps, OPERATOR, newCorrelationId(), workFor(deps, change, OPERATOR.userId));
  if (!done.ok) throw new Error(done.message);
}

it('takes its first read for the baseline, not for news', async () => {
  expect(await pass(bed())).toEqual([]);
  expect(await foundOutside(bed())).toEqual([]);
  expect(bed().announced.outside).toEqual([]);
  expect(await bed().deps.store.snapshot.takenAt()).toBe(bed().clock.now().toISOString());
});

it('names each change made outside, audits it once and announces them together; then finds nothing more', async () => {
  const { outside, announced } = bed();
  const [unrouted] = await outside.listAgents();
  await pass(bed());
  const number = await forSale(bed());
  const bought = await outside.buyNumber(number);
  await outside.deleteAgent(unrouted?.id ?? '');
  const created = await outside.createAgent({ name: 'Dashboard desk', language: 'en-US' });
  const found = await pass(bed());
  expect(found).toEqual([
    { action: 'number.buy', number: { id: bought.id, number } },
    { action: 'agent.create', agent: { id: created.id, name: 'Dashboard desk', language: 'language not listed' } },
    { action: 'agent.delete', agent: { id: unrouted?.id, name: unrouted?.name } },
  ]);
  expect(await foundOutside(bed())).toEqual([
    { action: 'number.buy', target: number, params: undefined },
    { action: 'agent.create', target: created.id, params: undefined },
    { action: 'agent.delete', target: unrouted?.id, params: undefined },
  ]);
  expect(announced.outside).toEqual([found]);
  // All agree now: nothing is found, audited or announced again.
  expect(await pass(bed())).toEqual([]);
  expect(await foundOutside(bed())).toHaveLength(3);
  expect(announced.outside).toHaveLength(1);
});

it('drops a routing record whose number was released outside, and audits why', async () => {
  const { deps, outside } = bed();
  const [[number], [agent]] = await Promise.all([outside.listPurchasedNumbers(), outside.listAgents()]);
  if (!number || !agent) throw new Error('the sandbox was seeded with a number and an agent');
  await made(bed(), { kind: 'routing.map', phoneNumber: number.number, agentId: agent.id, agentName: agent.name });
  await pass(bed());
  await outside.releaseNumber(number.id);
  expect(await pass(bed())).toEqual([{ action: 'number.release', number: { id: number.id, number: number.number } }]);
  expect(await deps.store.routes.forNumber(number.number)).toBeUndefined();
  expect(await foundOutside(bed())).toEqual([
    { action: 'number.release', target: number.number, params: undefined },
    {
      action: ROUTE_DROPPED,
      target: number.number,
      params: { agentId: agent.id, because: 'the number is no longer yours' },
    },
  ]);
});

it('takes no change the app made since the last read for one made outside', async () => {
  await pass(bed());
  await made(bed(), { kind: 'number.buy', number: await forSale(bed()) });
  await made(bed(), { kind: 'agent.create', name: 'Made here', language: 'en-GB' });
  expect(await pass(bed())).toEqual([]);
  expect(await foundOutside(bed())).toEqual([]);
});

it('leaves a number a change is under way on to that change, and compares it again once that change has ended', async () => {
  const { deps, outside } = bed();
  await pass(bed());
  const number = await forSale(bed());
  const correlationId = newCorrelationId();
  await openIntent(deps, OPERATOR, correlationId, { kind: 'number.buy', number });
  // The provider made it; the change's own outcome is not in yet.
  const bought = await outside.buyNumber(number);
  expect(await pass(bed())).toEqual([]);
  await deps.store.intents.close(correlationId, 'failed');
  expect(await pass(bed())).toEqual([{ action: 'number.buy', number: { id: bought.id, number } }]);
});

it('forgets the tags of a number released and an agent deleted outside, as replaying the audit log does', async () => {
  const { deps, outside } = bed();
  const [[number], agents] = await Promise.all([outside.listPurchasedNumbers(), outside.listAgents()]);
  const agent = agents[0];
  if (!number || !agent) throw new Error('the sandbox was seeded with a number and an agent');
  const sales = { labels: ['berlin'], owner: 'SSALES' };
  await deps.store.tags.set(number.number, sales, OPERATOR.userId);
  await deps.store.tags.set(agent.id, sales, OPERATOR.userId);
  await pass(bed());
  await outside.releaseNumber(number.id);
  await outside.deleteAgent(agent.id);
  expect(await pass(bed())).toHaveLength(2);
  expect(await deps.store.tags.of([number.number, agent.id])).toEqual(new Map());
});
