// Buying a number: it spends money, so it is confirmed first; the number is locked while it is bought, and a lost
// answer is settled against the purchased list. In bulk: COUNT numbers for sale in a region.
import { z } from 'zod';
import { count, counted } from '../../counts.js';
import type { ProviderClient } from '../../provider/client.js';
import type { BoughtNumber } from '../../provider/index.js';
import { EXPECTED_STATUS, MAX_PAGE_SIZE, region as regionCode } from '../../provider/schemas.js';
import { MAX_BATCH_ITEMS, named, type Planned, type PlannedItem } from '../bulk-items.js';
import type { OpsDeps } from '../deps.js';
import { providerFailure, unexpectedStatus } from '../failures.js';
import type { ProviderReads } from '../provider-reads.js';
import { regionOf, unknownRegion } from '../regions.js';
import { forSaleIn, nearestForSale, SEARCH_SCAN_PAGES } from '../search.js';
import { type Failure, fail, type Result } from '../types.js';
import { validate } from '../validate.js';
import type { Finished, Verified, Work } from '../work.js';
import type { BulkForm, ChangeKind } from './kind.js';
import { numberRelease } from './number-release.js';
import { bornTags, noLongerOurs, numberRef } from './refs.js';

const NAME = 'number.buy';

// Capabilities, when a search showed them (or a look-up found them), are kept once the number is bought, and so are
// the tags of the bound channel it was asked in.
const buy = z.object({
  kind: z.literal(NAME),
  number: z.string(),
  capabilities: z.array(z.string()).optional(),
  tags: bornTags.optional(),
});
export type Buy = z.infer<typeof buy>;

const bought = z.object({ action: z.literal(NAME), number: numberRef });
type Bought = z.infer<typeof bought>;

function buyWork(change: Buy, by: string): Work {
  return {
    action: NAME,
    target: change.number,
    intent: change,
    lockKeys: [`number:${change.number}`],
    run: async (provider) => {
      let bought: BoughtNumber;
      try {
        bought = await provider.buyNumber(change.number);
      } catch (error) {
        const failure = providerFailure(error);
        if (failure.reason !== 'conflict' && failure.reason !== 'not_found') return failure;
        return refusedPurchase(provider, change.number, failure);
      }
      if (bought.status !== EXPECTED_STATUS.numberBought) {
        return unexpectedStatus('the purchase', EXPECTED_STATUS.numberBought, bought.status);
      }
      return {
        ok: true,
        ...keptOnBuying(change, by),
        change: { action: NAME, number: { id: bought.id, number: bought.number } },
        note: bought.reconciled
          ? "The provider's answer was lost; the purchase was verified in the purchased list."
          : undefined,
      };
    },
  };
}

/** The records a buy keeps, however it was found done, and the born tags its outcome row keeps. */
function keptOnBuying(change: Buy, by: string): Pick<Finished, 'keep' | 'found'> {
  return {
    keep: async (deps) => {
      if (change.capabilities) await deps.store.facts.rememberNumber(change.number, change.capabilities);
      // A number just bought routes nowhere and has only the labels it was bought with: records left from when the
      // account last owned it are stale.
      await deps.store.routes.removeNumber(change.number);
      await deps.store.tags.forget(change.number);
      if (change.tags) await deps.store.tags.set(change.number, change.tags, by);
    },
    ...(change.tags ? { found: { tags: change.tags } } : {}),
  };
}

/**
 * The provider would not sell a number it offered when the buy was asked for: bought in the meantime, by this account
 * (a second confirmation of the same Buy) or by someone else, who leaves the nearest numbers still for sale.
 */
async function refusedPurchase(provider: ProviderClient, number: string, failure: Failure): Promise<Failure> {
  const extra = { providerKind: failure.providerKind };
  // Which of the two it was, and what is left for sale, are read when they can be: else the provider's word stands.
  const purchased = await provider.listPurchasedNumbers().catch(() => undefined);
  if (!purchased) return failure;
  if (purchased.some((entry) => entry.number === number)) {
    return fail(
      'conflict',
      `${number} can no longer be bought: it was bought in the meantime. (${failure.message})`,
      extra,
    );
  }
  const inRegion = regionOf(number);
  const forSale = inRegion ? await forSaleIn(provider, inRegion, number).catch(() => undefined) : undefined;
  // Sold elsewhere only when its whole region was read without it: else the provider's own word stands.
  if (!forSale?.complete || forSale.entries.some((entry) => entry.number === number)) return failure;
  return fail('conflict', `${number} was sold to someone else after you asked; nothing was bought.`, {
    ...extra,
    code: 'sold_elsewhere',
    instead: nearestForSale(number, forSale.entries),
  });
}

async function verifyBuy(_deps: OpsDeps, change: Buy, reads: ProviderReads, by: string): Promise<Verified> {
  const id = (await reads.numbers()).get(change.number);
  if (id === undefined) return fail('provider', `${change.number} was not bought: the provider does not have it.`);
  return { ok: true, ...keptOnBuying(change, by), change: { action: NAME, number: { id, number: change.number } } };
}

