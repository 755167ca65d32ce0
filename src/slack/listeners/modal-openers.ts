import type { SlackDeps } from '../flows.js';
import { modalSurface } from '../surfaces.js';
import { mapModal } from '../views/modals.js';

/** The map form needs the purchased numbers and the agents: it opens loading and fills in when they arrive. */
export async function openMapModal(
  deps: SlackDeps,
  input: { triggerId: string; initialNumber?: string; metadata: string; push?: boolean },
): Promise<void> {
  const surface = await modalSurface(deps.client, {
    triggerId: input.triggerId,
    title: 'Map a number',
    push: input.push,
    now: deps.now,
  });
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
