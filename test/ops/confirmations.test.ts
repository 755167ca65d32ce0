// Confirming a change that waits for it (src/ops/confirmations.ts), driven through its exported functions on a real
// store and the sandbox over HTTP: who may confirm, from where, until when, and how many times.
import { expect, it } from 'vitest';
import type { Actor } from '../../src/ops/api.js';
import { requestConfirmation } from '../../src/ops/ask-confirmation.js';
import { newCorrelationId } from '../../src/ops/audit-rows.js';
import { cancel, confirm, pendingPrompt } from '../../src/ops/confirmations.js';
import { DEFAULT_CONFIRMATION_TTL_MS } from '../../src/store/confirmations.js';
import { type OpsBed, received, useOpsDeps } from '../harness/ops-deps.js';

const TEAM = 'T1';
const asked = (userId: string): Actor => ({ userId, teamId: TEAM, channelId: 'COPS', source: 'command' });
const REQUESTER = asked('UOPERATOR');
const OTHER_OPERATOR = asked('UOTHER');

const bed = useOpsDeps({ seed: { agents: 1, numbers: 1 }, settings: { operators: ['UOPERATOR', 'UOTHER'] } });

/** A re-route of the seeded number to the seeded agent, asked for by `by` and waiting for its Confirm. */
async function waiting({ deps, outside }: OpsBed, by: Actor = REQUESTER) {
  const [[number], [agent]] = await Promise.all([outside.listPurchasedNumbers(), outside.listAgents()]);
  if (!number || !agent) throw new Error('the sandbox was seeded with a number and an agent');
  const change = { kind: 'routing.map', phoneNumber: number.number, agentId: agent.id, agentName: agent.name };
  const correlationId = newCorrelationId();
  const request = await requestConfirmation(deps, by, correlationId, change);
  if (!request.ok) throw new Error(request.message);
  return { id: request.prompt.confirmationId, correlationId };
}

const maps = ({ sandbox }: OpsBed) => sandbox.requestCount('mapNumber');
const stateOf = async ({ deps }: OpsBed, id: string) => (await deps.store.confirmations.get(id))?.state;

it("is confirmed by its requester alone: another's click is refused, audited, and leaves it usable", async () => {
  const { deps } = bed();
  const { id, correlationId } = await waiting(bed());
  expect(await confirm(deps, OTHER_OPERATOR, id)).toMatchObject({ ok: false, reason: 'wrong_user' });
  expect(await deps.store.audit.ofRequest(correlationId)).toMatchObject([
    { outcome: 'requested' },
    { action: 'access.denied', actorId: 'UOTHER', params: { reason: 'not the requester' } },
  ]);
  expect(await stateOf(bed(), id)).toBe('pending');
  expect(await confirm(deps, REQUESTER, id)).toMatchObject({ ok: true, correlationId });
  expect(maps(bed())).toBe(1);
});

it('is refused to a requester who no longer holds the role, or who clicks from another workspace, and stays usable', async () => {
  const { deps } = bed();
  // Asked for by someone the settings grant no role: as if the role were taken away since the request.
  const { id } = await waiting(bed(), asked('UVIEWER'));
  expect(await confirm(deps, asked('UVIEWER'), id)).toMatchObject({ ok: false, reason: 'denied' });
  const mine = await waiting(bed());
  const elsewhere = { ...REQUESTER, teamId: 'T2' };
  expect(await confirm(deps, elsewhere, mine.id)).toMatchObject({ ok: false, reason: 'wrong_team' });
  expect([await stateOf(bed(), id), await stateOf(bed(), mine.id)]).toEqual(['pending', 'pending']);
  expect(maps(bed())).toBe(0);
});

it('expires: once its time is up it is refused, audited as expired, and nothing reaches the provider', async () => {
  const { deps, clock } = bed();
  const { id, correlationId } = await waiting(bed());
  clock.advance(DEFAULT_CONFIRMATION_TTL_MS - 1);
  expect(await pendingPrompt(deps, REQUESTER, id)).toMatchObject({ confirmationId: id });
  clock.advance(1);
  expect(await pendingPrompt(deps, REQUESTER, id)).toBeUndefined();
  expect(await confirm(deps, REQUESTER, id)).toMatchObject({ ok: false, reason: 'expired' });
  expect((await deps.store.audit.ofRequest(correlationId)).map((row) => row.outcome)).toEqual(['requested', 'expired']);
  expect(maps(bed())).toBe(0);
});

it('makes its change once: of two clicks at once, one carries it out and the other is told it was made once', async () => {
  const { deps, sandbox } = bed();
  const { id, correlationId } = await waiting(bed());
  sandbox.faults.inject('mapNumber', { type: 'hold' });
  const clicks = [confirm(deps, REQUESTER, id), confirm(deps, REQUESTER, id)];
  await received(sandbox, 'mapNumber', 1);
  sandbox.faults.clear();
  const answers = await Promise.all(clicks);
  expect(answers.filter((answer) => answer.ok)).toHaveLength(1);
  const later = await confirm(deps, REQUESTER, id);
  expect(later).toMatchObject({ ok: false, reason: 'already_used', message: expect.stringContaining('only once') });
  expect(maps(bed())).toBe(1);
  const outcomes = (await deps.store.audit.ofRequest(correlationId)).map((row) => row.outcome);
  expect(outcomes).toEqual(['requested', 'confirmed', 'succeeded']);
});

it('cancelled by its requester, can no longer be confirmed', async () => {
  const { deps } = bed();
  const { id, correlationId } = await waiting(bed());
  expect(await cancel(deps, REQUESTER, id)).toMatchObject({ ok: true });
  expect(await confirm(deps, REQUESTER, id)).toMatchObject({ ok: false, reason: 'cancelled' });
  expect((await deps.store.audit.ofRequest(correlationId)).map((row) => row.outcome)).toEqual([
    'requested',
    'cancelled',
  ]);
  expect(maps(bed())).toBe(0);
});
