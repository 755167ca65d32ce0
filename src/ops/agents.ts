import { ProviderError } from '../provider/errors.js';
import { mayHaveTakenEffect } from '../provider/index.js';
import { type CreatedAgent, createAgentRequest, EXPECTED_STATUS, resourceId } from '../provider/schemas.js';
import { carryOut, type Done, type Work } from './carry-out.js';
import type { ConfirmationPrompt, PendingChange } from './changes.js';
import { requestConfirmation } from './confirmations.js';
import { type OpsDeps, providerFailure, record, unexpectedStatus } from './context.js';
import { mayRequest } from './policies.js';
import { type Actor, fail, type Result } from './types.js';
import { validate } from './validate.js';

export interface AgentSummary {
  id: string;
  name: string;
  status: string;
  /** Numbers routed to the agent, from the app's own routing records. */
  numbers: string[];
}

export async function listAgents(deps: OpsDeps): Promise<Result<{ agents: AgentSummary[] }>> {
  try {
    const agents = await deps.provider.listAgents();
    const agentsWithNumbers = agents.map((agent) => ({
      ...agent,
      numbers: deps.routes.forAgent(agent.id).map((route) => route.phoneNumber),
    }));
    return { ok: true, agents: agentsWithNumbers };
  } catch (error) {
    return providerFailure(error);
  }
}

/** Creates an agent at once (it spends nothing); the token in the result is for the requester's eyes only. */
export async function createAgent(
  deps: OpsDeps,
  actor: Actor,
  input: { name: string; language: string },
  correlationId: string,
): Promise<Result<Done>> {
  const denied = await mayRequest(deps, actor, 'operator', { action: 'agent.create', correlationId });
  if (denied) return denied;
  const checked = validate(createAgentRequest, input);
  if (!checked.ok) return checked;
  const params = checked.value;
  record(deps, actor, correlationId, { action: 'agent.create', outcome: 'requested', params });
  return carryOut(deps, actor, correlationId, {
    action: 'agent.create',
    params,
    intent: { kind: 'agent.create', name: params.name, language: params.language },
    lockKeys: [],
    run: async () => {
      let agent: CreatedAgent;
      try {
        agent = await deps.provider.createAgent(params);
      } catch (error) {
        if (!(error instanceof ProviderError) || !mayHaveTakenEffect(error)) throw error;
        // Unlike a buy, a creation cannot be verified (names are not unique), and trying again blindly makes two.
        const what = error.status === undefined ? error.kind : `${error.kind}, HTTP ${error.status}`;
        return fail(
          'provider',
          `The provider's answer to creating agent "${params.name}" was lost (${what}): it may have been created ` +
            'all the same. Check /voice agents before trying again; if it is listed, its token was lost with the ' +
            'answer, so delete it and create it again.',
          { providerKind: error.kind },
        );
      }
      if (agent.status !== EXPECTED_STATUS.agentCreated) {
        return unexpectedStatus('the agent creation', EXPECTED_STATUS.agentCreated, agent.status);
      }
      return {
        ok: true,
        change: { action: 'agent.create', agent: { id: agent.id, name: agent.name, language: params.language } },
        createdAgent: agent,
      };
    },
  });
}

export async function requestDeleteAgent(
  deps: OpsDeps,
  actor: Actor,
  agentId: string,
  correlationId: string,
): Promise<Result<{ prompt: ConfirmationPrompt }>> {
  const denied = await mayRequest(deps, actor, 'admin', { action: 'agent.delete', target: agentId, correlationId });
  if (denied) return denied;
  const checked = validate(resourceId, agentId);
  if (!checked.ok) return { ...checked, field: 'agent_id', message: `Agent id ${checked.message}` };
  const listed = await listAgents(deps);
  if (!listed.ok) return listed;
  const agent = listed.agents.find((candidate) => candidate.id === checked.value);
  if (!agent) return fail('not_found', `No agent has the id ${checked.value}: /voice agents lists them.`);
  return requestConfirmation(deps, actor, correlationId, {
    kind: 'agent.delete',
    agentId: agent.id,
    agentName: agent.name,
    routedNumbers: agent.numbers,
  });
}

export function deleteAgentWork(deps: OpsDeps, change: Extract<PendingChange, { kind: 'agent.delete' }>): Work {
  return {
    action: 'agent.delete',
    target: change.agentId,
    params: { name: change.agentName },
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
      deps.routes.removeAgent(change.agentId);
      return { ok: true, change: { action: 'agent.delete', agent: { id: change.agentId, name: change.agentName } } };
    },
  };
}
