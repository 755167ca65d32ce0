// The provider's two account lists, read whole (its API has no paging) and kept briefly for paging and pickers. A
// change drops them; commands and every check before a change read them afresh.
import type { ProviderClient } from '../provider/index.js';
import type { Agent, PurchasedNumber } from '../provider/schemas.js';
import { eachInSlices } from '../slices.js';
import type { RouteRecord } from '../store/routes.js';
import type { RoutesRepo } from '../store/store.js';

/** How long a list read from the provider serves paging and pickers when nothing the app did has changed it. */
export const LIST_MAX_AGE_MS = 60_000;

export interface ReadOptions {
  /** Read from the provider even when a recent copy is kept. */
  fresh?: boolean;
}

/** One list, read on demand, shared by concurrent readers, dropped by `invalidate`. */
export class KeptList<T> {
  readonly #read: () => Promise<T>;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  #kept?: { value: T; readAt: number };
  #last?: T;
  #reading?: { promise: Promise<T>; generation: number };
  // Bumped by every invalidation: a read that began before it may have missed the change, so it is not kept.
  #generation = 0;

  constructor(read: () => Promise<T>, options: { maxAgeMs?: number; now?: () => number } = {}) {
    this.#read = read;
    this.#maxAgeMs = options.maxAgeMs ?? LIST_MAX_AGE_MS;
    this.#now = options.now ?? Date.now;
  }

  get(options: ReadOptions = {}): Promise<T> {
    const kept = this.#kept;
    if (!options.fresh && kept && this.#now() - kept.readAt < this.#maxAgeMs) return Promise.resolve(kept.value);
    const reading = this.#reading;
    // A read already under way began after the last change, so it is as fresh as a new one would be.
    if (reading && reading.generation === this.#generation) return reading.promise;
    return this.#start();
  }

  /** The list as last read, however long ago and whatever changed since: for counts that must not read it again. */
  get last(): T | undefined {
    return this.#last;
  }

  invalidate(): void {
    this.#generation += 1;
    this.#kept = undefined;
  }

  #start(): Promise<T> {
    const generation = this.#generation;
    const readAt = this.#now();
    const promise = this.#read().then((value) => {
      this.#last = value;
      if (generation === this.#generation) this.#kept = { value, readAt };
      return value;
    });
    const reading = { promise, generation };
    this.#reading = reading;
    const done = () => {
      if (this.#reading === reading) this.#reading = undefined;
    };
    promise.then(done, done);
    return promise;
  }
}

export interface AccountLists {
  numbers: KeptList<PurchasedNumber[]>;
  agents: KeptList<Agent[]>;
  /** Drops both lists: called after every change the app makes, whatever its outcome, and by reconciliation. */
  invalidate(): void;
}

export function accountLists(
  provider: ProviderClient,
  routes: RoutesRepo,
  options: { maxAgeMs?: number; now?: () => number } = {},
): AccountLists {
  const numbers = new KeptList(async () => {
    const recorded = await routes.all();
    const purchased = await provider.listPurchasedNumbers();
    await forgetUnlisted(routes, recorded, purchased);
    return purchased;
  }, options);
  const agents = new KeptList(() => provider.listAgents(), options);
  return {
    numbers,
    agents,
    invalidate: () => {
      numbers.invalidate();
      agents.invalidate();
    },
  };
}

/**
 * A routing record whose number the provider no longer lists is stale. Only records read before the list was asked
 * for are dropped, so that a map made meanwhile is kept.
 */
async function forgetUnlisted(
  routes: RoutesRepo,
  recorded: RouteRecord[],
  purchased: PurchasedNumber[],
): Promise<void> {
  if (recorded.length === 0) return;
  const listed = new Set<string>();
  await eachInSlices(purchased, (entry) => listed.add(entry.number));
  for (const route of recorded) if (!listed.has(route.phoneNumber)) await routes.removeNumber(route.phoneNumber);
}