export const numberBuy: ChangeKind<Buy, Bought> = {
  name: NAME,
  record: buy,
  announced: bought,
  role: 'operator',
  permits: 'buy numbers',
  spends: true,
  confirm: {
    verb: 'Buy',
    title: 'Confirm purchase',
    effect: (change) => ['Buy ', { number: change.number }, '. This spends money on the provider account.'],
    destroys: () => false,
    kept: (change) => [
      { number: change.number },
      ' was not bought. To search again, type ',
      { code: '/voice numbers search REGION' },
      '.',
    ],
    gerund: 'buying',
  },
  target: (change) => change.number,
  subject: (change) => change.number.number,
  auditParams: () => undefined,
  takesFromAgent: () => false,
  work: (_deps, change, by) => buyWork(change, by),
  born: (change, tags) => ({ ...change, tags }),
  verify: verifyBuy,
  did: (change) => ['bought ', { ...change.number, region: regionOf(change.number.number) }],
  lookUp: (change) => `/voice numbers ${change.number.number}`,
  happened: () => ['bought'],
  routeNext: (change) => change.number.number,
  // A number just bought routes nowhere, whatever routed it when the account last had it.
  routeEffect: ({ target }) => ({ number: target, ownership: 'bought' }),
  // Undone, a number goes back to the provider: the money spent on it stays spent.
  undo: {
    inverse: async ({ target }, scene) => {
      const numberId = (await scene.account()).numbers.get(target);
      if (numberId === undefined) return { cannot: noLongerOurs(target) };
      return { change: { kind: numberRelease.name, numberId, number: target } };
    },
  },
  outside: { list: 'numbers', adds: true, change: (number, id) => ({ action: NAME, number: { id, number } }) },
};

/** COUNT voice numbers for sale in a region (containing the digits, when given), or the numbers named. */
const buyMany = z.object({
  kind: z.literal(NAME),
  region: z.string(),
  count: z.number().int().min(1).max(MAX_BATCH_ITEMS),
  digits: z.string().optional(),
  numbers: named,
});
type BuyMany = z.infer<typeof buyMany>;

/**
 * COUNT voice numbers for sale in the region (containing the digits, when given), from the first provider pages; or
 * the numbers named, those the account does not own yet.
 */
async function planBuys(deps: OpsDeps, request: BuyMany): Promise<Result<Planned>> {
  const checked = validate(regionCode, request.region);
  if (!checked.ok) return { ...checked, field: 'region', message: `Region ${checked.message}` };
  const unknown = unknownRegion(checked.value);
  if (unknown) return unknown;
  const owned = new Set((await deps.lists.numbers.get({ fresh: true })).map((entry) => entry.number));
  const buyOf = (number: string, capabilities?: string[]): PlannedItem => {
    const change: Buy = { kind: NAME, number, ...(capabilities ? { capabilities } : {}) };
    return { change, unchanged: false };
  };
  if (request.numbers) {
    const wanted = request.numbers.filter((number) => !owned.has(number));
    if (!wanted.length) return fail('not_found', 'Every one of those numbers is yours already.');
    const forSale = await forSaleIn(deps.provider, checked.value);
    deps.seen.remember(forSale.entries, deps.now().getTime());
    const offered = new Map(forSale.entries.map((entry) => [entry.number, entry]));
    // A number no longer for sale stays in the plan, marked and left out; one the search could not reach is tried.
    const items = wanted.map((number): PlannedItem => {
      const entry = offered.get(number);
      return entry || !forSale.complete ? buyOf(number, entry?.capabilities) : { ...buyOf(number), unchanged: true };
    });
    if (items.every((item) => item.unchanged)) {
      return fail('not_found', `None of those numbers is for sale in ${checked.value} now.`, { code: 'not_for_sale' });
    }
    return { ok: true, items };
  }
  const found: PlannedItem[] = [];
  const pages = deps.provider.searchNumberPages(
    { region: checked.value, limit: MAX_PAGE_SIZE },
    { maxPages: SEARCH_SCAN_PAGES },
  );
  for await (const page of pages) {
    deps.seen.remember(page, deps.now().getTime());
    for (const entry of page) {
      if (found.length === request.count) break;
      const wanted = entry.capabilities.includes('voice') && (!request.digits || entry.number.includes(request.digits));
      if (wanted && !owned.has(entry.number)) found.push(buyOf(entry.number, entry.capabilities));
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

export const numberBuyBulk: BulkForm<typeof buyMany, Buy> = {
  request: buyMany,
  audit: 'batch.buy',
  plan: planBuys,
  again: (request, numbers) => ({ ...request, count: numbers.length, numbers }),
  count: (request) => request.count,
  region: (request) => request.region,
  words: {
    doing: 'Buying',
    done: 'Bought',
    apply: 'Buy',
    verb: 'buy',
    items: 'buy of',
    plan: (request, totals) => [
      `buy ${counted(totals.change, 'voice number')} in `,
      { code: request.region },
      ...(request.digits ? [' containing ', { code: request.digits }] : []),
      ...(totals.unchanged ? [` (${count(totals.unchanged)} not for sale now, left out)`] : []),
      '. This spends money on the provider account',
    ],
    effect: (change, notForSale) =>
      notForSale
        ? ['not for sale now: left out']
        : [change.capabilities?.length ? `buy (${change.capabilities.join(', ')})` : 'buy'],
    taken: '',
    destroys: false,
    routeNext: true,
  },
};
