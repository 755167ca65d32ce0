// What the planners of bulk changes share (each kind's planner is in its module, kinds/*.ts): the items a plan holds,
// how many it may hold, the account as just read, and the purchased numbers a filter picks.
import { z } from 'zod';
import type { Agent, PurchasedNumber } from '../provider/schemas.js';
import type { PendingChange } from './changes.js';
import type { OpsDeps } from './deps.js';
import type { AccountLists } from './lists.js';
import { matches, type NumberFilter, readsTags, refuseFilter } from './number-filter.js';
import { fail, type Result } from './types.js';

/** Items one plan may hold: one confirmation covers them all, and Slack shows them a page at a time. */
export const MAX_BATCH_ITEMS = 1000;

/** Numbers named rather than picked by a filter: the rest of a batch, or its failed items, planned again. */
export const named = z.array(z.string()).max(MAX_BATCH_ITEMS).optional();

export interface PlannedItem {
  change: PendingChange;
  /**
   * Already as asked (a number that routes to the agent already), or no longer possible (a number no longer for
   * sale): listed, and left alone.
   */
  unchanged: boolean;
}

export interface Planned {
  /** The agent of a bulk map. */
  agent?: { id: string; name: string };
  items: PlannedItem[];
  /** Numbers the plan would have changed, left out because another team owns them (or the agent they would route to). */
  leftOut?: { number: string; owner: string }[];
  /** Numbers left out because they (or the agent they would route to) are outside the plan's bound channel. */
  outsideScope?: string[];
}

/** The account's lists as read a moment ago for the same request (a routing text's check), to plan on. */
export interface AccountRead {
  numbers: PurchasedNumber[];
  agents: Agent[];
}

/** The account's numbers and agents read afresh, together. */
export async function readAccount(lists: AccountLists): Promise<AccountRead> {
  const [numbers, agents] = await Promise.all([lists.numbers.get({ fresh: true }), lists.agents.get({ fresh: true })]);
  return { numbers, agents };
}

/** Purchased numbers a filter picks, or the ones named, in the provider's order. */
export async function pick(
  deps: OpsDeps,
  routed: Map<string, string>,
  request: { filter?: NumberFilter; numbers?: string[] },
): Promise<Result<{ picked: PurchasedNumber[] }>> {
  const filter = request.filter ?? {};
  const refused = refuseFilter(filter);
  if (refused) return refused;
  const purchased = await deps.lists.numbers.get({ fresh: true });
  const names = request.numbers && new Set(request.numbers);
  const tags = !names && readsTags(filter) ? await deps.store.tags.all() : new Map();
  const picked = purchased.filter((entry) =>
    names ? names.has(entry.number) : matches(filter, entry, routed.get(entry.number), tags),
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
