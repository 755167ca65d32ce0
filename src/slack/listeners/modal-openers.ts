import type { Actor } from '../../ops/index.js';
import { slackErrorCode } from '../clients.js';
import type { SlackDeps } from '../deps.js';
import { modalContext, tellFormFailed } from '../flows.js';
import type { Respond } from '../respond.js';
import { modalSurface, type Surface, updatingSurface } from '../surfaces.js';
import { mapModal } from '../views/modals.js';

/**
 * The map form opens loading and fills in once the provider's lists say there is something to map (and where the
 * number asked for stands); its pickers are type-ahead, answered by the options listener.
 */
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
