import { z } from 'zod';
import { counted } from '../counts.js';
import { type Agent, createAgentRequest, resourceId } from '../provider/schemas.js';
import type { Tags } from '../store/tags.js';
import { oneAgentIn } from './agent-names.js';
import { askAs, requestConfirmation } from './ask-confirmation.js';
import { record } from './audit-rows.js';
import { carryOut, type Done } from './carry-out.js';
import type { AgentInUse, Asked } from './changes.js';
import { bornIn, scopeOf, withinScope } from './channel-scope.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import type { Create } from './kinds/agent-create.js';
import { agentDelete } from './kinds/agent-delete.js';
import { changeKind, KIND, subjectOf } from './kinds/index.js';
import type { ReadOptions } from './lists.js';
import { unknownLocale } from './locales.js';
import { readsTags, tagFilter, tagsMatch } from './number-filter.js';
import { type ListedIn, type Page, type PageRequest, pageOf } from './pages.js';
import { mayRequest } from './policies.js';
import { type Actor, type Failure, fail, type Result } from './types.js';
import { validate } from './validate.js';

export interface AgentSummary {
  id: string;
  name: string;
  status: string;
  /** As given when the app created it; undefined for an agent created elsewhere. */
  language?: string;
  /** Numbers routed to the agent, from the app's own routing records. */
  numbers: readonly string[];
  /** Its labels and owning team, where it has any. */
  tags?: Tags;
}

/** Which agents a listing shows. It travels in buttons, hence a schema. */
export const agentFilter = tagFilter.extend({
  /** Found anywhere in the name, whatever its case. */
  text: z.string().optional(),
});
export type AgentFilter = z.infer<typeof agentFilter>;

export type AgentsPage = Page<AgentSummary, AgentFilter>;

/** A page of agents, in the provider's order, each with the numbers that route to it. */
export async function listAgents(
  deps: OpsDeps,
  request: PageRequest & ReadOptions & ListedIn & { filter?: AgentFilter },
): Promise<Result<{ page: AgentsPage }>> {
  const filter = request.filter ?? {};
  let agents: Agent[];
  try {
    agents = await deps.lists.agents.get(request);
  } catch (error) {
    return providerFailure(error);
  }
  const text = filter.text?.toLowerCase();
  const tagged = readsTags(filter) ? await deps.store.tags.all() : undefined;
  const scope = await scopeOf(deps, request.channelId);
  const picked = agents.filter(
    (agent) =>
      (!text || agent.name.toLowerCase().includes(text)) && (!tagged || tagsMatch(filter, tagged.get(agent.id))),
  );
  const page = {
    ...pageOf(await withinScope(deps, scope, picked, (agent) => agent.id), request, filter),
    ...(scope ? { scope } : {}),
  };
  const records = await deps.store.routes.ofAgents(page.items.map((agent) => agent.id));
  const items = page.items.map((agent) => ({
    ...agent,
    language: records.get(agent.id)?.language,
    numbers: records.get(agent.id)?.numbers ?? [],
    tags: records.get(agent.id)?.tags,
  }));
  return { ok: true, page: { ...page, items } };
}

/** An agent asked for, refused as its creation would be: the caller's role and channel, its name, its language. */
export async function agentRequestChecked(
  deps: OpsDeps,
  actor: Actor,
  input: { name: string; language: string },
  correlationId: string,
): Promise<{ ok: true; value: { name: string; language: string } } | Failure> {
  const denied = await mayRequest(deps, actor, { action: KIND.createAgent, correlationId });
  if (denied) return denied;
  const checked = validate(createAgentRequest, input);
  if (!checked.ok) return checked;
  return unknownLocale(checked.value.language) ?? checked;
}

