// Workflow Builder steps, as the operations see them. A step's execution is claimed once, tied to its change before
// that change exists, and ended in Slack once the change has ended, whoever ended it. This file alone decides when;
// the step's end is written only after Slack took it.
import type { Batch } from '../store/batches.js';
import { DEFAULT_CONFIRMATION_TTL_MS } from '../store/confirmations.js';
import type { StepRecord, StepStart } from '../store/workflow-steps.js';
import { createAgent } from './agents.js';
import { type ApprovalRequest, type Decision, decide, expireApprovals, type OnBatchProgress } from './approvals.js';
import { newCorrelationId, record } from './audit-rows.js';
import { type ApplyResult, applyBatch, batchDecisions, cancelPlan, type PlanResult, planBatch } from './batches.js';
import { type BulkRequest, batchAction } from './bulk-plans.js';
import type { Done } from './carry-out.js';
import type { OpsDeps } from './deps.js';
import { KIND, numberOf } from './kinds/index.js';
import { type AgentInput, ASK_EXPIRED, expireAsk } from './step-asks.js';
import type { StepEnding } from './step-ends.js';
import { atomically } from './transactions.js';
import type { Actor, OnProgress, Result } from './types.js';

export type { StepStart };

/** Claims a step execution: true the first time, so that the step acts once however often it is delivered. */
export const claimStep = (deps: OpsDeps, start: StepStart): Promise<boolean> => deps.store.steps.claim(start);

/** The step is tied to the plan's id first, so that a crash before the plan is stored still ends it (endingOf). */
export async function planForStep(
  deps: OpsDeps,
  actor: Actor,
  executionId: string,
  request: BulkRequest,
): Promise<PlanResult> {
  const batchId = newCorrelationId();
  await deps.store.steps.link(executionId, batchId);
  return planBatch(deps, actor, request, undefined, batchId);
}

/** Creates an agent, tied first to the step that asked for it if one did, so that a crash in between still ends it. */
export async function createAgentOfStep(
  deps: OpsDeps,
  actor: Actor,
  input: AgentInput,
  correlationId: string,
  executionId?: string,
): Promise<Result<Done>> {
  if (executionId) await deps.store.steps.link(executionId, correlationId);
  return createAgent(deps, actor, input, correlationId);
}

/** A click on a step's plan is audited as the step's, with its ids, and a Confirm names who confirmed. */
async function asItsStep(deps: OpsDeps, actor: Actor, batchId: string, confirming = false): Promise<Actor> {
  const step = (await deps.store.batches.get(batchId))?.actor.step;
  if (!step || (await deps.store.steps.get(step.executionId))?.userId !== actor.userId) return actor;
  return { ...actor, source: 'workflow', step: confirming ? { ...step, confirmedBy: actor.userId } : step };
}

/** Applies a plan; a plan made again replaces the one a step waits on, and a plan that ended ends its step. */
export async function applyBatchEndingStep(
  deps: OpsDeps,
  actor: Actor,
  batchId: string,
  options: { typed?: string; onProgress: OnProgress },
): Promise<ApplyResult> {
  const applied = await applyBatch(deps, await asItsStep(deps, actor, batchId, true), batchId, options);
  if (applied.ok && applied.status === 'changed') await deps.store.steps.follow(batchId, applied.view.id);
  await settleSteps(deps, [batchId]);
  return applied;
}

/** Cancels a plan not yet confirmed, and ends the step that waits on it. */
export async function cancelPlanEndingStep(deps: OpsDeps, actor: Actor, batchId: string): Promise<Result<object>> {
  const cancelled = await cancelPlan(deps, await asItsStep(deps, actor, batchId), batchId);
  await settleSteps(deps, [batchId]);
  return cancelled;
}

/** Approves or rejects a change that waits for a second person, and ends the step that waits on it. */
export async function decideEndingStep(
  deps: OpsDeps,
  actor: Actor,
  approvalId: string,
  verdict: 'approve' | 'reject',
  onBatchProgress?: OnBatchProgress,
): Promise<Result<Decision>> {
  const decided = await decide(deps, batchDecisions(deps), actor, approvalId, verdict, onBatchProgress);
  if (decided.ok) await settleSteps(deps, [decided.request.correlationId]);
  return decided;
}

/** Ends the requests for approval nobody decided in time, and the steps that wait on them. */
export async function expireApprovalsEndingSteps(deps: OpsDeps): Promise<ApprovalRequest[]> {
  const expired = await expireApprovals(deps, batchDecisions(deps));
  await settleSteps(
    deps,
    expired.map((request) => request.correlationId),
  );
  return expired;
}

/** Ends a step in Slack, then records it ended: a crash in between ends it again, which Slack takes as done. */
export async function endStep(deps: OpsDeps, executionId: string, ending: StepEnding): Promise<void> {
  await deps.stepEnds.end(executionId, ending);
  await deps.store.steps.end(executionId, ending.ok ? 'completed' : 'failed');
}

/** Ends the open steps whose changes have ended; one whose Slack call fails stays open for the next pass. */
export async function settleSteps(deps: OpsDeps, correlationIds?: readonly string[]): Promise<void> {
  const steps =
    correlationIds === undefined
      ? await deps.store.steps.open()
      : (await Promise.all(correlationIds.map((id) => deps.store.steps.ofChange(id)))).filter(
          (step) => step !== undefined,
        );
  await settleEach(deps, steps);
}

/** Ends one open step if its change has ended (an ask answered, say). */
export async function settleStep(deps: OpsDeps, executionId: string): Promise<void> {
  const step = await deps.store.steps.get(executionId);
  if (step && !step.endedAt) await settleEach(deps, [step]);
}

