// Routing a number to an agent: confirmed first when it takes the number from another agent; the number and the
// agent are locked meanwhile. Routing cannot be read back, so a lost answer is settled by sending the map again.
import { ProviderError, type ProviderErrorKind } from '../../provider/errors.js';
import { EXPECTED_STATUS } from '../../provider/schemas.js';
import type { ChangeIntent, PendingChange } from '../changes.js';
import type { OpsDeps } from '../deps.js';
import { providerFailure, unexpectedStatus } from '../failures.js';
import { fail } from '../types.js';
import type { Verified, Work } from '../work.js';
import type { ChangeKind } from './kind.js';

type Map = Extract<PendingChange, { kind: 'routing.map' }>;

export function mapWork(deps: OpsDeps, change: Map, by: string): Work {
  return {
    action: 'routing.map',
    target: change.phoneNumber,
    params: { agentId: change.agentId, previousAgentId: change.previousAgent?.id },
    intent: change,
    lockKeys: [`number:${change.phoneNumber}`, `agent:${change.agentId}`],
    run: async () => {
      const routed = await deps.provider.mapNumber({ phone_number: change.phoneNumber, agent_id: change.agentId });
      if (routed.status !== EXPECTED_STATUS.routeConnected) {
        return unexpectedStatus('the mapping', EXPECTED_STATUS.routeConnected, routed.status);
      }
      return {
        ok: true,
        keep: (deps) =>
          deps.store.routes.set({ phoneNumber: change.phoneNumber, agentId: change.agentId, updatedBy: by }),
        change: {
          action: 'routing.map',
          number: change.phoneNumber,
          agent: { id: change.agentId, name: change.agentName },
          previousAgent: change.previousAgent,
        },
      };
    },
  };
}

/** Failures of a map sent again that say nothing of whether it happened. */
const NOT_KNOWN = new Set<ProviderErrorKind>(['timeout', 'network', 'unavailable', 'rate_limited', 'withheld']);

/** Routing cannot be read, but mapping a number to the same agent twice has one effect: the map is sent again. */
async function remap(
  deps: OpsDeps,
  change: Extract<ChangeIntent, { kind: 'routing.map' }>,
  by: string,
): Promise<Verified> {
  try {
    const routed = await deps.provider.mapNumber({ phone_number: change.phoneNumber, agent_id: change.agentId });
    if (routed.status !== 'connected') {
      return fail('provider', `${change.phoneNumber} was not routed: the provider answered "${routed.status}".`);
    }
  } catch (error) {
    // The provider is not answering, or this replica may not send it now: nothing is known, try again on the next pass.
    if (error instanceof ProviderError && NOT_KNOWN.has(error.kind)) {
      throw error;
    }
    const failure = providerFailure(error);
    return fail(failure.reason, `${change.phoneNumber} was not routed to ${change.agentName}: ${failure.message}`);
  }
  await deps.store.routes.set({ phoneNumber: change.phoneNumber, agentId: change.agentId, updatedBy: by });
  const agent = { id: change.agentId, name: change.agentName };
  return {
    ok: true,
    change: { action: 'routing.map', number: change.phoneNumber, agent, previousAgent: change.previousAgent },
  };
}

export const routingMap: ChangeKind<'routing.map'> = {
  role: 'operator',
  permits: 'map numbers to agents',
  target: (change) => change.phoneNumber,
  takesFromAgent: (change) => change.previousAgent !== undefined,
  work: mapWork,
  verify: (deps, change, _reads, by) => remap(deps, change, by),
};
