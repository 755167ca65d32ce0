// Creating an agent: it spends nothing, so it goes at once; two creations of one name never overlap, so that an agent
// whose answer was lost is told apart from the agents of that name made before it.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { agentsNamedSince } from '../../provider/client.js';
import { type Agent, EXPECTED_STATUS } from '../../provider/schemas.js';
import { unexpectedStatus } from '../failures.js';
import { fail } from '../types.js';
import type { Finished, Verified, Work } from '../work.js';
import { agentDelete } from './agent-delete.js';
import type { ChangeKind } from './kind.js';
import { bornTags } from './refs.js';

const NAME = 'agent.create';

const creation = z.object({
  kind: z.literal(NAME),
  name: z.string(),
  language: z.string(),
  /** The agents of that name before the creation was sent: one more afterwards is this one (see agentsNamedSince). */
  namedBefore: z.array(z.string()).optional(),
  /** The owner and labels of the bound channel it was created in. */
  tags: bornTags.optional(),
});
export type Create = z.infer<typeof creation>;

const created = z.object({
  action: z.literal(NAME),
  agent: z.object({ id: z.string(), name: z.string(), language: z.string() }),
});
type Created = z.infer<typeof created>;

const auditParams = (change: Create) => ({ name: change.name, language: change.language });

/** Said when a creation whose answer was lost is found in the agents list: created, but nobody has its token. */
const tokenLostNote =
  "The provider's answer was lost, so the agent was found in the agents list instead (the one new agent of that " +
  'name, made by this request unless someone made one of the same name in the dashboard meanwhile): its token went ' +
  'with the answer and cannot be shown again. If you need the token, delete this agent and create it again.';

function createAgentWork(change: Create, by: string): Work {
  const params = auditParams(change);
  return {
    action: NAME,
    params,
    intent: change,
    // The name is hashed: a lock's name is stored as text, which must hold whatever a name holds.
    lockKeys: [`agent-name:${createHash('sha256').update(change.name).digest('hex')}`],
    run: async (provider) => {
      const agent = await provider.createAgent(params, change.namedBefore ?? []);
      if (agent.status !== EXPECTED_STATUS.agentCreated) {
        return unexpectedStatus('the agent creation', EXPECTED_STATUS.agentCreated, agent.status);
      }
      return {
        ok: true,
        change: { action: NAME, agent: { id: agent.id, name: agent.name, language: change.language } },
        ...('tokenLost' in agent ? { note: tokenLostNote } : { createdAgent: agent }),
        ...keptOnCreating(change, agent.id, by),
      };
    },
  };
}

/** The records a creation keeps, however it was found done, and the born tags its outcome row keeps. */
function keptOnCreating(change: Create, agentId: string, by: string): Pick<Finished, 'keep' | 'found'> {
  return {
    keep: async (deps) => {
      await deps.store.facts.rememberAgent(agentId, change.language);
      if (change.tags) await deps.store.tags.set(agentId, change.tags, by);
    },
    ...(change.tags ? { found: { tags: change.tags } } : {}),
  };
}

/** Whether the agents list shows the creation: one new agent of its name. Its token is lost either way. */
function createdIn(agents: Agent[], change: Create, by: string): Verified {
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
    change: { action: NAME, agent: { id: agent.id, name: agent.name, language: change.language } },
    note: tokenLostNote,
    ...keptOnCreating(change, agent.id, by),
  };
}

export const agentCreate: ChangeKind<Create, Created> = {
  name: NAME,
  record: creation,
  announced: created,
  role: 'operator',
  permits: 'create agents',
  spends: false,
  target: () => undefined,
  subject: (change) => change.agent.id,
  auditParams,
  takesFromAgent: () => false,
  work: (_deps, change, by) => createAgentWork(change, by),
  born: (change, tags) => ({ ...change, tags }),
  verify: async (_deps, change, reads, by) => createdIn(await reads.agents(), change, by),
  did: ({ agent }) => ['created agent ', { strong: agent.name }, ' (', { code: agent.id }, `, ${agent.language})`],
  lookUp: (change) => `/voice agents ${change.agent.id}`,
  happened: ({ params }) => [
    'created',
    ...(typeof params.name === 'string' ? [' as ', { strong: params.name }] : []),
    ...(typeof params.language === 'string' ? [`, ${params.language}`] : []),
  ],
  undo: {
    inverse: async ({ target, params }) => ({
      change: {
        kind: agentDelete.name,
        agentId: target,
        agentName: typeof params.name === 'string' ? params.name : target,
      },
    }),
  },
  // The agent list carries no language: the announcement says so rather than guess.
  outside: {
    list: 'agents',
    adds: true,
    change: (id, name) => ({ action: NAME, agent: { id, name, language: 'language not listed' } }),
  },
};
