import { randomUUID } from 'node:crypto';
import type { AuditAction, AuditOutcome } from '../store/audit.js';
import type { TransactionOptions } from '../store/sql.js';
import type { Person, RoleLists } from './access.js';
import type { OpsDeps } from './deps.js';
import { changeKind, isKind } from './kinds/index.js';
import { type Actor, type Failure, fail, type Result, type Role, roleIncludes } from './types.js';

export const newCorrelationId = (): string => randomUUID();

/**
 * Runs `work` in one transaction of the store: all of its writes happen, or none. `work` gets the same deps with
 * the store bound to that transaction, so that everything it calls writes there.
 */
export async function atomically<D extends OpsDeps, T>(
  deps: D,
  work: (deps: D) => Promise<T>,
  options?: TransactionOptions,
): Promise<T> {
  const started = performance.now();
  try {
    return await deps.store.transaction((store) => work({ ...deps, store }), options);
  } finally {
    deps.metrics.storeTransaction((performance.now() - started) / 1000);
  }
}

/**
 * Both values once both have ended, or the first one's error (else the second's): unlike Promise.all, never while one
 * still runs, so that nothing sends a statement into a transaction that has already ended.
 */
export async function bothEnded<A, B>(first: Promise<A>, second: Promise<B> | undefined): Promise<[A, B | undefined]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return [a.value, b.value];
}

export interface Step {
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

/** Appends one audit row for a step of a request; every step of one request shares its correlation id. */
/** A failure as the audit log's `error_code` keeps it: the app's code, else the dependency's, its provider kind, its reason. */
const errorCodeOf = (failure: Failure): string =>
  failure.code ?? failure.dependencyCode ?? failure.providerKind ?? failure.reason;

export async function record(deps: OpsDeps, actor: Actor, correlationId: string, step: Step): Promise<void> {
  await deps.store.audit.append({
    actorId: actor.userId,
    actorName: actor.userName,
    teamId: actor.teamId,
    channelId: actor.channelId,
    source: actor.source,
    action: step.action,
    target: step.target,
    params: withStepIds(actor, step.params),
    outcome: step.outcome,
    errorCode: step.error ? errorCodeOf(step.error) : undefined,
    errorMessage: step.error?.message,
    correlationId,
  });
  deps.metrics.auditStep(step.action, step.outcome);
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

/** The role a person holds now, through the settings' lists and their user groups. */
export async function roleOf(deps: OpsDeps, person: Person): Promise<Role> {
  return deps.access.roleOf(person, await deps.settings.current());
}

/**
 * Checks the actor's role; a denial is audited and says what an admin can do about it, and why a user group did not
 * count (the person is a guest, or Slack would not let the app read it).
 */
export async function authorize(
  deps: OpsDeps,
  actor: Actor,
  needed: Role,
  attempt: Attempt,
  settings: RoleLists,
): Promise<Failure | undefined> {
  const grant = await deps.access.grantOf(actor, settings);
  if (roleIncludes(grant.role, needed)) return undefined;
  const list = grantingList(deps, needed);
  const words = `You need the ${needed} role to ${isKind(attempt.action) ? changeKind(attempt.action).permits : attempt.action}.`;
  const remedy = grant.cappedAsGuest
    ? `You are a guest in Slack, and guests get no role through a user group: ${list.who} can add your own user id ` +
      `(${actor.userId}) to ${list.where}.`
    : `${list.who} can add your user id (${actor.userId}) or one of your user groups to ${list.where}.`;
  const unreadable = grant.unreadable ? ` Your user groups could not be checked: ${grant.unreadable}` : '';
  const failure = fail('denied', `${words} ${remedy}${unreadable}`);
  return deny(deps, actor, attempt, failure, { needed, ...(grant.cappedAsGuest ? { reason: 'guest' } : {}) });
}

/** Where a role is granted, as a denial says it: the list a lock names, or the settings an admin changes in Slack. */
function grantingList(deps: OpsDeps, role: Role): { who: string; where: string } {
  const name = role === 'admin' ? 'admins' : 'operators';
  const lock = deps.settings.lockedBy(name);
  if (lock) return { who: 'Whoever runs Voice Ops', where: `${lock.key} in ${lock.where}` };
  return { who: 'An admin', where: `the ${name} in /voice settings` };
}

/**
 * Runs one request under a new correlation id, so that every attempt leaves a row: a failure the request did not
 * audit itself (bad input, an unknown id, a number already owned, a provider that failed while looking things up)
 * is recorded as `rejected`, or `failed` when the provider is at fault.
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
