// Deleting an agent: refused while numbers route to it, confirmed first, and settled against the agents list when
// its answer is lost.
import { z } from 'zod';
import { EXPECTED_STATUS } from '../../provider/schemas.js';
import type { OpsDeps } from '../deps.js';
import { providerFailure, unexpectedStatus } from '../failures.js';
import type { ProviderReads } from '../provider-reads.js';
import { fail } from '../types.js';
import type { Verified, Work } from '../work.js';
import type { ChangeKind } from './kind.js';
import { namedAgent } from './refs.js';

const NAME = 'agent.delete';

// An agent that numbers still route to is refused before any confirmation (see requestDeleteAgent).
const deletion = z.object({
  kind: z.literal(NAME),
  agentId: z.string(),
  agentName: z.string(),
  /** The change this deletion undoes, when it is an Undo (an agent's creation): its correlation id. */
  undoes: z.string().optional(),
});
export type Delete = z.infer<typeof deletion>;

const deleted = z.object({ action: z.literal(NAME), agent: namedAgent });
type Deleted = z.infer<typeof deleted>;

const agentOf = (change: Delete) => ({ id: change.agentId, name: change.agentName });

// An Undo's deletion names the creation it undoes on its outcome row too, which history tells as made by an Undo.
const auditParams = ({ agentName, undoes }: Delete) => ({ name: agentName, ...(undoes ? { undoes } : {}) });

/** A deleted agent's records go with it, however it was found done: what comes back later starts bare. */
const forgetAgent = (change: Delete) => async (deps: OpsDeps) => {
  await deps.store.routes.removeAgent(change.agentId);
  await deps.store.facts.forgetAgent(change.agentId);
  await deps.store.tags.forget(change.agentId);
};

function deleteAgentWork(change: Delete): Work {
  return {
    action: NAME,
    target: change.agentId,
    params: auditParams(change),
    intent: change,
    lockKeys: [`agent:${change.agentId}`],
    run: async (provider) => {
      try {
        const deleted = await provider.deleteAgent(change.agentId);
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
      return { ok: true, change: { action: NAME, agent: agentOf(change) }, keep: forgetAgent(change) };
    },
  };
}

async function verifyDelete(_deps: OpsDeps, change: Delete, reads: ProviderReads): Promise<Verified> {
  const agent = agentOf(change);
  if ((await reads.agents()).some((listed) => listed.id === change.agentId)) {
    return fail('provider', `Agent ${change.agentName} (${change.agentId}) was not deleted: it still exists.`);
  }
  return { ok: true, change: { action: NAME, agent }, keep: forgetAgent(change) };
}

export const agentDelete: ChangeKind<Delete, Deleted> = {
  name: NAME,
  record: deletion,
  announced: deleted,
  role: 'admin',
  permits: 'delete agents',
  spends: false,
  confirm: {
    verb: 'Delete',
    title: 'Confirm deletion',
    effect: (change) => ['Delete agent ', { agent: agentOf(change) }, '. Its agent token stops working.'],
    destroys: () => true,
    kept: (change) => ['Agent ', { agent: agentOf(change) }, ' was not deleted.'],
    gerund: 'deleting agents',
  },
  target: (change) => change.agentId,
  subject: (change) => change.agent.id,
  auditParams,
  takesFromAgent: () => false,
  work: (_deps, change) => deleteAgentWork(change),
  verify: verifyDelete,
  did: (change) => ['deleted agent ', { agent: change.agent }],
  lookUp: (change) => `/voice audit ${change.agent.id}`,
  happened: () => ['deleted'],
  undo: { never: 'A deleted agent cannot be undone: create a new one, which gets a new token.' },
  outside: { list: 'agents', adds: false, change: (id, name) => ({ action: NAME, agent: { id, name } }) },
};
