import { z } from 'zod';
import type { Settings } from '../settings-schema.js';
import type { Approval } from '../store/approvals.js';
import type { ClaimResult, Confirmation } from '../store/confirmations.js';
import type { Intent } from '../store/intents.js';
import { type AwaitingApproval, awaitApproval, recordAwaiting } from './approvals.js';
import { promptOf } from './ask-confirmation.js';
import { deny, record } from './audit-rows.js';
import { carryOutClaimed, type Done, openIntent } from './carry-out.js';
import type { ConfirmationPrompt, PendingChange } from './changes.js';
import type { OpsDeps } from './deps.js';
import { targetOf, touchedBy, workFor } from './kinds/index.js';
import { refuseGivingAway } from './ownership.js';
import { buyLimitsApply, mayConfirm, needsApproval, refuseMistyped, refuseOverBuyLimitAtClaim } from './policies.js';
import { atomically } from './transactions.js';
import { type Actor, type Failure, fail, type Result } from './types.js';
import { recordUndoRow, undoesOf } from './undo-trail.js';

/** The prompt of a confirmation its requester can still confirm, e.g. to ask for a typed confirmation in a modal. */
export async function pendingPrompt(
  deps: OpsDeps,
  actor: Actor,
  confirmationId: string,
): Promise<ConfirmationPrompt | undefined> {
  const pending = await deps.store.confirmations.get(confirmationId);
  if (!pending || !claimable(deps, pending, actor)) return undefined;
  return promptOf(await deps.settings.current(), pending, pending.change);
}

/** Whether `typed` is what a pending confirmation asks to be typed; the failure is for the form's input. */
export async function checkTyped(
  deps: OpsDeps,
  actor: Actor,
  confirmationId: string,
  typed: string,
): Promise<Failure | undefined> {
  const pending = await deps.store.confirmations.get(confirmationId);
  if (!pending || !claimable(deps, pending, actor)) return undefined; // confirm() says why it cannot go ahead
  return refuseMistyped(await deps.settings.current(), pending.change, typed);
}

/**
 * The claim is atomic and single-use, so nothing makes the change happen twice. Workspace, role and channel are
 * checked before it, so that a refusal (or a group unreadable just then) leaves the confirmation usable.
 */
export async function confirm(
  deps: OpsDeps,
  actor: Actor,
  confirmationId: string,
  typed?: string,
): Promise<Result<Done | AwaitingApproval>> {
  const [pending, settings] = await Promise.all([
    deps.store.confirmations.get(confirmationId),
    deps.settings.current(),
  ]);
  if (pending?.state === 'pending' && pending.requestedBy === actor.userId) {
    // A change that silences a live line needs its typed confirmation: without it, nothing happens.
    const mistyped = refuseMistyped(settings, pending.change, typed);
    if (mistyped) return mistyped;
    const refused = await refuseBeforeClaim(deps, settings, asConfirmer(actor, pending), pending);
    if (refused) return refused;
  }
  // The claim and the change's intent are one transaction: a crash right after the claim still leaves a trace, and
  // the intent takes the change's slot under the buy limits checked just before, in the same transaction.
  // A change that needs a second person waits instead, its approval stored in the same transaction as the claim.
  let approval: Approval | undefined;
  const claim = await atomically(deps, async (deps): Promise<ClaimResult | Failure> => {
    // Under a buy limit, the last check of a buy is made on the confirmation as it stands inside the transaction.
    const current =
      pending && buyLimitsApply(settings, pending.change)
        ? await deps.store.confirmations.get(confirmationId)
        : undefined;
    const overLimit =
      current && claimable(deps, current, actor)
        ? await refuseOverBuyLimitAtClaim(
            deps,
            settings,
            asConfirmer(actor, current),
            current.change,
            attemptOf(current),
          )
        : undefined;
    if (overLimit) return overLimit;
    const claimed = await deps.store.confirmations.claim(confirmationId, actor.userId);
    if (claimed.status === 'claimed') {
      const { correlationId, change } = claimed.confirmation;
      const confirmer = asConfirmer(actor, claimed.confirmation);
      if (needsApproval(settings, change.kind))
        approval = await awaitApproval(deps, settings, confirmer, correlationId, change);
      else await openIntent(deps, confirmer, correlationId, change);
    }
    return claimed;
  });
  if ('ok' in claim) return claim;
  // Committed with the claim: whatever happens next, the reconciler settles it.
  if (claim.status === 'claimed' && !approval) deps.delivery?.noteIntentOpened();
  const settled = await settle(deps, actor, claim);
  if (!settled.ok) return settled;
  const { confirmation, change } = settled;
  const confirmer = asConfirmer(actor, confirmation);
  const target = targetOf(change);
  await record(deps, confirmer, confirmation.correlationId, { action: change.kind, outcome: 'confirmed', target });
  if (approval) return recordAwaiting(deps, confirmer, approval, change);
  return carryOutClaimed(deps, confirmer, confirmation.correlationId, workFor(deps, change, actor.userId));
}

/** Whether the claim could succeed now: the requester's, still pending, not expired. */
function claimable(deps: OpsDeps, confirmation: Confirmation, actor: Actor): boolean {
  return (
    confirmation.state === 'pending' &&
    confirmation.requestedBy === actor.userId &&
    Date.parse(confirmation.expiresAt) > deps.now().getTime()
  );
}