/** Creates an agent at once (it spends nothing); the token in the result is for the requester's eyes only. */
export async function createAgent(
  deps: OpsDeps,
  actor: Actor,
  input: { name: string; language: string },
  correlationId: string,
): Promise<Result<Done>> {
  const checked = await agentRequestChecked(deps, actor, input, correlationId);
  if (!checked.ok) return checked;
  const params = checked.value;
  await record(deps, actor, correlationId, { action: KIND.createAgent, outcome: 'requested', params });
  // Names are not unique: the agents of this name now tell a lost answer's creation from the ones before it.
  const namedBefore = await deps.provider
    .listAgents()
    .then((agents) => agents.filter((agent) => agent.name === params.name).map((agent) => agent.id))
    .catch(providerFailure);
  if (!Array.isArray(namedBefore)) return namedBefore; // audited as failed by `attempt`
  const asked: Create = { kind: KIND.createAgent, name: params.name, language: params.language, namedBefore };
  const intent = bornIn(await deps.settings.current(), actor, asked);
  return carryOut(deps, actor, correlationId, changeKind(KIND.createAgent).work(deps, intent, actor.userId));
}

/** Audits an agent token that no private route could show its creator: nobody has it now. */
export function recordUndeliveredToken(deps: OpsDeps, actor: Actor, done: Done, why: string): Promise<void> {
  return record(deps, actor, done.correlationId, {
    action: 'agent.token',
    outcome: 'failed',
    target: subjectOf(done.change),
    error: fail('undelivered', `The agent token reached no one: ${why}`),
  });
}

/** Numbers named, each with its Map button, when a deletion is refused. */
export const IN_USE_SHOWN = 10;

export type { AgentInUse, Asked as DeleteRequest } from './changes.js';

/**
 * Asks to delete an agent. One that numbers still route to (by the app's routing records) is refused at once, and
 * audited: the provider would refuse it after the confirmation, and the API has no way to unroute a number.
 */
export async function requestDeleteAgent(
  deps: OpsDeps,
  actor: Actor,
  agentId: string,
  correlationId: string,
  undoes?: string,
): Promise<Asked> {
  const denied = await mayRequest(deps, actor, { action: KIND.deleteAgent, target: agentId, correlationId });
  if (denied) return denied;
  const checked = validate(resourceId, agentId);
  if (!checked.ok) return { ...checked, field: 'agent_id', message: `Agent id ${checked.message}` };
  let found: Result<{ agent: Agent }>;
  try {
    found = oneAgentIn(await deps.lists.agents.get({ fresh: true }), checked.value);
  } catch (error) {
    return providerFailure(error);
  }
  if (!found.ok) return found;
  const { agent } = found;
  const routed = (await deps.store.routes.forAgent(agent.id)).map((route) => route.phoneNumber);
  if (routed.length) {
    const inUse = {
      agent: { id: agent.id, name: agent.name },
      numbers: routed.slice(0, IN_USE_SHOWN),
      total: routed.length,
    };
    await record(deps, actor, correlationId, {
      action: KIND.deleteAgent,
      outcome: 'rejected',
      target: agent.id,
      params: { name: agent.name, routedNumbers: routed.length },
      error: fail('conflict', inUseSentence(inUse), { code: 'agent_in_use' }),
    });
    return { ok: true, status: 'in_use', inUse };
  }
  const change = { kind: KIND.deleteAgent, agentId: agent.id, agentName: agent.name, ...(undoes ? { undoes } : {}) };
  const asked = await requestConfirmation(deps, actor, correlationId, change);
  return asked.ok ? { ok: true, status: 'needs_confirmation', prompt: asked.prompt } : asked;
}

// An agent's deletion asked for on its own (an Undo's) is checked as one asked for by hand.
askAs(agentDelete, (deps, actor, change, correlationId) =>
  requestDeleteAgent(deps, actor, change.agentId, correlationId, change.undoes),
);

/** "Support bot (agt_1) cannot be deleted: 3 numbers still route to it." */
function inUseSentence(inUse: AgentInUse): string {
  const route = inUse.total === 1 ? 'routes' : 'route';
  return `${inUse.agent.name} (${inUse.agent.id}) cannot be deleted: ${counted(inUse.total, 'number')} still ${route} to it.`;
}
