// The rows the operations write to the audit log: one per thing that happened to a request, every row of one request
// under its correlation id, refusals included, so that every attempt leaves a trace.
import { randomUUID } from 'node:crypto';
import type { AuditAction, AuditOutcome } from '../store/audit.js';
import type { OpsDeps } from './deps.js';
import type { Actor, Failure, Result } from './types.js';

export const newCorrelationId = (): string => randomUUID();

/** What one audit row says of its request; who asked, where and when come from the actor and the store. */
export interface AuditEntry {
  action: AuditAction;
  outcome: AuditOutcome;
  target?: string;
  params?: Record<string, unknown>;
  error?: Failure;
}

/**
 * A row's parameters, with the ids of the workflow and of its step when a Workflow Builder step asked, who Slack says
 * ran it (null: Slack did not say), the channel its builder named, and who confirmed it where Slack did not vouch.
 */
function withStepIds(actor: Actor, params?: Record<string, unknown>): Record<string, unknown> | undefined {
  const step = actor.step;
  if (!step) return params;
  return {
    ...params,
    workflowExecutionId: step.workflowExecutionId,
    stepExecutionId: step.executionId,
    ranBy: step.ranBy ?? null,
    ...(step.namedChannelId ? { namedChannelId: step.namedChannelId } : {}),
    ...(step.confirmedBy ? { confirmedBy: step.confirmedBy } : {}),
  };
}

/** A failure as the audit log's `error_code` keeps it: the app's code, else the dependency's, its provider kind, its reason. */
const errorCodeOf = (failure: Failure): string =>
  failure.code ?? failure.dependencyCode ?? failure.providerKind ?? failure.reason;

/** Appends one audit row of a request. */
export async function record(deps: OpsDeps, actor: Actor, correlationId: string, entry: AuditEntry): Promise<void> {
  await deps.store.audit.append({
    actorId: actor.userId,
    actorName: actor.userName,
    teamId: actor.teamId,
    channelId: actor.channelId,
    source: actor.source,
    action: entry.action,
    target: entry.target,
    params: withStepIds(actor, entry.params),
    outcome: entry.outcome,
    errorCode: entry.error ? errorCodeOf(entry.error) : undefined,
    errorMessage: entry.error?.message,
    correlationId,
  });
  deps.metrics.auditRow(entry.action, entry.outcome);
}

/** An attempt at a change, as its refusals are audited. */
export interface Attempt {
  action: AuditAction;
  target?: string;
  correlationId: string;
}

/** Audits a refusal of the attempt as `access.denied`, with why (the rule, the reason), and returns it. */
export async function deny(
  deps: OpsDeps,
  actor: Actor,
  attempt: Attempt,
  failure: Failure,
  why: Record<string, unknown>,
): Promise<Failure> {
  await record(deps, actor, attempt.correlationId, {
    action: 'access.denied',
    outcome: 'denied',
    target: attempt.target,
    params: { attempted: attempt.action, ...why },
    error: failure,
  });
  return failure;
}

/**
 * Runs one request under a new correlation id, so that every attempt leaves a row: a failure the request did not
 * audit itself (bad input, an unknown id, a number already owned, a provider that failed while looking things up)
 * is recorded as `rejected`, or `failed` when the provider is at fault. Every request of one change begins here; a
 * plan begins its batch in planBatch, which audits each of its refusals itself, and what acts on a request that has
 * its id already (a confirmation, an approval, a batch, a step) audits under that id.
 */
export async function attempt<T extends object>(
  deps: OpsDeps,
  actor: Actor,
  what: { action: AuditAction; target?: string },
  request: (correlationId: string) => Promise<Result<T>>,
): Promise<Result<T>> {
  const correlationId = newCorrelationId();
  const result = await request(correlationId);
  // A change whose outcome is unknown was audited so by carry-out, and is audited again when the reconciler settles it.
  if (result.ok || result.unsettled) return result;
  const last = await deps.store.audit.lastOutcome(correlationId);
  if (last === undefined || last === 'requested') {
    const outcome = result.providerKind ? 'failed' : 'rejected';
    await record(deps, actor, correlationId, { ...what, outcome, error: result });
  }
  return result;
}
