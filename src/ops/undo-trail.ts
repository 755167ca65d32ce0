// An Undo's own rows in the audit log: `change.undo`, requested once its inverse is planned (or its deletion asked
// for), then with the inverse's outcome. They share the Undo's correlation id with the inverse's rows, and name the
// change undone (its correlation id) as target and in `undoes`, so that the log tells an Undo from a change asked for
// by hand, which change it walked back, and whether that change was undone already.
import type { AuditOutcome } from '../store/audit.js';
import type { StoredChange } from '../store/records.js';
import { record } from './audit-rows.js';
import type { OpsDeps } from './deps.js';
import type { Actor, Failure } from './types.js';

export const UNDO_ACTION = 'change.undo';

/** The change a request walks back, when it is an Undo: its plan's request, or its deletion, says so. */
export const undoesOf = (change: StoredChange): string | undefined =>
  typeof change.undoes === 'string' ? change.undoes : undefined;

/** Appends a row of the Undo `correlationId` of change `undoes`; nothing for a request that is no Undo. */
export async function recordUndoRow(
  deps: OpsDeps,
  actor: Actor,
  correlationId: string,
  undoes: string | undefined,
  step: { outcome: AuditOutcome; params?: Record<string, unknown>; error?: Failure },
): Promise<void> {
  if (undoes === undefined) return;
  await record(deps, actor, correlationId, {
    action: UNDO_ACTION,
    target: undoes,
    outcome: step.outcome,
    params: { undoes, ...step.params },
    error: step.error,
  });
}
