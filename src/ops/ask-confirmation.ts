// Asking for confirmation, the first half of a confirmed change. Its own module, so that the use cases that ask
// (buy, release, delete, re-route) and confirm(), which runs their work once confirmed, import in one direction.
import { type ConfirmationPrompt, type PendingChange, targetOf } from './changes.js';
import { type OpsDeps, record } from './context.js';
import type { Actor, Result } from './types.js';

/** Stores a change that waits for the requester's Confirm, and audits the request. */
export function requestConfirmation(
  deps: OpsDeps,
  actor: Actor,
  correlationId: string,
  change: PendingChange,
): Result<{ prompt: ConfirmationPrompt }> {
  const confirmation = deps.confirmations.create({
    action: { kind: change.kind, params: change },
    requestedBy: actor.userId,
    correlationId,
    context: { channelId: actor.channelId, teamId: actor.teamId },
  });
  record(deps, actor, correlationId, {
    action: change.kind,
    outcome: 'requested',
    target: targetOf(change),
    params: change,
  });
  return {
    ok: true,
    prompt: { confirmationId: confirmation.id, expiresAt: confirmation.expiresAt, change },
  };
}
