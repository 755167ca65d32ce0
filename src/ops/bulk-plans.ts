// What a bulk change would do, item by item: every purchased number a filter picks routed to one agent, or released;
// or COUNT numbers for sale bought. Read afresh from the provider each time, so that the plan shown and the plan
// checked again at its confirmation are computed the same way.
import { z } from 'zod';
import { count, counted } from '../counts.js';
import {
  type Agent,
  MAX_PAGE_SIZE,
  type PurchasedNumber,
  region as regionCode,
  resourceId,
} from '../provider/schemas.js';
import type { PendingChange } from './changes.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import type { AccountLists } from './lists.js';
import { matches, type NumberFilter, numberFilter, refuseFilter } from './numbers.js';
import { unknownRegion } from './regions.js';
import { SEARCH_SCAN_PAGES } from './search.js';
import { fail, type Result } from './types.js';
import { validate } from './validate.js';
import { visible } from './visible.js';

/** Items one plan may hold: one confirmation covers them all, and Slack shows them a page at a time. */
export const MAX_BATCH_ITEMS = 1000;

/** Numbers named rather than picked by a filter: the rest of a batch, or its failed items, planned again. */
const named = z.array(z.string()).max(MAX_BATCH_ITEMS).optional();

/** What a bulk change was asked for. It is stored with its plan, to be planned again when confirmed. */
export const bulkRequest = z.discriminatedUnion('kind', [
  // One agent for every number a filter picks (or the numbers named), or each number its own agent (a routing text).
  z.object({
    kind: z.literal('routing.map'),
    agentId: z.string().optional(),
    filter: numberFilter.optional(),
    numbers: named,
    routes: z
      .array(z.object({ number: z.string(), agentId: z.string() }))
      .max(MAX_BATCH_ITEMS)
      .optional(),
  }),
  z.object({
    kind: z.literal('number.buy'),
    region: z.string(),
    count: z.number().int().min(1).max(MAX_BATCH_ITEMS),
    digits: z.string().optional(),
    numbers: named,
  }),
  z.object({ kind: z.literal('number.release'), filter: numberFilter.optional(), numbers: named }),
]);
export type BulkRequest = z.infer<typeof bulkRequest>;
export type BulkKind = BulkRequest['kind'];
/** The kinds a bulk request can be, read off its schema: a kind with a bulk form is named there alone. */
export const bulkKind = z.union(bulkRequest.options.map((option) => option.shape.kind));

export interface PlannedItem {
  change: PendingChange;
  /** Already as asked (a number that routes to the agent already): listed, and left alone. */
  unchanged: boolean;
}

export interface Planned {
  /** The agent of a bulk map. */
  agent?: { id: string; name: string };
  items: PlannedItem[];
}

/** The account's lists as read a moment ago for the same request (a routing text's check), to plan on. */
export interface AccountRead {
  numbers: PurchasedNumber[];
  agents: Agent[];
}

/** The plan of a bulk change as the provider and the app's records stand now (or as `read` just found them). */
export async function planItems(deps: OpsDeps, request: BulkRequest, read?: AccountRead): Promise<Result<Planned>> {
  try {
    switch (request.kind) {
      case 'routing.map':
        return await planMaps(deps, request, read);
      case 'number.buy':
        return await planBuys(deps, request);
      case 'number.release':
        return await planReleases(deps, request);
    }
  } catch (error) {
    return providerFailure(error);
  }
}

/** The same request, for the numbers named: what is left of a batch, or what failed in it. */
export function requestFor(request: BulkRequest, numbers: string[]): BulkRequest {
  if (request.kind === 'number.buy') return { ...request, count: numbers.length, numbers };
  if (request.kind === 'routing.map' && request.routes) {
    const kept = new Set(numbers);
    return { ...request, routes: request.routes.filter((route) => kept.has(route.number)) };
  }
  return { ...request, numbers };
}

/** Whether two plans would do the same: the same items, each with the same effect. */
export function samePlan(a: PlannedItem[], b: PlannedItem[]): boolean {
  const key = (item: PlannedItem) => `${JSON.stringify(item.change)}:${item.unchanged}`;
  const keys = new Set(a.map(key));
  return a.length === b.length && b.every((item) => keys.has(key(item)));
}

type Request<K extends BulkKind> = Extract<BulkRequest, { kind: K }>;

/** Purchased numbers a filter picks, or the ones named, in the provider's order. */
async function pick(
  lists: AccountLists,
  routed: Map<string, string>,
  request: { filter?: NumberFilter; numbers?: string[] },
): Promise<Result<{ picked: PurchasedNumber[] }>> {
  const filter = request.filter ?? {};
  const refused = refuseFilter(filter);
  if (refused) return refused;
  const purchased = await lists.numbers.get({ fresh: true });
  const names = request.numbers && new Set(request.numbers);
  const picked = purchased.filter((entry) =>
    names ? names.has(entry.number) : matches(filter, entry, routed.get(entry.number)),
  );
  if (picked.length === 0) {
    return fail('not_found', 'None of your numbers matches that: /voice numbers with the same filter lists them.');
  }
  if (picked.length > MAX_BATCH_ITEMS) {
    return fail(
      'invalid',
      `${picked.length} numbers match, and a plan holds at most ${MAX_BATCH_ITEMS}: narrow the filter (a region, ` +
        'digits, unrouted).',
    );
  }
  return { ok: true, picked };
}

