// What became of a change whose answer was lost, or whose process died: read from the provider, by kind. A buy and a
// release against the purchased list, an agent's deletion against the agents list, an agent's creation against the
// agents of its name noted before it was sent, and a map sent once more (routing cannot be read, and the same map
// twice has one effect). The reconciler asks it of changes left open; a batch of the items it waited on.

import { agentsNamedSince } from '../provider/client.js';
import { ProviderError, type ProviderErrorKind } from '../provider/errors.js';
import type { Agent } from '../provider/schemas.js';
import type { Change } from './announcements.js';
import type { ChangeIntent } from './changes.js';
import { type OpsDeps, providerFailure } from './context.js';
import { type Failure, fail } from './types.js';

/** Said when a creation whose answer was lost is found in the agents list: created, but nobody has its token. */
export const tokenLostNote =
  "The provider's answer was lost, so the agent was found in the agents list instead (the one new agent of that " +
  'name, made by this request unless someone made one of the same name in the dashboard meanwhile): its token went ' +
  'with the answer and cannot be shown again. If you need the token, delete this agent and create it again.';

/** Failures of a map sent again that say nothing of whether it happened. */
const NOT_KNOWN = new Set<ProviderErrorKind>(['timeout', 'network', 'unavailable', 'rate_limited', 'withheld']);

/** What the provider shows became of a change: done (with what the requester should know), or not. */
export type Verified = { ok: true; change: Change; note?: string } | Failure;

/** The provider's current state, read at most once per pass and only when an intent needs it. */
export class ProviderReads {
  #numbers?: Promise<Map<string, string>>;
  #agents?: Promise<Agent[]>;

  constructor(private readonly deps: OpsDeps) {}

  numbers(): Promise<Map<string, string>> {
    this.#numbers ??= this.deps.provider
      .listPurchasedNumbers()
      .then((numbers) => new Map(numbers.map((entry) => [entry.number, entry.id])));
    return this.#numbers;
  }

  agents(): Promise<Agent[]> {
    this.#agents ??= this.deps.provider.listAgents();
    return this.#agents;
  }
}

/**
 * What the provider says became of the change. A provider that does not answer throws (its ProviderError): nothing is
 * known yet.
 */
export async function verifyChange(
  deps: OpsDeps,
  reads: ProviderReads,
  change: ChangeIntent,
  by: string,
): Promise<Verified> {
  switch (change.kind) {
    case 'number.buy': {
      const id = (await reads.numbers()).get(change.number);
      if (id === undefined) return fail('provider', `${change.number} was not bought: the provider does not have it.`);
      return { ok: true, change: { action: 'number.buy', number: { id, number: change.number } } };
    }
    case 'number.release': {
      if ((await reads.numbers()).has(change.number)) {
        return fail('provider', `${change.number} was not released: it is still one of your numbers.`);
      }
      await deps.store.routes.removeNumber(change.number);
      const number = { id: change.numberId, number: change.number };
      return { ok: true, change: { action: 'number.release', number, unroutedAgent: change.routedAgent } };
    }
    case 'agent.delete': {
      const agent = { id: change.agentId, name: change.agentName };
      if ((await reads.agents()).some((listed) => listed.id === change.agentId)) {
        return fail('provider', `Agent ${change.agentName} (${change.agentId}) was not deleted: it still exists.`);
      }
      return { ok: true, change: { action: 'agent.delete', agent } };
    }
    case 'routing.map':
      return remap(deps, change, by);
    case 'agent.create':
      return created(await reads.agents(), change);
  }
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
