// Searching for numbers to buy, a page at a time. The provider cannot filter by digits, so the app reads its pages and
// keeps the matches, within a bound, saying when it stopped looking.
import { z } from 'zod';
import type { ProviderClient } from '../provider/client.js';
import { type AvailableNumber, MAX_PAGE_SIZE, region } from '../provider/schemas.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import { unknownRegion } from './regions.js';
import type { Result } from './types.js';
import { validate } from './validate.js';

/** Numbers on one page of search results. */
export const SEARCH_PAGE_SIZE = 20;
/** Provider pages (of 100) read for one page of results when searching by digits: at most 1,000 numbers. */
export const SEARCH_SCAN_PAGES = 10;

/** A provider cursor, past its first `skip` matches (a digits search may split a provider page). Travels in buttons. */
export const searchStart = z.object({ cursor: z.string().optional(), skip: z.number().int().min(1).optional() });
export type SearchStart = z.infer<typeof searchStart>;

export interface SearchRequest {
  region?: string;
  /** Only numbers containing these digits. */
  digits?: string;
  start?: SearchStart;
}

export interface SearchPage {
  data: AvailableNumber[];
  /** Where the next page starts; absent on the last. */
  next?: SearchStart;
  /** Numbers read from the provider for this page. */
  scanned: number;
  /** The search by digits reached its bound before filling the page: Next looks further. */
  stopped: boolean;
}

export async function searchNumbers(deps: OpsDeps, request: SearchRequest): Promise<Result<{ page: SearchPage }>> {
  if (request.region !== undefined) {
    const checked = validate(region, request.region);
    if (!checked.ok) return { ...checked, field: 'region', message: `Region ${checked.message}` };
    const unknown = unknownRegion(checked.value);
    if (unknown) return unknown;
  }
  try {
    const page = request.digits ? await scanForDigits(deps, request, request.digits) : await onePage(deps, request);
    return { ok: true, page };
  } catch (error) {
    return providerFailure(error);
  }
}

/** Without digits, a page of results is a page of the provider's. */
async function onePage(deps: OpsDeps, request: SearchRequest): Promise<SearchPage> {
  const page = await deps.provider.searchNumbers({ region: request.region, cursor: request.start?.cursor });
  deps.seen.remember(page.data, deps.now().getTime());
  return {
    data: page.data,
    next: page.next_cursor ? { cursor: page.next_cursor } : undefined,
    scanned: page.data.length,
    stopped: false,
  };
}

/** Reads provider pages from the start until a page of matches is full, the inventory ends, or the bound is reached. */
async function scanForDigits(deps: OpsDeps, request: SearchRequest, digits: string): Promise<SearchPage> {
  const data: AvailableNumber[] = [];
  let cursor = request.start?.cursor;
  let skip = request.start?.skip ?? 0;
  let scanned = 0;
  for (let read = 1; ; read++) {
    const page = await deps.provider.searchNumbers({ region: request.region, cursor, limit: MAX_PAGE_SIZE });
    deps.seen.remember(page.data, deps.now().getTime());
    scanned += page.data.length;
    const matches = page.data.filter((entry) => entry.number.includes(digits)).slice(skip);
    const room = SEARCH_PAGE_SIZE - data.length;
    data.push(...matches.slice(0, room));
    // This provider page has more matches than the page holds: the next page starts within it.
    if (matches.length > room) return { data, next: { cursor, skip: skip + room }, scanned, stopped: false };
    skip = 0;
    if (!page.next_cursor) return { data, scanned, stopped: false };
    cursor = page.next_cursor;
    if (data.length === SEARCH_PAGE_SIZE) return { data, next: { cursor }, scanned, stopped: false };
    if (read === SEARCH_SCAN_PAGES) return { data, next: { cursor }, scanned, stopped: true };
  }
}

/** The numbers for sale in a region as its first provider pages list them; `complete` when those were all it has. */
export interface ForSale {
  entries: AvailableNumber[];
  complete: boolean;
}

export async function forSaleIn(provider: ProviderClient, region: string, wanted?: string): Promise<ForSale> {
  const entries: AvailableNumber[] = [];
  let pages = 0;
  for await (const page of provider.searchNumberPages(
    { region, limit: MAX_PAGE_SIZE },
    { maxPages: SEARCH_SCAN_PAGES },
  )) {
    entries.push(...page);
    pages += 1;
    // The number wanted is for sale: the pages after it are not needed to say so.
    if (wanted !== undefined && page.some((entry) => entry.number === wanted)) return { entries, complete: false };
  }
  // The last page read may not have been the provider's last: only fewer pages than the bound prove the end.
  return { entries, complete: pages < SEARCH_SCAN_PAGES };
}

/** Numbers offered in place of one that is not for sale. */
const NEAREST_SHOWN = 3;

/** Longest shared prefix first, then closest in value: what is left of the area or range a person wanted. */
export function nearestForSale(number: string, entries: AvailableNumber[], shown = NEAREST_SHOWN): string[] {
  const shared = (other: string) => {
    let length = 0;
    while (length < number.length && number[length] === other[length]) length += 1;
    return length;
  };
  const distance = (other: string) => {
    const gap = BigInt(other.slice(1) || '0') - BigInt(number.slice(1) || '0');
    return gap < 0n ? -gap : gap;
  };
  return entries
    .filter((entry) => entry.number !== number && entry.capabilities.includes('voice'))
    .map((entry) => ({ number: entry.number, shared: shared(entry.number), distance: distance(entry.number) }))
    .sort((a, b) => b.shared - a.shared || (a.distance < b.distance ? -1 : a.distance > b.distance ? 1 : 0))
    .slice(0, shown)
    .map((entry) => entry.number);
}
