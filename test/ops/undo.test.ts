// Undo (src/ops/undo.ts), driven through its exported function on a real store and the sandbox over HTTP, after
// changes carried out as the app carries them out: what undoes each kind, what cannot be undone and why, for how long,
// and for whom.
import { expect, it } from 'vitest';
import type { Actor } from '../../src/ops/api.js';
import { newCorrelationId } from '../../src/ops/audit-rows.js';
import { carryOut } from '../../src/ops/carry-out.js';
import { workFor } from '../../src/ops/kinds/index.js';
import { undo } from '../../src/ops/undo.js';
import { UNDO_ACTION } from '../../src/ops/undo-trail.js';
import type { StoredChange } from '../../src/store/records.js';
import { type OpsBed, useOpsDeps } from '../harness/ops-deps.js';

const person = (userId: string): Actor => ({ userId, source: 'command' });
const MAKER = person('UOPERATOR');
const ADMIN = person('UADMIN');
const UNDO_HOURS = 2;

const bed = useOpsDeps({
  seed: { agents: 2, numbers: 2 },
  settings: { admins: ['UADMIN'], operators: ['UOPERATOR', 'UOTHER'], undoHours: UNDO_HOURS },
});

/** The seeded numbers and agents. */
async function account({ outside }: OpsBed) {
  const [numbers, agents] = await Promise.all([outside.listPurchasedNumbers(), outside.listAgents()]);
  const [first, second] = numbers;
  const [a, b] = agents;
  if (!first || !second || !a || !b) throw new Error('the sandbox was seeded with two numbers and two agents');
  return { first, second, a, b };
}

/** Carries out a change by MAKER, as a confirmed change is; its correlation id. */
async function made({ deps }: OpsBed, change: StoredChange): Promise<string> {
  const id = newCorrelationId();
  const done = await carryOut(deps, MAKER, id, workFor(deps, change, MAKER.userId));
  if (!done.ok) throw new Error(done.message);
  return id;
}

const route = (number: string, to: { id: string; name: string }, from?: { id: string; name: string }) => ({
  kind: 'routing.map',
  phoneNumber: number,
  agentId: to.id,
  agentName: to.name,
  ...(from ? { previousAgent: from } : {}),
});

it('walks a re-route back to the agent the number routed to before; a second click is shown the same plan', async () => {
  const { deps } = bed();
  const { first, a, b } = await account(bed());
  await made(bed(), route(first.number, a));
  const change = await made(bed(), route(first.number, b, a));
  const undoId = newCorrelationId();
  const planned = await undo(deps, MAKER, change, undoId);
  expect(planned).toMatchObject({ ok: true, status: 'plan', left: [], view: { id: undoId } });
  const view = planned.ok && planned.status === 'plan' ? planned.view : undefined;
  expect(view?.items.items.map((line) => line.change)).toEqual([
    expect.objectContaining({ kind: 'routing.map', phoneNumber: first.number, agentId: a.id }),
  ]);
  expect(await deps.store.audit.about(UNDO_ACTION, change)).toMatchObject([
    { correlationId: undoId, outcome: 'requested' },
  ]);
  expect(await undo(deps, MAKER, change, newCorrelationId())).toMatchObject({ ok: true, view: { id: undoId } });
});

