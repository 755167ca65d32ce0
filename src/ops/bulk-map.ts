// What a bulk map would do, item by item: every purchased number a filter picks (or a list names), routed to one
// agent. Read afresh from the provider each time, so that the plan shown and the plan checked at confirmation are
// computed the same way.
import { z } from 'zod';
import { type PurchasedNumber, resourceId } from '../provider/schemas.js';
import type { PendingChange } from './changes.js';
import { type OpsDeps, providerFailure } from './context.js';
import { matches, type NumberFilter, numberFilter, refuseFilter } from './numbers.js';
import { fail, type Result } from './types.js';
import { validate } from './validate.js';

/** Items one plan may hold: a page of Slack messages lists them, and one confirmation covers them all. */
export const MAX_BATCH_ITEMS = 1000;

/** What a bulk map was asked for: the numbers a `/voice numbers` filter picks, or the numbers named (a Resume). */
export const bulkMapRequest = z.object({
  kind: z.literal('routing.map'),
  agentId: z.string(),
  filter: numberFilter.optional(),
  numbers: z.array(z.string()).max(MAX_BATCH_ITEMS).optional(),
});
export type BulkMapRequest = z.infer<typeof bulkMapRequest>;

export type MapChange = Extract<PendingChange, { kind: 'routing.map' }>;

export interface PlannedMap {
  agent: { id: string; name: string };
  /** Every number picked, in the provider's order; `unchanged` when it already routes to the agent. */
  items: { change: MapChange; unchanged: boolean }[];
}

/** The plan of a bulk map as the provider and the app's routing records stand now. */
export async function planMapItems(deps: OpsDeps, request: BulkMapRequest): Promise<Result<PlannedMap>> {
  const agentId = validate(resourceId, request.agentId);
  if (!agentId.ok) return { ...agentId, message: `Agent id ${agentId.message}` };
  const filter: NumberFilter = request.filter ?? {};
  const refused = refuseFilter(filter);
  if (refused) return refused;
  let purchased: PurchasedNumber[];
  let agents: { id: string; name: string }[];
  try {
    [purchased, agents] = await Promise.all([
      deps.lists.numbers.get({ fresh: true }),
      deps.lists.agents.get({ fresh: true }),
    ]);
  } catch (error) {
    return providerFailure(error);
  }
  const agent = agents.find((candidate) => candidate.id === agentId.value);
  if (!agent) return fail('not_found', `No agent has the id ${agentId.value}.`, { field: 'agent' });
  const routed = await deps.store.routes.agentByNumber();
  const named = request.numbers && new Set(request.numbers);
  const picked = purchased.filter((entry) =>
    named ? named.has(entry.number) : matches(filter, entry, routed.get(entry.number)),
  );
  if (picked.length === 0) {
    return fail('not_found', 'None of your numbers matches that: `/voice numbers` with the same filter lists them.');
  }
  if (picked.length > MAX_BATCH_ITEMS) {
    return fail(
      'invalid',
      `${picked.length} numbers match, and a plan holds at most ${MAX_BATCH_ITEMS}: narrow the filter (a region, ` +
        'digits, `unrouted`).',
    );
  }
  const names = new Map(agents.map((entry) => [entry.id, entry.name]));
  const items = picked.map(({ number }) => {
    const current = routed.get(number);
    const previousAgent = current === undefined ? undefined : { id: current, name: names.get(current) };
    const change: MapChange = {
      kind: 'routing.map',
      phoneNumber: number,
      agentId: agent.id,
      agentName: agent.name,
      ...(previousAgent && current !== agent.id ? { previousAgent } : {}),
    };
    return { change, unchanged: current === agent.id };
  });
  return { ok: true, agent: { id: agent.id, name: agent.name }, items };
}

/** Whether two plans would do the same: the same numbers, each moved from and to the same agents. */
export function samePlan(a: PlannedMap['items'], b: PlannedMap['items']): boolean {
  const key = (item: PlannedMap['items'][number]) =>
    `${item.change.phoneNumber}:${item.change.agentId}:${item.change.previousAgent?.id ?? ''}:${item.unchanged}`;
  const keys = new Set(a.map(key));
  return a.length === b.length && b.every((item) => keys.has(key(item)));
}
