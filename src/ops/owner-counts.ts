// How many numbers and agents each team owns, for /metrics: over the account's lists as last read, so that a scrape
// calls no provider. Before the app's first read of a list, nothing of it is counted.
import type { OpsDeps } from './deps.js';

/** The owner counted for what nobody owns. */
export const NO_OWNER = 'none';

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
