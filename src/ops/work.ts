// The provider work of each confirmed change, whoever's decision let it go ahead (its requester, or an approver).
import { deleteAgentWork } from './agents.js';
import type { Work } from './carry-out.js';
import type { PendingChange } from './changes.js';
import type { OpsDeps } from './context.js';
import { buyWork, releaseWork } from './numbers.js';
import { mapWork } from './routing.js';

/** `by` is the requester: the routing record names who asked for the route. */
export function workFor(deps: OpsDeps, change: PendingChange, by: string): Work {
  switch (change.kind) {
    case 'number.buy':
      return buyWork(deps, change);
    case 'number.release':
      return releaseWork(deps, change);
    case 'agent.delete':
      return deleteAgentWork(deps, change);
    case 'routing.map':
      return mapWork(deps, change, by);
  }
}
