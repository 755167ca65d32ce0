// Creating an agent: it spends nothing, so it goes at once; two creations of one name never overlap, so that an agent
// whose answer was lost is told apart from the agents of that name made before it.
import { createHash } from 'node:crypto';
import { agentsNamedSince } from '../../provider/client.js';
import { type Agent, EXPECTED_STATUS } from '../../provider/schemas.js';
import type { ChangeIntent } from '../changes.js';
import type { OpsDeps } from '../deps.js';
import { unexpectedStatus } from '../failures.js';
import { fail } from '../types.js';
import type { Verified, Work } from '../work.js';
import type { ChangeKind } from './kind.js';

type Create = Extract<ChangeIntent, { kind: 'agent.create' }>;

const auditParams = (change: Create) => ({ name: change.name, language: change.language });

/** Said when a creation whose answer was lost is found in the agents list: created, but nobody has its token. */
const tokenLostNote =
  "The provider's answer was lost, so the agent was found in the agents list instead (the one new agent of that " +
  'name, made by this request unless someone made one of the same name in the dashboard meanwhile): its token went ' +
  'with the answer and cannot be shown again. If you need the token, delete this agent and create it again.';

function createAgentWork(deps: OpsDeps, change: Create): Work {
  const params = auditParams(change);
  return {
    action: 'agent.create',
    params,
    intent: change,
    // The name is hashed: a lock's name is stored as text, which must hold whatever a name holds.
    lockKeys: [`agent-name:${createHash('sha256').update(change.name).digest('hex')}`],
    run: async () => {
      const agent = await deps.provider.createAgent(params, change.namedBefore ?? []);
      if (agent.status !== EXPECTED_STATUS.agentCreated) {
        return unexpectedStatus('the agent creation', EXPECTED_STATUS.agentCreated, agent.status);
      }
      const created = { id: agent.id, name: agent.name, language: change.language };
      return {
        ok: true,
        change: { action: 'agent.create', agent: created },
        ...('tokenLost' in agent ? { note: tokenLostNote } : { createdAgent: agent }),
        keep: (deps) => deps.store.facts.rememberAgent(agent.id, change.language),
      };
    },
  };
}

/** Whether the agents list shows the creation: one new agent of its name. Its token is lost either way. */
function created(agents: Agent[], change: Extract<ChangeIntent, { kind: 'agent.create' }>): Verified {
  const interrupted = `Creating agent "${change.name}" was interrupted`;
  // Intents written before the agents of the name were noted cannot tell this creation from the others.
  if (!change.namedBefore) {
    return fail(
      'provider',
      `${interrupted}: it may exist all the same. Check /voice agents; if it is listed, its token was lost, so ` +
        'delete it and create it again.',
      { code: 'unverified' },
    );
  }
  const appeared = agentsNamedSince(agents, change.name, change.namedBefore);
  const [agent] = appeared;
  if (!agent) return fail('provider', `${interrupted}, and it was not created: no new agent of that name is listed.`);
  if (appeared.length > 1) {
    return fail(
      'provider',
      `${interrupted}: ${appeared.length} new agents of that name are listed, so someone else made one meanwhile. ` +
        'Check /voice agents: one of them is this one, and its token was lost.',
      { code: 'unverified' },
    );
  }
  return {
    ok: true,
    change: { action: 'agent.create', agent: { id: agent.id, name: agent.name, language: change.language } },
    note: tokenLostNote,
  };
}

export const agentCreate: ChangeKind<'agent.create'> = {
  role: 'operator',
  permits: 'create agents',
  target: () => undefined,
  auditParams,
  takesFromAgent: () => false,
  work: (deps, change) => createAgentWork(deps, change),
  verify: async (_deps, change, reads) => created(await reads.agents(), change),
};
