// Undo, pressed under a finished change or batch: the plan of its inverse (or an agent's deletion to confirm), below
// the change it walks back, or why it cannot be walked back.
import type { UndoResult } from '../../ops/api.js';
import type { SlackDeps } from '../deps.js';
import { ACTION } from '../ids.js';
import type { ListenerRouter } from '../router.js';
import type { Answer } from '../surfaces.js';
import { agentInUseMessage } from '../views/agents.js';
import { undoPlanMessage } from '../views/batches.js';
import { requesterIn } from '../who-asked.js';
import { actorOf, type Body, chosenValue, surfaceFor } from './actions.js';

function undoAnswer(deps: SlackDeps, undone: UndoResult): Answer {
  if (!undone.ok) return { kind: 'failure', failure: undone };
  switch (undone.status) {
    case 'plan':
      return { kind: 'message', message: undoPlanMessage(undone.view, undone, deps.now()) };
    case 'needs_confirmation':
      return { kind: 'prompt', prompt: undone.prompt };
    case 'in_use':
      return { kind: 'message', message: agentInUseMessage(undone.inUse) };
  }
}

export function registerUndo(router: ListenerRouter): void {
  router.action<Body>(ACTION.undoChange, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const surface = await surfaceFor(deps, body, actor, 'Undo');
    await surface.show(undoAnswer(deps, await deps.ops.undo(actor, chosenValue(body))));
  });

  // The Undo planned again with the numbers changed since included, in place of the plan that left them out.
  router.action<Body>(ACTION.undoIncludingChanged, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const surface = await surfaceFor(deps, body, actor, 'Undo', { replace: true });
    await surface.show(undoAnswer(deps, await deps.ops.undo(actor, chosenValue(body), { includeChanged: true })));
  });
}
