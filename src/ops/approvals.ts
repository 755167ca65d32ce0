import { counted } from '../counts.js';
import { approvalsChannelOf, type Settings } from '../settings-schema.js';
import type { Approval } from '../store/approvals.js';
import type { AuditAction } from '../store/audit.js';
import type { ItemCounts } from '../store/batches.js';
import type { ApprovableChange, BatchApproval } from '../store/records.js';
import { record } from './audit-rows.js';
import { batchAction } from './bulk-plans.js';
import { carryOutClaimed, type Done, openIntent } from './carry-out.js';
import type { OpsDeps } from './deps.js';
import { targetOf, touchedBy, workFor } from './kinds/index.js';
import { buyLimitsApply, mayApprove, refuseOverBuyLimitAtClaim } from './policies.js';
import { atomically } from './transactions.js';
import { type Actor, type Failure, fail, type OnProgress, type Result } from './types.js';

/** Whether the approval is of a bulk plan as a whole. */
export const isBatch = (change: ApprovableChange): change is BatchApproval => change.kind === 'batch';

/** The name of the kind of change an approval decides on (a bulk one's included), for its role and its audit rows. */
export const kindNameOf = (change: ApprovableChange): string => (isBatch(change) ? change.bulk : change.kind);

const actionOf = (change: ApprovableChange): AuditAction =>
  isBatch(change) ? batchAction(change.bulk) : kindNameOf(change);

const subjectOf = (change: ApprovableChange): string | undefined =>
  isBatch(change) ? counted(change.total, 'number') : targetOf(change);

/** A change waiting for approval, as the Slack layer shows it. */
export interface ApprovalRequest {
  approvalId: string;
  correlationId: string;
  change: ApprovableChange;
  requester: Actor;
  expiresAt: string;
  /** How long it was open to a decision, in hours, as the settings said when it was asked. */
  hoursOpen: number;
  /** Where the request is posted (the approvals channel, else the announcements channel), and its message once posted. */
  channelId?: string;
  messageTs?: string;
  decidedBy?: string;
  /** The key that locks the rule the change waits by (`VOICE_REQUIRE_APPROVAL`); none when admins set it in Slack. */
  rule?: string;
}

export interface AwaitingApproval {
  awaitingApproval: ApprovalRequest;
}

/** An approved bulk plan, applied on its requester's behalf: how it ended. */
type BatchOutcome = Result<{ batchId: string }>;

export type Decision =
  | { decision: 'approved'; request: ApprovalRequest; result: Result<Done> | BatchOutcome }
  | { decision: 'rejected'; request: ApprovalRequest };

/** Told after each item of an approved batch, to show its progress where it was approved. */
export type OnBatchProgress = (batchId: string, counts: ItemCounts) => void;

/** Runs (or, rejected or expired, closes) a bulk plan once its approval is decided; see batches.ts. */
export interface BatchDecisions {
  apply(requester: Actor, batchId: string, onProgress: OnProgress): Promise<BatchOutcome>;
  close(requester: Actor, batchId: string, outcome: 'rejected' | 'expired'): Promise<void>;
}

/** A request for approval as the Slack layer shows it: where it was posted, else where it is to be asked. */
async function requestOf(deps: OpsDeps, approval: Approval): Promise<ApprovalRequest> {
  return {
    approvalId: approval.id,
    correlationId: approval.correlationId,
    change: approval.change,
    requester: approval.requester,
    expiresAt: approval.expiresAt,
    hoursOpen: hoursOpen(approval),
    channelId: approval.channelId ?? approvalsChannelOf(await deps.settings.current()),
    messageTs: approval.messageTs,
    decidedBy: approval.decidedBy,
    rule: deps.settings.lockedBy('requireApproval')?.key,
  };
}

/** Stores the wait, to be called in the transaction that claims the requester's confirmation. */
export function awaitApproval(
  deps: OpsDeps,
  settings: Settings,
  requester: Actor,
  correlationId: string,
  change: ApprovableChange,
): Promise<Approval> {
  const { replyAddress: _replyAddress, ...who } = requester;
  const ttlMs = settings.approvalTtlHours * HOUR_MS;
  return deps.store.approvals.create({ correlationId, change, requester: who, ttlMs });
}

/** Audits that the change now waits, and says for whom. */
export async function recordAwaiting(
  deps: OpsDeps,
  requester: Actor,
  approval: Approval,
  change: ApprovableChange,
): Promise<Result<AwaitingApproval>> {
  const request = await requestOf(deps, approval);
  await record(deps, requester, approval.correlationId, {
    action: actionOf(change),
    outcome: 'awaiting_approval',
    target: subjectOf(change),
    params: { approvalId: approval.id, channel: request.channelId, expiresAt: approval.expiresAt },
  });
  return { ok: true, awaitingApproval: request };
}

export function approvalPosted(deps: OpsDeps, approvalId: string, channelId: string, ts: string): Promise<void> {
  return deps.store.approvals.posted(approvalId, channelId, ts);
}

