// What a bulk change would do, item by item: every purchased number a filter picks routed to one agent, or released;
// or COUNT numbers for sale bought. Each kind's bulk form (its request, its planner, its batch's audit action) is in
// its module, kinds/*.ts; here they are put together. Read afresh from the provider each time, so that the plan shown
// and the plan checked again at its confirmation are computed the same way.
import type { StoredChange } from '../store/records.js';
import type { AccountRead, Planned, PlannedItem } from './bulk-items.js';
import { bindingOf, bornIn, outsideOf } from './channel-scope.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import { type BatchAction, bulkFormOf, givenTo, kindOf, numberOf, touchedBy } from './kinds/index.js';
import { givenAway, outOfReach, ownedElsewhere } from './ownership.js';
import type { Actor, Result } from './types.js';

export type { BulkRequest } from './kinds/index.js';

/** How a kind of bulk change is audited: the batch as one request, its items as the single changes they are. */
export const batchAction = (kind: string): BatchAction => bulkFormOf(kind).audit;

/**
 * The plan of a bulk change as the provider and the app's records stand now (or as `read` just found them), for this
 * person: items touching what another team owns, or (in a bound channel) what its binding does not cover, are left
 * out, and listed; what it makes is born with the binding's owner and labels. A plan left with nothing to change but
 * another team's items is refused, naming the owner, rather than shown as having nothing to do.
 */
export async function planItems(
  deps: OpsDeps,
  actor: Actor,
  request: StoredChange,
  read?: AccountRead,
): Promise<Result<Planned>> {
  let planned: Result<Planned>;
  try {
    planned = await bulkFormOf(request.kind).plan(deps, request, read);
  } catch (error) {
    return providerFailure(error);
  }
  if (!planned.ok) return planned;
  const touched = planned.items.flatMap(({ change }) => touchedBy(change));
  const settings = await deps.settings.current();
  const beyond = new Map(
    (await outOfReach(deps, settings, actor, touched)).map(({ subject, owner }) => [subject, owner]),
  );
  const scope = bindingOf(settings, actor.channelId);
  const tags = scope ? await deps.store.tags.of(touched) : new Map();
  const items: PlannedItem[] = [];
  const refused: { number: string; subject: string; owner: string }[] = [];
  const outsideScope: string[] = [];
  for (const item of planned.items) {
    const subject = touchedBy(item.change).find((candidate) => beyond.has(candidate));
    const owner = subject === undefined ? undefined : beyond.get(subject);
    // In a bound channel, what a change makes is born within the binding, and what it touches must be within it.
    const change = bornIn(settings, actor, item.change);
    const outside = !kindOf(change).born && outsideOf(scope, touchedBy(change), tags) !== undefined;
    if (subject !== undefined && owner !== undefined) refused.push({ number: numberOf(item.change), subject, owner });
    else if (outside) outsideScope.push(numberOf(item.change));
    else items.push({ ...item, change });
  }
  const [first] = refused;
  if (first && items.every((item) => item.unchanged)) return ownedElsewhere(first);
  // A plan giving numbers to a team its maker is not in is refused as a whole: one item a team is asked about.
  const byTeam = new Map(items.filter((item) => !item.unchanged).map((item) => [givenTo(item.change), item.change]));
  for (const change of byTeam.values()) {
    const givingAway = await givenAway(deps, settings, actor, change);
    if (givingAway) return givingAway;
  }
  const leftOut = refused.map(({ number, owner }) => ({ number, owner }));
  return {
    ...planned,
    items,
    ...(leftOut.length ? { leftOut } : {}),
    ...(outsideScope.length ? { outsideScope } : {}),
  };
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
