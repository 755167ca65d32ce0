import type { CreatedAgent } from '../provider/schemas.js';
import type { AuditAction } from '../store/audit.js';
import { busy, type OpsDeps, providerFailure, record } from './context.js';
import { announceSafely, type Change, subjectOf } from './notify.js';
import type { Actor, Result } from './types.js';

/** What a finished change reports: the announcement, and what only the requester may see. */
export interface Done {
  change: Change;
  /** Something the requester should know, e.g. that a lost answer was verified. */
  note?: string;
  /** Only for agent creation: carries the agent token, shown once to the requester. */
  createdAgent?: CreatedAgent;
}

export interface Work {
  action: AuditAction;
  target?: string;
  params?: Record<string, unknown>;
  /** Resources that no other change may touch meanwhile. */
  lockKeys: string[];
  /** Calls the provider; a ProviderError thrown here becomes a failure. */
  run: () => Promise<Result<Done>>;
}

/**
 * The one path by which a change reaches the provider: under its resource locks, with its outcome audited
 * and, on success, announced.
 */
export function carryOut(deps: OpsDeps, actor: Actor, correlationId: string, work: Work): Promise<Result<Done>> {
  const describe = () =>
    [work.action, work.target, `by ${actor.userId}`, `correlation ${correlationId}`].filter(Boolean).join(' ');
  return deps.changes.run(describe, () => carryOutLocked(deps, actor, correlationId, work));
}

async function carryOutLocked(deps: OpsDeps, actor: Actor, correlationId: string, work: Work): Promise<Result<Done>> {
  const step = { action: work.action, target: work.target, params: work.params };
  const locked = await deps.locks.tryWith(work.lockKeys, async () => {
    const result = await work.run().catch(providerFailure);
    if (!result.ok) {
      record(deps, actor, correlationId, { ...step, outcome: 'failed', error: result });
      return result;
    }
    record(deps, actor, correlationId, { ...step, target: subjectOf(result.change), outcome: 'succeeded' });
    await announceSafely(deps.announcer, { actor, change: result.change }, deps.logger);
    return result;
  });
  if (locked) return locked.value;
  const failure = busy(work.target ?? 'that item');
  record(deps, actor, correlationId, { ...step, outcome: 'failed', error: failure });
  return failure;
}