it("walks a buy back by a release and an agent's creation by its deletion, each under its own kind's role", async () => {
  const { deps, outside } = bed();
  const [forSale] = (await outside.searchNumbers({ region: 'GB', limit: 1 })).data;
  if (!forSale) throw new Error('the sandbox sells numbers in GB');
  const buy = await made(bed(), { kind: 'number.buy', number: forSale.number });
  // Each inverse is asked for as if by hand: releasing, as deleting an agent, takes the admin role the maker lacks.
  expect(await undo(deps, MAKER, buy, newCorrelationId())).toMatchObject({ ok: false, reason: 'denied' });
  const released = await undo(deps, ADMIN, buy, newCorrelationId());
  const view = released.ok && released.status === 'plan' ? released.view : undefined;
  expect(view?.items.items.map((line) => line.change)).toEqual([
    expect.objectContaining({ kind: 'number.release', number: forSale.number }),
  ]);
  const creation = await made(bed(), { kind: 'agent.create', name: 'Night desk', language: 'en-GB' });
  const [created] = await deps.store.audit.ofRequest(creation);
  expect(await undo(deps, ADMIN, creation, newCorrelationId())).toMatchObject({
    ok: true,
    status: 'needs_confirmation',
    prompt: { change: { kind: 'agent.delete', agentId: created?.target, undoes: creation } },
  });
});

it('refuses what cannot be undone and says why: a release, and a first route, which nothing can take back', async () => {
  const { deps } = bed();
  const { first, second, a } = await account(bed());
  const release = await made(bed(), { kind: 'number.release', numberId: second.id, number: second.number });
  expect(await undo(deps, MAKER, release, newCorrelationId())).toMatchObject({
    ok: false,
    reason: 'invalid',
    message: expect.stringContaining('A release cannot be undone'),
  });
  const firstRoute = await made(bed(), route(first.number, a));
  expect(await undo(deps, MAKER, firstRoute, newCorrelationId())).toMatchObject({
    ok: false,
    reason: 'conflict',
    message: expect.stringContaining(`${first.number} routed to no agent before`),
  });
  expect(await undo(deps, MAKER, newCorrelationId(), newCorrelationId())).toMatchObject({ reason: 'not_found' });
});

it('is offered for the hours the settings give after the change, then refused with the way to walk it back', async () => {
  const { deps, clock } = bed();
  const { first, a, b } = await account(bed());
  await made(bed(), route(first.number, a));
  const change = await made(bed(), route(first.number, b, a));
  clock.advance(UNDO_HOURS * 3_600_000 - 1);
  expect(await undo(deps, MAKER, change, newCorrelationId())).toMatchObject({ ok: true, status: 'plan' });
  clock.advance(1);
  expect(await undo(deps, MAKER, change, newCorrelationId())).toMatchObject({
    ok: false,
    reason: 'expired',
    message: expect.stringMatching(/Undo is offered for 2 hours .* \/voice export as of /),
  });
});

it("is its maker's or an admin's: anyone else is refused, audited under the Undo's own id", async () => {
  const { deps } = bed();
  const { first, a, b } = await account(bed());
  await made(bed(), route(first.number, a));
  const change = await made(bed(), route(first.number, b, a));
  const refusedId = newCorrelationId();
  expect(await undo(deps, person('UOTHER'), change, refusedId)).toMatchObject({ ok: false, reason: 'denied' });
  expect(await deps.store.audit.ofRequest(refusedId)).toMatchObject([
    { action: 'access.denied', actorId: 'UOTHER', target: change, params: { reason: 'not the maker' } },
  ]);
  expect(await undo(deps, ADMIN, change, newCorrelationId())).toMatchObject({ ok: true, status: 'plan' });
});

it('leaves out a number routed again since, unless asked to route it back as well', async () => {
  const { deps } = bed();
  const { first, a, b } = await account(bed());
  await made(bed(), route(first.number, a));
  const change = await made(bed(), route(first.number, b, a));
  await made(bed(), route(first.number, a, b));
  expect(await undo(deps, MAKER, change, newCorrelationId())).toMatchObject({
    ok: false,
    reason: 'conflict',
    message: expect.stringContaining(`${first.number} was changed again since`),
  });
  const planned = await undo(deps, MAKER, change, newCorrelationId(), { includeChanged: true });
  const view = planned.ok && planned.status === 'plan' ? planned.view : undefined;
  expect(view?.items.items.map((line) => line.change)).toEqual([
    expect.objectContaining({ kind: 'routing.map', phoneNumber: first.number, agentId: a.id }),
  ]);
});
