// Deleting an agent: refused while numbers route to it, confirmed first, and settled against the agents list when
// its answer is lost.
import { EXPECTED_STATUS } from '../../provider/schemas.js';
import type { PendingChange } from '../changes.js';
import type { OpsDeps } from '../deps.js';
import { providerFailure, unexpectedStatus } from '../failures.js';
import type { ProviderReads } from '../provider-reads.js';
import { fail } from '../types.js';
import type { Verified, Work } from '../work.js';
import type { ChangeKind } from './kind.js';

type Delete = Extract<PendingChange, { kind: 'agent.delete' }>;

const auditParams = (change: Delete) => ({ name: change.agentName });

function deleteAgentWork(deps: OpsDeps, change: Delete): Work {
  return {
    action: 'agent.delete',
    target: change.agentId,
    params: auditParams(change),
    intent: change,
    lockKeys: [`agent:${change.agentId}`],
    run: async () => {
      try {
        const deleted = await deps.provider.deleteAgent(change.agentId);
        if (deleted.status !== EXPECTED_STATUS.agentDeleted) {
          return unexpectedStatus('the deletion', EXPECTED_STATUS.agentDeleted, deleted.status);
        }
      } catch (error) {
        const failure = providerFailure(error);
        if (failure.reason !== 'conflict') return failure;
        return fail(
          'conflict',
          `The provider refused to delete ${change.agentName}: a number still routes to it. ` +
            `Map that number to another agent or release it, then try again. (${failure.message})`,
          { providerKind: failure.providerKind },
        );
      }
      return {
        ok: true,
        change: { action: 'agent.delete', agent: { id: change.agentId, name: change.agentName } },
        keep: async (deps) => {
          await deps.store.routes.removeAgent(change.agentId);
          await deps.store.facts.forgetAgent(change.agentId);
        },
      };
    },
  };
}

async function verifyDelete(_deps: OpsDeps, change: Delete, reads: ProviderReads): Promise<Verified> {
  const agent = { id: change.agentId, name: change.agentName };
  if ((await reads.agents()).some((listed) => listed.id === change.agentId)) {
    return fail('provider', `Agent ${change.agentName} (${change.agentId}) was not deleted: it still exists.`);
  }
  return { ok: true, change: { action: 'agent.delete', agent } };
}

export const agentDelete: ChangeKind<'agent.delete'> = {
  role: 'admin',
  permits: 'delete agents',
  target: (change) => change.agentId,
  auditParams,
  takesFromAgent: () => false,
  work: (deps, change) => deleteAgentWork(deps, change),
  verify: verifyDelete,
};
