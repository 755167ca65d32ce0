// The routing at a moment and what changed since, asked in a bound channel (src/ops/routing-as-of.ts): a number is
// within the binding as it was tagged then, and a change since shows where the number was or is within the binding.
import { expect, it } from 'vitest';
import type { Actor } from '../../src/ops/api.js';
import { newCorrelationId } from '../../src/ops/audit-rows.js';
import { carryOut } from '../../src/ops/carry-out.js';
import { workFor } from '../../src/ops/kinds/index.js';
import { exportRoutingAsOf, routingChangesSince } from '../../src/ops/routing-as-of.js';
import type { StoredChange } from '../../src/store/records.js';
import { useOpsDeps } from '../harness/ops-deps.js';

const OPERATOR: Actor = { userId: 'UOPERATOR', source: 'command' };
const SALES = { channel: 'CSALES', owner: 'SSALES' };
const MINUTE_MS = 60_000;

const bed = useOpsDeps({
  seed: { agents: 1, numbers: 1 },
  settings: { channelBindings: [SALES] },
  groups: { SSALES: [OPERATOR.userId], SSUPPORT: [OPERATOR.userId] },
});

async function made(change: StoredChange): Promise<void> {
  const { deps } = bed();
  const done = await carryOut(deps, OPERATOR, newCorrelationId(), workFor(deps, change, OPERATOR.userId));
  if (!done.ok) throw new Error(done.message);
}

/** The seeded number, the team's and routed to the seeded agent; then the moment after, as typed in UTC. */
async function routedForSales(): Promise<{ number: string; numberId: string; moment: string }> {
  const { outside, clock } = bed();
  const [[number], [agent]] = await Promise.all([outside.listPurchasedNumbers(), outside.listAgents()]);
  if (!number || !agent) throw new Error('the sandbox was seeded with a number and an agent');
  await made({ kind: 'label.change', target: number.number, add: [], remove: [], owner: SALES.owner });
  await made({ kind: 'routing.map', phoneNumber: number.number, agentId: agent.id, agentName: agent.name });
  clock.advance(MINUTE_MS);
  const moment = `${clock.now().toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  clock.advance(MINUTE_MS);
  return { number: number.number, numberId: number.id, moment };
}

it("exports in a bound channel the routes of the numbers its team owned then, though another team's now", async () => {
  const { number, moment } = await routedForSales();
  await made({ kind: 'label.change', target: number, add: [], remove: [], owner: 'SSUPPORT' });
  const exported = await exportRoutingAsOf(bed().deps, moment, undefined, { channelId: SALES.channel });
  expect(exported.ok && exported.text).toContain(number);
  expect(exported.ok && exported.routed).toBe(1);
});

it('shows in a bound channel the changes since of a number its team owned then, released since', async () => {
  const { number, numberId, moment } = await routedForSales();
  await made({ kind: 'number.release', numberId, number });
  const changed = await routingChangesSince(bed().deps, moment, undefined, { channelId: SALES.channel });
  expect(changed.ok && changed.changes.map((change) => change.number)).toEqual([number]);
});
