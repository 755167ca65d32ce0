// Undo: a change walked back through the same path as any change. What the change did is read from its audit rows
// (each outcome row keeps its number's agent before and after); its kind says what undoes what it made; the inverse
// is planned (routes, releases) or confirmed (an agent's deletion) as if asked for by hand, by the same roles and
// guardrails, and its request's audit row names the change it undoes.
import { counted } from '../counts.js';
import type { AuditEvent } from '../store/audit.js';
import { type DeleteRequest, requestDeleteAgent } from './agents.js';
import { type BatchView, planBatch } from './batches.js';
import type { AccountRead } from './bulk-items.js';
import { deny, roleOf } from './context.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import { changeKind, isKind, KIND } from './kinds/index.js';
import type { Inverse } from './kinds/kind.js';
import { utcText } from './typed-time.js';
import { type Actor, type Failure, fail, type Result, roleIncludes } from './types.js';

/**
 * The plan of an Undo with the items it leaves out and why, and how many of those were changed again since (which
 * the person may include); or an agent's deletion to confirm.
 */
export type UndoResult = Result<
  { status: 'plan'; view: BatchView; left: string[]; changedSince: number } | Exclude<DeleteRequest, Failure>
>;

export interface UndoOptions {
  /** Whether numbers routed again since the change are routed back as well. */
  includeChanged?: boolean;
}

/** A change's outcome rows: what it made, item by item (one row for a single change, one an item for a batch). */
const madeIn = (rows: AuditEvent[]) =>
  rows.filter((row) => row.outcome === 'succeeded' && isKind(row.action) && row.target !== undefined);

/** Walks back the change of this correlation id, for its maker or an admin, within VOICE_UNDO_HOURS of it. */
export async function undo(
  deps: OpsDeps,
  actor: Actor,
  correlationId: string,
  id: string,
  options: UndoOptions = {},
): Promise<UndoResult> {
  const rows = await deps.store.audit.ofRequest(correlationId);
  const made = madeIn(rows);
  const [first] = made;
  if (!first) return fail('not_found', 'Nothing of that change was made: there is nothing to undo.');
  const kind = changeKind(first.action);
  if ('never' in kind.undo) return fail('invalid', kind.undo.never);
  const refused =
    (await refuseUndoer(deps, actor, rows, { undoes: correlationId, id })) ?? (await tooLate(deps, rows, made));
  if (refused) return refused;
  const { inverse } = kind.undo;
  const steps = made.map((row) => ({ row, step: inverse({ target: row.target ?? '', params: row.params ?? {} }) }));
  // An agent's creation is one change, walked back by its deletion, confirmed as any deletion is.
  for (const { step } of steps) {
    if ('deleteAgent' in step) return requestDeleteAgent(deps, actor, step.deleteAgent, id, correlationId);
  }
  let read: AccountRead;
  try {
    const [numbers, agents] = await Promise.all([
      deps.lists.numbers.get({ fresh: true }),
      deps.lists.agents.get({ fresh: true }),
    ]);
    read = { numbers, agents };
  } catch (error) {
    return providerFailure(error);
  }
  return planInverse(deps, actor, { undoes: correlationId, id, read, ...options }, steps);
}

/** Only the change's maker, or an admin, may undo it; a refusal is audited under the Undo's own id. */
async function refuseUndoer(
  deps: OpsDeps,
  actor: Actor,
  rows: AuditEvent[],
  { undoes, id }: { undoes: string; id: string },
): Promise<Failure | undefined> {
  const maker = (rows.find((row) => row.outcome === 'requested') ?? rows[0])?.actorId;
  if (actor.userId === maker || roleIncludes(await roleOf(deps, actor), 'admin')) return undefined;
  const failure = fail('denied', 'Only the person who made this change, or an admin, can undo it.');
  const attempt = { action: 'change.undo', target: undoes, correlationId: id };
  return deny(deps, actor, attempt, failure, { reason: 'not the maker', undoes });
}

/**
 * Undo is offered for VOICE_UNDO_HOURS after the change's last item was made. Later, the routing as of the moment the
 * change was asked for, before anything of it was made, is what to plan back to.
 */
async function tooLate(deps: OpsDeps, rows: AuditEvent[], made: AuditEvent[]): Promise<Failure | undefined> {
  const hours = (await deps.settings.current()).undoHours;
  const at = made.at(-1)?.at ?? '';
  if (Date.parse(at) + hours * 3_600_000 > deps.now().getTime()) return undefined;
  const asked = new Date(rows[0]?.at ?? at);
  return fail(
    'expired',
    `Undo is offered for ${counted(hours, 'hour')} after a change, and this one was made at ` +
      `${utcText(new Date(at))}. To walk it back now, /voice export as of ${utcText(asked)} gives the routing from ` +
      `before it, and /voice changes since ${utcText(asked)} what changed since: paste into /voice plan the lines ` +
      'of the numbers to route back.',
  );
}

/**
 * The routes back, or the releases, as one plan; each item that cannot be walked back is left out with why: a number
 * that routed nowhere, one changed again since, one no longer the account's, an agent gone since.
 */
async function planInverse(
  deps: OpsDeps,
  actor: Actor,
  { undoes, id, read, includeChanged }: UndoOptions & { undoes: string; id: string; read: AccountRead },
  steps: { row: AuditEvent; step: Inverse }[],
): Promise<UndoResult> {
  const owned = new Set(read.numbers.map((entry) => entry.number));
  const agents = new Set(read.agents.map((entry) => entry.id));
  const routed = await deps.store.routes.agentByNumber();
  const left: string[] = [];
  const routes: { number: string; agentId: string }[] = [];
  const releases: string[] = [];
  let changedSince = 0;
  for (const { row, step } of steps) {
    if ('cannot' in step) left.push(`${step.cannot}: map it to another agent or release it.`);
    else if ('release' in step) {
      if (owned.has(step.release)) releases.push(step.release);
      else left.push(`${step.release} is no longer one of your numbers.`);
    } else if ('route' in step) {
      const { number, agentId } = step.route;
      if (!owned.has(number)) left.push(`${number} is no longer one of your numbers.`);
      // Routed again since, by anyone: it no longer routes to the agent the change routed it to.
      else if (!includeChanged && routed.get(number) !== row.params?.agentId) {
        changedSince += 1;
        left.push(`${number} was changed again since: left as it is.`);
      } else if (!agents.has(agentId))
        left.push(`${number} routed to agent ${agentId} before, which no longer exists.`);
      else routes.push({ number, agentId });
    }
  }
  const request = routes.length
    ? { kind: KIND.map, routes, undoes }
    : releases.length
      ? { kind: KIND.release, numbers: releases, undoes }
      : undefined;
  if (!request) return fail('conflict', `Nothing of that change can be walked back. ${left.join(' ')}`);
  // Planned under the Undo's own id, so that a refusal of the plan is its one audit row.
  const planned = await planBatch(deps, actor, request, read, id);
  return planned.ok ? { ok: true, status: 'plan', view: planned.view, left, changedSince } : planned;
}
