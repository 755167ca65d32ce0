// Asking for confirmation, the first half of a confirmed change. Its own module, so that the use cases that ask
// (buy, release, delete, re-route) and confirm(), which runs their work once confirmed, import in one direction.
import type { Confirmation } from '../store/confirmations.js';
import type { ConfirmationPrompt, PendingChange } from './changes.js';
import { record } from './context.js';
import type { OpsDeps } from './deps.js';
import { targetOf } from './kinds/index.js';
import { typedConfirmation } from './policies.js';
import type { Actor, Result } from './types.js';

/** Stores a change that waits for the requester's Confirm, and audits the request. */
export async function requestConfirmation(
  deps: OpsDeps,
  actor: Actor,
  correlationId: string,
  change: PendingChange,
): Promise<Result<{ prompt: ConfirmationPrompt }>> {
  const confirmation = await deps.store.confirmations.create({
    change,
    requestedBy: actor.userId,
    correlationId,
    context: { channelId: actor.channelId, teamId: actor.teamId, enterpriseId: actor.enterpriseId },
  });
  await record(deps, actor, correlationId, {
    action: change.kind,
    outcome: 'requested',
    target: targetOf(change),
    params: change,
  });
  return { ok: true, prompt: promptOf(deps, confirmation, change) };
}

/** What the requester is shown: a Confirm button, or for a change that silences a live line, what to type. */
export function promptOf(deps: OpsDeps, confirmation: Confirmation, change: PendingChange): ConfirmationPrompt {
  const prompt = { confirmationId: confirmation.id, expiresAt: confirmation.expiresAt, change };
  const typed = typedConfirmation(deps, change);
  return typed ? { ...prompt, mustType: typed.prompt } : prompt;
}