async function planMaps(deps: OpsDeps, request: Request<'routing.map'>, read?: AccountRead): Promise<Result<Planned>> {
  const agents = read?.agents ?? (await deps.lists.agents.get({ fresh: true }));
  const names = new Map(agents.map((entry) => [entry.id, entry.name]));
  const routed = await deps.store.routes.agentByNumber();
  const item = (number: string, agent: { id: string; name: string }): PlannedItem => {
    const current = routed.get(number);
    const moved = current !== undefined && current !== agent.id;
    const change: PendingChange = {
      kind: 'routing.map',
      phoneNumber: number,
      agentId: agent.id,
      agentName: agent.name,
      ...(moved ? { previousAgent: { id: current, name: names.get(current) } } : {}),
    };
    return { change, unchanged: current === agent.id };
  };
  if (request.routes) {
    const numbers = read?.numbers ?? (await deps.lists.numbers.get({ fresh: true }));
    return planRoutes(numbers, request.routes, names, item);
  }
  const agentId = validate(resourceId, request.agentId ?? '');
  if (!agentId.ok) return { ...agentId, message: `Agent id ${agentId.message}` };
  const name = names.get(agentId.value);
  if (name === undefined)
    return fail('not_found', `No agent has the id ${visible(agentId.value)}.`, { field: 'agent' });
  const picked = await pick(deps.lists, routed, request);
  if (!picked.ok) return picked;
  const agent = { id: agentId.value, name };
  return { ok: true, agent, items: picked.picked.map(({ number }) => item(number, agent)) };
}

/** Each number routed to its own agent, as a routing text asks: every number must be the account's, every agent known. */
function planRoutes(
  numbers: PurchasedNumber[],
  routes: { number: string; agentId: string }[],
  names: Map<string, string>,
  item: (number: string, agent: { id: string; name: string }) => PlannedItem,
): Result<Planned> {
  const owned = new Set(numbers.map((entry) => entry.number));
  const items: PlannedItem[] = [];
  for (const route of routes) {
    const name = names.get(route.agentId);
    if (!owned.has(route.number))
      return fail('not_found', `${visible(route.number)} is no longer one of your numbers.`);
    if (name === undefined) return fail('not_found', `No agent has the id ${visible(route.agentId)} any more.`);
    items.push(item(route.number, { id: route.agentId, name }));
  }
  return { ok: true, items };
}

async function planReleases(deps: OpsDeps, request: Request<'number.release'>): Promise<Result<Planned>> {
  const routed = await deps.store.routes.agentByNumber();
  const picked = await pick(deps.lists, routed, request);
  if (!picked.ok) return picked;
  const names = new Map((await deps.lists.agents.get()).map((agent) => [agent.id, agent.name]));
  const items = picked.picked.map(({ id, number }): PlannedItem => {
    const agentId = routed.get(number);
    const routedAgent = agentId === undefined ? undefined : { id: agentId, name: names.get(agentId) };
    return { change: { kind: 'number.release', numberId: id, number, routedAgent }, unchanged: false };
  });
  return { ok: true, items };
}

/**
 * COUNT voice numbers for sale in the region (containing the digits, when given), from the first provider pages; or
 * the numbers named, those the account does not own yet.
 */
async function planBuys(deps: OpsDeps, request: Request<'number.buy'>): Promise<Result<Planned>> {
  const checked = validate(regionCode, request.region);
  if (!checked.ok) return { ...checked, field: 'region', message: `Region ${checked.message}` };
  const unknown = unknownRegion(checked.value);
  if (unknown) return unknown;
  const owned = new Set((await deps.lists.numbers.get({ fresh: true })).map((entry) => entry.number));
  const buy = (number: string, capabilities?: string[]): PlannedItem => ({
    change: { kind: 'number.buy', number, ...(capabilities ? { capabilities } : {}) },
    unchanged: false,
  });
  if (request.numbers) {
    const items = request.numbers.filter((number) => !owned.has(number)).map((number) => buy(number));
    return items.length ? { ok: true, items } : fail('not_found', 'Every one of those numbers is yours already.');
  }
  const found: PlannedItem[] = [];
  const pages = deps.provider.searchNumberPages(
    { region: checked.value, limit: MAX_PAGE_SIZE },
    { maxPages: SEARCH_SCAN_PAGES },
  );
  for await (const page of pages) {
    deps.seen.remember(page);
    for (const entry of page) {
      if (found.length === request.count) break;
      const wanted = entry.capabilities.includes('voice') && (!request.digits || entry.number.includes(request.digits));
      if (wanted && !owned.has(entry.number)) found.push(buy(entry.number, entry.capabilities));
    }
    if (found.length === request.count) return { ok: true, items: found };
  }
  const digits = request.digits ? ` containing ${request.digits}` : '';
  return fail(
    'not_found',
    found.length
      ? `Only ${counted(found.length, 'voice number')} for sale in ${checked.value}${digits} ` +
          `${found.length === 1 ? 'was' : 'were'} found, not ${count(request.count)}: ` +
          `ask for ${found.length}, or for other digits.`
      : `No voice number for sale in ${checked.value}${digits} was found.`,
  );
}
