import type { Actor } from '../../ops/index.js';
import { slackErrorCode } from '../clients.js';
import { modalContext, type SlackDeps, tellFormFailed } from '../flows.js';
import type { Respond } from '../respond.js';
import { modalSurface, type Surface } from '../surfaces.js';
import { mapModal } from '../views/modals.js';

/** The map form needs the purchased numbers and the agents: it opens loading and fills in when they arrive. */
export async function openMapModal(
  deps: SlackDeps,
  actor: Actor,
  input: { triggerId: string; initialNumber?: string; metadata: string; push?: boolean; reply: Respond },
): Promise<void> {
  let surface: Surface;
  try {
    surface = await modalSurface(modalContext(deps, actor), {
      triggerId: input.triggerId,
      title: 'Map a number',
      push: input.push,
    });
  } catch (error) {
    return tellFormFailed(deps, input.reply, slackErrorCode(error), '/voice map NUMBER AGENT_ID');
  }
  const dashboard = await deps.ops.dashboard();
  if (!dashboard.ok) return surface.show({ kind: 'failure', failure: dashboard });
  const view = mapModal({
    numbers: dashboard.numbers,
    agents: dashboard.agents,
    initialNumber: input.initialNumber,
    privateMetadata: input.metadata,
  });
  await surface.show({ kind: 'modal', view });
}
