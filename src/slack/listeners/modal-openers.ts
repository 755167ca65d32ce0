import type { Actor } from '../../ops/index.js';
import { slackErrorCode } from '../clients.js';
import { modalContext, type SlackDeps, tellFormFailed } from '../flows.js';
import type { Respond } from '../respond.js';
import { modalSurface, type Surface } from '../surfaces.js';
import { LIMITS } from '../views/blocks.js';
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
  const first = { page: 1, size: LIMITS.selectOptions };
  const [numbers, agents] = await Promise.all([deps.ops.listNumbers(first), deps.ops.listAgents(first)]);
  if (!numbers.ok) return surface.show({ kind: 'failure', failure: numbers });
  if (!agents.ok) return surface.show({ kind: 'failure', failure: agents });
  const view = mapModal({
    numbers: numbers.page.items,
    agents: agents.page.items,
    initialNumber: input.initialNumber,
    privateMetadata: input.metadata,
  });
  await surface.show({ kind: 'modal', view });
}
