// What a bulk change would do, item by item: every purchased number a filter picks routed to one agent, or released;
// or COUNT numbers for sale bought. Each kind's bulk form (its request, its planner, its batch's audit action) is in
// its module, kinds/*.ts; here they are put together. Read afresh from the provider each time, so that the plan shown
// and the plan checked again at its confirmation are computed the same way.
import { z } from 'zod';
import type { AccountRead, Planned, PlannedItem } from './bulk-items.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import { type BatchAction, bulkFormOf, isBulkKind } from './kinds/index.js';
import type { numberBuyBulk } from './kinds/number-buy.js';
import type { numberReleaseBulk } from './kinds/number-release.js';
import type { routingMapBulk } from './kinds/routing-map.js';
import type { Result } from './types.js';

/** What a bulk change was asked for, as the layers above ask for one: a request of a kind with a bulk form. */
export type BulkRequest = z.infer<
  (typeof routingMapBulk)['request'] | (typeof numberBuyBulk)['request'] | (typeof numberReleaseBulk)['request']
>;

/**
 * A bulk request as stored with its plan, to be planned again when confirmed: read with its kind's own schema.
 */
export const bulkRequest: z.ZodType<BulkRequest> = z
  .looseObject({ kind: z.string() })
  .transform((value, context): BulkRequest => {
    const parsed = isBulkKind(value.kind) ? bulkFormOf(value.kind).request.safeParse(value) : undefined;
    if (parsed?.success) return parsed.data as BulkRequest;
    context.addIssue({ code: 'custom', message: `not a bulk request of a kind of change: ${value.kind}` });
    return z.NEVER;
  });

/** A kind asked for in bulk, by its name. */
export const bulkKind = z.string().refine(isBulkKind, 'not a kind of change asked for in bulk');

/** How a kind of bulk change is audited: the batch as one request, its items as the single changes they are. */
export const batchAction = (kind: string): BatchAction => bulkFormOf(kind).audit;

/** The plan of a bulk change as the provider and the app's records stand now (or as `read` just found them). */
export async function planItems(deps: OpsDeps, request: BulkRequest, read?: AccountRead): Promise<Result<Planned>> {
  try {
    return await bulkFormOf(request.kind).plan(deps, request, read);
  } catch (error) {
    return providerFailure(error);
  }
}

/** The same request, for the numbers named: what is left of a batch, or what failed in it. */
export function requestFor(request: BulkRequest, numbers: string[]): BulkRequest {
  return bulkFormOf(request.kind).again(request, numbers) as BulkRequest;
}

/** Whether two plans would do the same: the same items, each with the same effect. */
export function samePlan(a: PlannedItem[], b: PlannedItem[]): boolean {
  const key = (item: PlannedItem) => `${JSON.stringify(item.change)}:${item.unchanged}`;
  const keys = new Set(a.map(key));
  return a.length === b.length && b.every((item) => keys.has(key(item)));
}