/** A confirmation's change as its audit rows name an attempt at it. */
const attemptOf = ({ change, correlationId }: Confirmation) => ({
  action: change.kind,
  target: targetOf(change),
  correlationId,
});

/** A confirmation modal knows no channel; the request it confirms does, and the audit keeps them together. */
function asConfirmer(actor: Actor, confirmation: Confirmation): Actor {
  const requestChannel = confirmation.context.channelId;
  return {
    ...actor,
    channelId: actor.channelId ?? (typeof requestChannel === 'string' ? requestChannel : undefined),
  };
}

const askedContext = z.object({ teamId: z.string().optional(), enterpriseId: z.string().optional() });

/** Where a confirmation was asked for; nothing for one stored without a workspace. */
function askedWhere(confirmation: Confirmation): z.infer<typeof askedContext> | undefined {
  const parsed = askedContext.safeParse(confirmation.context);
  return parsed.success && (parsed.data.teamId ?? parsed.data.enterpriseId) ? parsed.data : undefined;
}

/**
 * Whether a click comes from where the change was asked for. Across an Enterprise Grid org that is the org: a click
 * carries the user's home workspace, which need not be the workspace the command was typed in.
 */
function samePlace(asked: z.infer<typeof askedContext>, confirmer: Actor): boolean {
  if (asked.enterpriseId) return asked.enterpriseId === confirmer.enterpriseId;
  return asked.teamId === confirmer.teamId;
}

/** A confirmation is honoured only from the workspace that asked, and only while the role still holds. */
async function refuseBeforeClaim(
  deps: OpsDeps,
  settings: Settings,
  confirmer: Actor,
  confirmation: Confirmation,
): Promise<Failure | undefined> {
  const attempt = attemptOf(confirmation);
  const askedFrom = askedWhere(confirmation);
  if (askedFrom && !samePlace(askedFrom, confirmer)) {
    const failure = fail('wrong_team', 'This change was asked for in another workspace: confirm it there.');
    return deny(deps, confirmer, attempt, failure, { reason: 'other workspace', askedFrom });
  }
  // The role is checked again (it may have been taken away since the request), and the channel of the click.
  return (
    (await mayConfirm(deps, settings, confirmer, attempt.action, attempt, touchedBy(confirmation.change))) ??
    (await refuseGivingAway(deps, settings, confirmer, confirmation.change, attempt))
  );
}

export async function cancel(
  deps: OpsDeps,
  actor: Actor,
  confirmationId: string,
): Promise<Result<{ change: PendingChange }>> {
  const settled = await settle(deps, actor, await deps.store.confirmations.cancel(confirmationId, actor.userId));
  if (!settled.ok) return settled;
  const { confirmation, change } = settled;
  await record(deps, actor, confirmation.correlationId, {
    action: change.kind,
    outcome: 'cancelled',
    target: targetOf(change),
  });
  await recordUndoRow(deps, actor, confirmation.correlationId, undoesOf(change), { outcome: 'cancelled' });
  return { ok: true, change };
}

/** The confirmation and its change when this call won the claim; otherwise why not, audited where it matters. */
async function settle(
  deps: OpsDeps,
  actor: Actor,
  claim: ClaimResult,
): Promise<Result<{ confirmation: Confirmation; change: PendingChange }>> {
  if (claim.status === 'not_found') {
    return fail('not_found', 'That confirmation does not exist. Start again from the command.');
  }
  const { confirmation } = claim;
  const { change } = confirmation;
  const target = targetOf(change);
  switch (claim.status) {
    case 'claimed':
      return { ok: true, confirmation, change };
    case 'already_used': {
      const approval = await deps.store.approvals.forChange(confirmation.correlationId);
      if (approval?.state === 'pending') {
        return fail('already_used', 'That change is confirmed and waits for a second approver: nothing to do here.');
      }
      return fail('already_used', alreadyUsed(await deps.store.intents.get(confirmation.correlationId)));
    }
    case 'cancelled':
      return fail('cancelled', 'That change was cancelled. Start again from the command if you still want it.');
    case 'expired': {
      const failure = fail(
        'expired',
        'That confirmation expired (they last 10 minutes). Nothing was changed: start again.',
      );
      await record(deps, actor, confirmation.correlationId, {
        action: change.kind,
        outcome: 'expired',
        target,
        error: failure,
      });
      return failure;
    }
    case 'wrong_user': {
      const failure = fail('wrong_user', 'Only the person who asked for this change can confirm or cancel it.');
      return deny(deps, actor, attemptOf(confirmation), failure, { reason: 'not the requester' });
    }
  }
}

/** What became of a confirmation used before, from its change's intent: never a claim the change happened if not. */
function alreadyUsed(intent: Intent | undefined): string {
  if (intent?.outcome === 'succeeded')
    return 'That confirmation was already used: the change was made once, and only once.';
  if (intent?.outcome === 'failed') {
    return 'That confirmation was already used, and the change did not go through. Start again from the command.';
  }
  if (intent) return 'That change is under way. You will be told how it ended once the provider has answered.';
  return 'That confirmation was already used. /voice audit shows what became of it.';
}