async function settleEach(deps: OpsDeps, steps: readonly StepRecord[]): Promise<void> {
  for (const step of steps) {
    try {
      const ending = await endingOf(deps, step);
      if (ending) await endStep(deps, step.executionId, ending);
    } catch (error) {
      deps.logger.warn({ err: error, executionId: step.executionId }, 'could not end a workflow step');
    }
  }
}

/** How a step's change ended, or undefined while it may still go on. */
async function endingOf(deps: OpsDeps, step: StepRecord): Promise<StepEnding | undefined> {
  const correlationId = step.correlationId ?? '';
  const batch = await deps.store.batches.get(correlationId);
  if (batch) return batchEnding(deps, batch);
  // The one step that makes a single change: an agent's creation, which its audit rows tell, settled or not.
  const rows = await deps.store.audit.ofRequest(correlationId);
  const last = rows.filter((row) => row.action === KIND.createAgent).at(-1);
  if (last?.outcome === 'succeeded') return { ok: true, outputs: { agent_id: last.target ?? '' } };
  if (last && ['failed', 'rejected', 'denied', 'cancelled', 'expired'].includes(last.outcome)) {
    return { ok: false, error: last.errorMessage ?? `The change ended as ${last.outcome}.` };
  }
  // A plan lasts as long as a confirmation: one never stored by the time it would have expired never will be; and an
  // agent's creation asked of the person named, unanswered as long, expires.
  const stale = deps.now().getTime() - Date.parse(step.startedAt) > DEFAULT_CONFIRMATION_TTL_MS;
  if (last?.outcome === 'requested' && stale && (await expireAsk(deps, step))) {
    return { ok: false, error: ASK_EXPIRED };
  }
  return last === undefined && stale
    ? { ok: false, error: 'Voice Ops stopped before this step asked for anything: nothing was changed. Run it again.' }
    : undefined;
}

async function batchEnding(deps: OpsDeps, batch: Batch): Promise<StepEnding | undefined> {
  // An item whose outcome is unknown ends when the reconciler settles it: the step ends with the batch's final word.
  if (batch.state !== 'running' && (await deps.store.batches.counts(batch.id)).running) return undefined;
  switch (batch.state) {
    case 'awaiting':
    case 'running':
    case 'stopping':
      return undefined;
    case 'planned':
      return Date.parse(batch.expiresAt) > deps.now().getTime() ? undefined : expirePlan(deps, batch);
    case 'finished':
      return finishedEnding(deps, batch);
    case 'stopped':
      return { ok: false, error: `${await doneSoFar(deps, batch)} Then it was stopped; the rest was not done.` };
    case 'interrupted':
      return {
        ok: false,
        error:
          `${await doneSoFar(deps, batch)} Then Voice Ops stopped, and the rest was not done: its requester has a ` +
          'Resume in their direct messages with Voice Ops.',
      };
    case 'expired':
      return { ok: false, error: await whyNotApplied(deps, batch.id) };
  }
}

/** A step's plan nobody confirmed in time: it expires, as a late Confirm would find it. */
async function expirePlan(deps: OpsDeps, batch: Batch): Promise<StepEnding | undefined> {
  const error = 'The plan was not confirmed within 10 minutes: nothing was changed.';
  const moved = await atomically(deps, async (deps) => {
    if (!(await deps.store.batches.move(batch.id, ['planned'], 'expired'))) return false;
    const actor: Actor = { ...batch.actor, source: 'system' };
    await record(deps, actor, batch.id, {
      action: batchAction(batch.kind),
      outcome: 'expired',
      error: { ok: false, reason: 'expired', message: error },
    });
    return true;
  });
  return moved ? { ok: false, error } : undefined;
}

/** The numbers a finished plan changed (or found as asked), as the step's output; a plan with failures fails it. */
async function finishedEnding(deps: OpsDeps, batch: Batch): Promise<StepEnding> {
  const items = await deps.store.batches.itemsIn(batch.id, ['succeeded', 'unchanged', 'failed']);
  const failed = items.filter((item) => item.state === 'failed');
  const numbers = items.filter((item) => item.state !== 'failed').map((item) => numberOf(item.change));
  if (failed.length === 0) return { ok: true, outputs: { numbers: numbers.join(', '), count: numbers.length } };
  const reasons = failed.slice(0, 3).map((item) => `${numberOf(item.change)}: ${item.error ?? 'failed'}`);
  return {
    ok: false,
    error:
      `${failed.length} of ${items.length} numbers failed (${reasons.join('; ')}). ` +
      (numbers.length ? `Done: ${numbers.join(', ')}.` : 'None was done.'),
  };
}

async function doneSoFar(deps: OpsDeps, batch: Batch): Promise<string> {
  const done = await deps.store.batches.itemsIn(batch.id, ['succeeded']);
  return done.length ? `Done: ${done.map((item) => numberOf(item.change)).join(', ')}.` : 'Nothing was done.';
}

/** Why a plan was never applied, from its last audit row: cancelled, rejected by an approver, or expired. */
async function whyNotApplied(deps: OpsDeps, batchId: string): Promise<string> {
  const last = (await deps.store.audit.ofRequest(batchId)).at(-1);
  switch (last?.outcome) {
    case 'cancelled':
      return 'The plan was cancelled before it was applied: nothing was changed.';
    case 'rejected':
      return 'A second approver rejected the plan: nothing was changed.';
    default:
      return last?.errorMessage
        ? `The plan was not applied: ${last.errorMessage} Nothing was changed.`
        : 'The plan expired before it was applied: nothing was changed.';
  }
}
