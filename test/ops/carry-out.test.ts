// The path by which a single change reaches the provider (src/ops/carry-out.ts), driven through its exported function
// on a real store and the sandbox over HTTP: the intent is recorded before the provider hears of the change and closed
// with its outcome; an outcome the provider may still make is audited unknown, and only while the intent is open; a
// change whose resources another holds is refused at once.
import { expect, it } from 'vitest';
import type { Actor } from '../../src/ops/api.js';
import { newCorrelationId } from '../../src/ops/audit-rows.js';
import { carryOut, carryOutClaimed, openIntent } from '../../src/ops/carry-out.js';
import { workFor } from '../../src/ops/kinds/index.js';
import { type OpsBed, received, useOpsDeps } from '../harness/ops-deps.js';

const OPERATOR: Actor = { userId: 'UOPERATOR', source: 'command' };
const bed = useOpsDeps({ seed: { agents: 1, numbers: 1 } });

/** A map of the seeded number to the seeded agent, as its kind makes its work. */
async function mapping({ outside, deps }: OpsBed) {
  const [[number], [agent]] = await Promise.all([outside.listPurchasedNumbers(), outside.listAgents()]);
  if (!number || !agent) throw new Error('the sandbox was seeded with a number and an agent');
  const change = { kind: 'routing.map', phoneNumber: number.number, agentId: agent.id, agentName: agent.name };
  return { number: number.number, agent, work: workFor(deps, change, OPERATOR.userId) };
}

/** Whether the change's intent is recorded and not yet closed. */
async function isOpen({ deps }: OpsBed, correlationId: string): Promise<boolean> {
  const intent = await deps.store.intents.get(correlationId);
  return intent !== undefined && intent.outcome === undefined;
}

/** The outcomes audited under a correlation id, oldest first. */
const outcomes = async ({ deps }: OpsBed, correlationId: string) =>
  (await deps.store.audit.ofRequest(correlationId)).map((row) => row.outcome);

it('records the intent before the provider hears of the change, then closes it with the outcome audited once', async () => {
  const { deps, sandbox } = bed();
  const { number, agent, work } = await mapping(bed());
  sandbox.faults.inject('mapNumber', { type: 'hold' });
  const id = newCorrelationId();
  const done = carryOut(deps, OPERATOR, id, work);
  await received(sandbox, 'mapNumber', 1);
  // The provider holds the request: the intent is open, and nothing is audited yet.
  expect(await isOpen(bed(), id)).toBe(true);
  expect(await outcomes(bed(), id)).toEqual([]);
  sandbox.faults.clear();
  const result = await done;
  expect(result).toMatchObject({ ok: true, correlationId: id });
  expect((await deps.store.intents.get(id))?.outcome).toBe('succeeded');
  expect(await deps.store.audit.ofRequest(id)).toMatchObject([
    { action: 'routing.map', outcome: 'succeeded', target: number, params: { agentId: agent.id } },
  ]);
  // What the change keeps of itself is written with its outcome.
  expect((await deps.store.routes.forNumber(number))?.agentId).toBe(agent.id);
});

it('closes the intent as failed, and audits why, when the provider refuses', async () => {
  const { deps } = bed();
  const { number } = await mapping(bed());
  const change = { kind: 'routing.map', phoneNumber: number, agentId: 'agt_nobody', agentName: 'Nobody' };
  const id = newCorrelationId();
  const result = await carryOut(deps, OPERATOR, id, workFor(deps, change, OPERATOR.userId));
  expect(result).toMatchObject({ ok: false, reason: 'not_found' });
  expect((await deps.store.intents.get(id))?.outcome).toBe('failed');
  expect(await outcomes(bed(), id)).toEqual(['failed']);
  expect(await deps.store.routes.forNumber(number)).toBeUndefined();
});

it('audits an outcome the provider may still make as unknown, and leaves its intent open for the reconciler', async () => {
  const { deps, sandbox } = bed();
  const { number, work } = await mapping(bed());
  sandbox.faults.inject('mapNumber', { type: 'lose_answer' });
  const id = newCorrelationId();
  const result = await carryOut(deps, OPERATOR, id, work);
  expect(result).toMatchObject({ ok: false, unsettled: true, message: expect.stringContaining('It is being settled') });
  expect(await isOpen(bed(), id)).toBe(true);
  expect(await deps.store.audit.ofRequest(id)).toMatchObject([{ outcome: 'unknown', target: number }]);
});

it('audits no unknown outcome once the intent was closed meanwhile: the outcome found then stands', async () => {
  const { deps, sandbox } = bed();
  const { work } = await mapping(bed());
  const id = newCorrelationId();
  await openIntent(deps, OPERATOR, id, work.intent);
  // As a reconciler closes a change it took for abandoned (its process paused past its leases), having found it done.
  expect(await deps.store.intents.close(id, 'succeeded')).toBe(true);
  sandbox.faults.inject('mapNumber', { type: 'lose_answer' });
  const result = await carryOutClaimed(deps, OPERATOR, id, work);
  expect(result).toMatchObject({ ok: false, message: expect.stringMatching(/settled meanwhile .* it was done\.$/) });
  expect(await outcomes(bed(), id)).toEqual([]);
  expect((await deps.store.intents.get(id))?.outcome).toBe('succeeded');
});

it('refuses at once a change whose number another change holds, and closes its intent as failed', async () => {
  const { deps, sandbox } = bed();
  const { work } = await mapping(bed());
  sandbox.faults.inject('mapNumber', { type: 'hold' });
  const first = newCorrelationId();
  const running = carryOut(deps, OPERATOR, first, work);
  await received(sandbox, 'mapNumber', 1);
  const second = newCorrelationId();
  const refused = await carryOut(deps, OPERATOR, second, work);
  expect(refused).toMatchObject({ ok: false, reason: 'busy' });
  expect((await deps.store.intents.get(second))?.outcome).toBe('failed');
  expect(await deps.store.audit.ofRequest(second)).toMatchObject([{ outcome: 'failed', errorCode: 'busy' }]);
  expect(sandbox.requestCount('mapNumber')).toBe(1);
  sandbox.faults.clear();
  expect(await running).toMatchObject({ ok: true });
});
