// How many numbers and agents each team owns, for /metrics, counted at each reconciler pass: over the account's lists
// as the app last read them, so that counting calls no provider, and before its first read of a list, none of it.
import type { OpsDeps } from './deps.js';

/** The owner counted for what nobody owns. */
const NO_OWNER = 'none';

/** Owning team (its user-group id, or `none`) → how many. */
export interface OwnerCounts {
  numbers: Map<string, number>;
  agents: Map<string, number>;
}

export async function countByOwner(deps: OpsDeps): Promise<OwnerCounts> {
  const tags = await deps.store.tags.all();
  const count = (subjects: readonly string[] = []) => {
    const counts = new Map<string, number>();
    for (const subject of subjects) {
      const owner = tags.get(subject)?.owner ?? NO_OWNER;
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
    return counts;
  };
  return {
    numbers: count(deps.lists.numbers.last?.map((entry) => entry.number)),
    agents: count(deps.lists.agents.last?.map((agent) => agent.id)),
  };
}
