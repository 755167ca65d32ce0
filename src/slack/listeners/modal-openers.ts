import type { Actor } from '../../ops/index.js';
import { slackErrorCode } from '../clients.js';
import { modalContext, type SlackDeps, tellFormFailed } from '../flows.js';
import type { Respond } from '../respond.js';
import { modalSurface, type Surface } from '../surfaces.js';
import { mapModal } from '../views/modals.js';

/**
 * The map form opens loading and fills in once the provider's lists say there is something to map (and where the
 * number asked for stands); its pickers are type-ahead, answered by the options listener.
 */
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
  const form = await deps.ops.mapFormData(input.initialNumber);
  if (!form.ok) return surface.show({ kind: 'failure', failure: form });
  const view = mapModal({
    numbers: form.numbers,
    agents: form.agents,
    initial: form.initial,
    notOurs: input.initialNumber !== undefined && !form.initial ? input.initialNumber : undefined,
    privateMetadata: input.metadata,
  });
  await surface.show({ kind: 'modal', view });
}
