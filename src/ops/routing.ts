import { phoneNumber, resourceId } from '../provider/schemas.js';
import { oneAgentIn } from './agent-names.js';
import { requestConfirmation } from './ask-confirmation.js';
import { record } from './audit-rows.js';
import { carryOut, type Done } from './carry-out.js';
import type { ConfirmationPrompt } from './changes.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import { KIND, workFor } from './kinds/index.js';
import type { Mapping } from './kinds/routing-map.js';
import { mayRequest, needsApproval } from './policies.js';
import { refuseImpossible } from './routing-text.js';
import { type Actor, fail, type Result } from './types.js';
import { validate } from './validate.js';
import { named, visible } from './visible.js';

/** What to do instead of removing a route, which the provider's API cannot do. */
export const NO_UNROUTE =
  'The provider cannot remove a route: to stop a number reaching an agent, route it to another agent, or release ' +
  'the number (admins).';

export type MapResult = Result<
  | { status: 'done'; done: Done }
  | { status: 'needs_confirmation'; prompt: ConfirmationPrompt }
  | { status: 'unchanged'; agentName: string }
>;

/**
 * Routes a purchased number to an agent. A number that already routes elsewhere needs confirmation,
 * because its callers will reach another agent.
 */
export async function mapNumber(
  deps: OpsDeps,
  actor: Actor,
  input: { phoneNumber: string; agentId: string },
  correlationId: string,
): Promise<MapResult> {
  const attempt = { action: KIND.map, target: input.phoneNumber, correlationId };
  const denied = await mayRequest(deps, actor, attempt, [input.phoneNumber, input.agentId]);
  if (denied) return denied;
  const number = validate(phoneNumber, input.phoneNumber);
  if (!number.ok)
    return { ...number, field: 'number', message: `${named('Number', input.phoneNumber)} ${number.message}` };
  const impossible = await refuseImpossible(number.value, 'map');
  if (impossible) return impossible;
  const agentId = validate(resourceId, input.agentId);
  if (!agentId.ok) return { ...agentId, field: 'agent', message: `Agent id ${agentId.message}` };

  let purchased: string[];
  let agents: { id: string; name: string }[];
  try {
    [purchased, agents] = await Promise.all([
      deps.lists.numbers.get({ fresh: true }).then((list) => list.map((entry) => entry.number)),
      deps.lists.agents.get({ fresh: true }),
    ]);
  } catch (error) {
    return providerFailure(error);
  }
  if (!purchased.includes(number.value)) {
    return fail('not_found', `${visible(number.value)} is not one of your numbers: buy it first.`, { field: 'number' });
  }
  const found = oneAgentIn(agents, agentId.value);
  if (!found.ok) return found;
  const { agent } = found;

  const current = await deps.store.routes.forNumber(number.value);
  if (current?.agentId === agent.id) {
    // Nothing to do, and an attempt all the same: audited as rejected, so that /voice audit shows it was asked.
    await record(deps, actor, correlationId, {
      action: KIND.map,
      outcome: 'rejected',
      target: number.value,
      params: { agentId: agent.id, agentName: agent.name },
      error: fail('conflict', `${number.value} already routes to ${agent.name}: nothing to change.`, {
        code: 'unchanged',
      }),
    });
    return { ok: true, status: 'unchanged', agentName: agent.name };
  }
  const change: Mapping = {
    kind: KIND.map,
    phoneNumber: number.value,
    agentId: agent.id,
    agentName: agent.name,
    previousAgent: current && { id: current.agentId, name: agents.find((a) => a.id === current.agentId)?.name },
  };
  // A re-route is confirmed (callers will reach another agent), and so is any map that waits for a second approver.
  if (current || needsApproval(await deps.settings.current(), change.kind)) {
    const asked = await requestConfirmation(deps, actor, correlationId, change);
    return asked.ok ? { ok: true, status: 'needs_confirmation', prompt: asked.prompt } : asked;
  }
  await record(deps, actor, correlationId, {
    action: KIND.map,
    outcome: 'requested',
    target: number.value,
    params: { agentId: agent.id, agentName: agent.name },
  });
  const done = await carryOut(deps, actor, correlationId, workFor(deps, change, actor.userId));
  return done.ok ? { ok: true, status: 'done', done } : done;
}
