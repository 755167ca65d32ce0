// Asking for confirmation, the first half of a confirmed change. Its own module, so that the use cases that ask
// (buy, release, delete, re-route) and confirm(), which runs their work once confirmed, import in one direction.
import type { Settings } from '../settings-schema.js';
import type { Confirmation } from '../store/confirmations.js';
import type { StoredChange } from '../store/records.js';
import { record } from './audit-rows.js';
import type { Asked, ConfirmationPrompt, PendingChange } from './changes.js';
import { bornIn, refuseOutsideScope } from './channel-scope.js';
import type { OpsDeps } from './deps.js';
import { type Change, type ChangeKind, changeKind, isKind, targetOf, touchedBy } from './kinds/index.js';
import { refuseGivingAway, refuseOutsideReach } from './ownership.js';
import { mayRequest, typedConfirmation } from './policies.js';
import { type Actor, fail, type Result } from './types.js';
import { visible } from './visible.js';

/** Stores a change that waits for the requester's Confirm, and audits the request. */
export async function requestConfirmation(
  deps: OpsDeps,
  actor: Actor,
  correlationId: string,
  asked: PendingChange,
): Promise<Result<{ prompt: ConfirmationPrompt }>> {
  // The change as resolved (a release asked by the number's id, say) is what its owners and scope are read for.
  const settings = await deps.settings.current();
  const change = bornIn(settings, actor, asked);
  const attempt = { action: change.kind, target: targetOf(change), correlationId };
  const refused =
    (await refuseOutsideReach(deps, settings, actor, touchedBy(change), attempt)) ??
    (await refuseOutsideScope(deps, settings, actor, touchedBy(change), attempt)) ??
    (await refuseGivingAway(deps, settings, actor, change, attempt));
  if (refused) return refused;
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
  return { ok: true, prompt: promptOf(settings, confirmation, change) };
}

/**
 * Asks for a change its kind's record describes in full, rather than a command's words: checked against its kind's
 * shape, then by its kind's role and the guardrails, then confirmed like any other.
 */
export async function requestChange(
  deps: OpsDeps,
  actor: Actor,
  change: PendingChange,
  correlationId: string,
): Promise<Result<{ prompt: ConfirmationPrompt }>> {
  const kind = isKind(change.kind) ? changeKind(change.kind) : undefined;
  if (!kind?.confirm)
    return fail('invalid', `${visible(change.kind)} is no kind of change that waits for confirmation.`);
  const checked = kind.record.safeParse(change);
  if (!checked.success) return fail('invalid', `That is not a change of kind ${kind.name}: ${checked.error.message}`);
  const target = kind.target(checked.data);
  const denied = await mayRequest(deps, actor, { action: kind.name, target, correlationId });
  if (denied) return denied;
  return requestConfirmation(deps, actor, correlationId, checked.data);
}

type Ask<R> = (deps: OpsDeps, actor: Actor, change: R, correlationId: string) => Promise<Asked>;
const asks = new Map<string, Ask<StoredChange>>();

/** How one change of a kind is asked for on its own, when its use case checks more than its record and role. */
export function askAs<R extends StoredChange>(kind: Pick<ChangeKind<R, Change>, 'name' | 'record'>, ask: Ask<R>): void {
  asks.set(kind.name, ask as Ask<StoredChange>);
}

/** One change asked for on its own: as its kind's use case asks (see askAs), or as any change described in full. */
export async function askOne(deps: OpsDeps, actor: Actor, change: StoredChange, correlationId: string): Promise<Asked> {
  const ask = asks.get(change.kind);
  if (ask) return ask(deps, actor, change, correlationId);
  const asked = await requestChange(deps, actor, change, correlationId);
  return asked.ok ? { ok: true, status: 'needs_confirmation', prompt: asked.prompt } : asked;
}

/** What the requester is shown: a Confirm button, or for a change that silences a live line, what to type. */
export function promptOf(settings: Settings, confirmation: Confirmation, change: PendingChange): ConfirmationPrompt {
  const prompt = { confirmationId: confirmation.id, expiresAt: confirmation.expiresAt, change };
  const typed = typedConfirmation(settings, change);
  return typed ? { ...prompt, mustType: typed.prompt } : prompt;
}
