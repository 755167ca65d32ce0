// What a bulk change would do, item by item: every purchased number a filter picks routed to one agent, or released;
// or COUNT numbers for sale bought. Each kind's bulk form (its request, its planner, its batch's audit action) is in
// its module, kinds/*.ts; here they are put together. Read afresh from the provider each time, so that the plan shown
// and the plan checked again at its confirmation are computed the same way.
import type { StoredChange } from '../store/records.js';
import type { AccountRead, Planned, PlannedItem } from './bulk-items.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import { type BatchAction, bulkFormOf } from './kinds/index.js';
import type { Result } from './types.js';

export type { BulkRequest } from './kinds/index.js';

/** How a kind of bulk change is audited: the batch as one request, its items as the single changes they are. */
export const batchAction = (kind: string): BatchAction => bulkFormOf(kind).audit;

/** The plan of a bulk change as the provider and the app's records stand now (or as `read` just found them). */
export async function planItems(deps: OpsDeps, request: StoredChange, read?: AccountRead): Promise<Result<Planned>> {
  try {
    return await bulkFormOf(request.kind).plan(deps, request, read);
  } catch (error) {
    return providerFailure(error);
  }
}

/** The same request, for the numbers named: what is left of a batch, or what failed in it. */
export function requestFor(request: StoredChange, numbers: string[]): StoredChange {
  return bulkFormOf(request.kind).again(request, numbers);
}

/** Whether two plans would do the same: the same items, each with the same effect. */
export function samePlan(a: PlannedItem[], b: PlannedItem[]): boolean {
  const key = (item: PlannedItem) => `${JSON.stringify(item.change)}:${item.unchanged}`;
  const keys = new Set(a.map(key));
  return a.length === b.length && b.every((item) => keys.has(key(item)));
}
