import { type Actor, fail, visible } from '../../ops/api.js';
import { slackErrorCode } from '../clients.js';
import type { SlackDeps } from '../deps.js';
import { modalContext, tellFormFailed } from '../flows.js';
import { encodeValue } from '../paging.js';
import type { Respond } from '../respond.js';
import { modalSurface, type Surface, updatingSurface } from '../surfaces.js';
import { mapModal } from '../views/modals.js';
import { routeNumbersModal } from '../views/routing-plan.js';

/** Opens loading, and fills in once the provider's lists say there is something to map. */
export async function openMapModal(
  deps: SlackDeps,
  actor: Actor,
  input: {
    triggerId: string;
    initialNumber?: string;
    initialAgentId?: string;
    metadata: string;
    push?: boolean;
    /** A modal of the person's to become the form (a map's result, offering the next map), instead of a new one. */
    replaceViewId?: string;
    reply: Respond;
  },
): Promise<void> {
  const title = 'Map a number';
  let surface: Surface;
  try {
    surface = input.replaceViewId
      ? updatingSurface(modalContext(deps, actor), input.replaceViewId, title)
      : await modalSurface(modalContext(deps, actor), { triggerId: input.triggerId, title, push: input.push });
  } catch (error) {
    return tellFormFailed(deps, input.reply, slackErrorCode(error), '/voice map NUMBER AGENT_ID');
  }
  const form = await deps.ops.mapFormData({ number: input.initialNumber, agentId: input.initialAgentId });
  if (!form.ok) return surface.show({ kind: 'failure', failure: form });
  const view = mapModal({
    numbers: form.numbers,
    agents: form.agents,
    initial: form.initial,
    initialAgent: form.initialAgent,
    notOurs: input.initialNumber !== undefined && !form.initial ? input.initialNumber : undefined,
    privateMetadata: input.metadata,
  });
  await surface.show({ kind: 'modal', view });
}

/** The form that routes several numbers to one agent, named in it: opened loading, and filled in once it is found. */
export async function openRouteNumbersModal(
  deps: SlackDeps,
  actor: Actor,
  input: { triggerId: string; agentId: string; reply: Respond },
): Promise<void> {
  const title = 'Route numbers';
  let surface: Surface;
  try {
    surface = await modalSurface(modalContext(deps, actor), { triggerId: input.triggerId, title });
  } catch (error) {
    return tellFormFailed(deps, input.reply, slackErrorCode(error), `/voice map NUMBER ${input.agentId}`);
  }
  const form = await deps.ops.mapFormData({ agentId: input.agentId });
  if (!form.ok) return surface.show({ kind: 'failure', failure: form });
  if (!form.initialAgent) {
    const gone = fail('not_found', `No agent has the id ${visible(input.agentId)} any more: /voice agents lists them.`);
    return surface.show({ kind: 'failure', failure: gone });
  }
  const metadata = encodeValue({ agentId: input.agentId, channelId: actor.channelId });
  await surface.show({ kind: 'modal', view: routeNumbersModal(form.initialAgent, form.numbers, metadata) });
}