/**
 * Approves or rejects a waiting change. Who may is checked at the click, before the claim; an approval then makes
 * the change, once, on behalf of its requester.
 */
export async function decide(
  deps: OpsDeps,
  batches: BatchDecisions,
  approver: Actor,
  approvalId: string,
  verdict: 'approve' | 'reject',
  onBatchProgress: OnBatchProgress = () => {},
): Promise<Result<Decision>> {
  const approval = await deps.store.approvals.get(approvalId);
  if (!approval) return fail('not_found', 'That request for approval does not exist.');
  const request = await requestOf(deps, approval);
  const { change, requester, correlationId } = request;
  const attempt = { action: actionOf(change), target: subjectOf(change), correlationId };
  const settings = await deps.settings.current();
  if (approval.state === 'pending') {
    const touched = isBatch(change)
      ? (await deps.store.batches.itemsIn(change.batchId, ['pending'])).flatMap((item) => touchedBy(item.change))
      : touchedBy(change);
    const refused = await mayApprove(deps, settings, approver, requester.userId, kindNameOf(change), attempt, touched);
    if (refused) return refused;
  }
  const to = verdict === 'approve' ? 'approved' : 'rejected';
  const decided = await atomically(deps, async (deps): Promise<Approval | Failure | undefined> => {
    // A bulk buy checks the buy limits when its batch starts, for all of its items (see batches.ts).
    const single = isBatch(change) ? undefined : change;
    if (single && to === 'approved' && buyLimitsApply(settings, single)) {
      const current = await deps.store.approvals.get(approvalId);
      const open = current?.state === 'pending' && current.expiresAt > deps.now().toISOString();
      const overLimit = open ? await refuseOverBuyLimitAtClaim(deps, settings, requester, single, attempt) : undefined;
      if (overLimit) return overLimit;
    }
    const claimed = await deps.store.approvals.decide(approvalId, to, approver.userId);
    if (claimed && single && to === 'approved') await openIntent(deps, requester, correlationId, single);
    return claimed;
  });
  if (decided === undefined) return undecidable(deps, approvalId);
  if ('ok' in decided) return decided;
  // Committed with the decision: whatever happens next, the reconciler settles it.
  if (!isBatch(change) && to === 'approved') deps.delivery?.noteIntentOpened();
  await record(deps, approver, correlationId, {
    action: attempt.action,
    outcome: to,
    target: attempt.target,
    params: { approvalId, requestedBy: requester.userId },
  });
  const settled = { ...request, decidedBy: approver.userId };
  if (to === 'rejected') {
    if (isBatch(change)) await batches.close(requester, change.batchId, 'rejected');
    return { ok: true, decision: 'rejected', request: settled };
  }
  const result = isBatch(change)
    ? await batches.apply(requester, change.batchId, (counts) => onBatchProgress(change.batchId, counts))
    : await carryOutClaimed(deps, requester, correlationId, workFor(deps, change, requester.userId));
  return { ok: true, decision: 'approved', request: settled, result };
}

const HOUR_MS = 60 * 60 * 1000;

/** How long a request for approval was open to a decision, as the settings said when it was asked. */
const hoursOpen = (approval: Approval): number =>
  Math.round((Date.parse(approval.expiresAt) - Date.parse(approval.createdAt)) / HOUR_MS);

/** Why a decision found nothing to decide: someone decided first, or its time is up. */
async function undecidable(deps: OpsDeps, approvalId: string): Promise<Failure> {
  const approval = await deps.store.approvals.get(approvalId);
  if (approval?.state === 'approved' || approval?.state === 'rejected') {
    const by = approval.decidedBy;
    return fail('already_used', `That change was already ${approval.state} by ${by ?? 'someone'}.`, {
      said: [`That change was already ${approval.state} by `, by ? { member: by } : 'someone', '.'],
    });
  }
  const hours = approval ? hoursOpen(approval) : undefined;
  return fail(
    'expired',
    `That request for approval expired${hours ? ` (after ${counted(hours, 'hour')})` : ''}: nothing was changed. ` +
      'The requester can ask again.',
  );
}

/** Ends the requests nobody decided in time, each audited as expired once; returns them to be told. */
export async function expireApprovals(deps: OpsDeps, batches: BatchDecisions): Promise<ApprovalRequest[]> {
  const requests: ApprovalRequest[] = [];
  for (const approval of await deps.store.approvals.expireDue()) {
    const request = await requestOf(deps, approval);
    const { change } = request;
    const system: Actor = { ...request.requester, source: 'system' };
    if (isBatch(change)) await batches.close(system, change.batchId, 'expired');
    await record(deps, system, approval.correlationId, {
      action: actionOf(change),
      outcome: 'expired',
      target: subjectOf(change),
      params: { approvalId: approval.id, afterHours: hoursOpen(approval) },
    });
    requests.push(request);
  }
  return requests;
}
