// What a bulk change would do, item by item: every purchased number a filter picks routed to one agent, or released;
// or COUNT numbers for sale bought. Each kind's bulk form (its request, its planner, its batch's audit action) is in
// its module, kinds/*.ts; here they are put together. Read afresh from the provider each time, so that the plan shown
// and the plan checked again at its confirmation are computed the same way.
import { z } from 'zod';
import type { AccountRead, Planned, PlannedItem } from './bulk-items.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import type { BatchAction, BulkForm } from './kinds/index.js';
import { numberBuyBulk } from './kinds/number-buy.js';
import { numberReleaseBulk } from './kinds/number-release.js';
import { routingMapBulk } from './kinds/routing-map.js';
import type { Result } from './types.js';

/** What a bulk change was asked for. It is stored with its plan, to be planned again when confirmed. */
export const bulkRequest = z.discriminatedUnion('kind', [
  routingMapBulk.request,
  numberBuyBulk.request,
  numberReleaseBulk.request,
]);
export type BulkRequest = z.infer<typeof bulkRequest>;
export type BulkKind = BulkRequest['kind'];
/** The kinds a bulk request can be, read off its schema: a kind with a bulk form is named there alone. */
export const bulkKind = z.union(bulkRequest.options.map((option) => option.shape.kind));

type RequestOf<K extends BulkKind> = Extract<BulkRequest, { kind: K }>;

/** The compiler refuses this until every kind of the bulk request has its form, planning requests of its kind. */
const FORMS: { [K in BulkKind]: BulkForm<z.ZodType<RequestOf<K>>> } = {
  'routing.map': routingMapBulk,
  'number.buy': numberBuyBulk,
  'number.release': numberReleaseBulk,
};

function formOf<K extends BulkKind>(kind: K): BulkForm<z.ZodType<RequestOf<K>>> {
  return FORMS[kind];
}

/** How a kind of bulk change is audited: the batch as one request, its items as the single changes they are. */
export const batchAction = (kind: BulkKind): BatchAction => FORMS[kind].audit;

/** The plan of a bulk change as the provider and the app's records stand now (or as `read` just found them). */
export async function planItems(deps: OpsDeps, request: BulkRequest, read?: AccountRead): Promise<Result<Planned>> {
  try {
    return await formOf(request.kind).plan(deps, request, read);
  } catch (error) {
    return providerFailure(error);
  }
}

/** The same request, for the numbers named: what is left of a batch, or what failed in it. */
export function requestFor(request: BulkRequest, numbers: string[]): BulkRequest {
  return formOf(request.kind).again(request, numbers);
}

/** Whether two plans would do the same: the same items, each with the same effect. */
export function samePlan(a: PlannedItem[], b: PlannedItem[]): boolean {
  const key = (item: PlannedItem) => `${JSON.stringify(item.change)}:${item.unchanged}`;
  const keys = new Set(a.map(key));
  return a.length === b.length && b.every((item) => keys.has(key(item)));
}
