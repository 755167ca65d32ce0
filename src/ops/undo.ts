// Undo: a change walked back through the same path as any change. What the change did is read from its audit rows
// (each outcome row keeps its number's agent before and after); its kind says which change undoes each thing it made,
// its inverse; the inverses are planned as one batch, or one is asked for on its own, as if asked for by hand, by the
// same roles and guardrails; the Undo's own audit rows (undo-trail.ts) name the change it undoes.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { counted } from '../counts.js';
import type { AuditEvent } from '../store/audit.js';
// Register how an agent's deletion (a creation's inverse) and a label change are asked for on their own (askAs).
import './agents.js';
import './labels.js';
import { askOne } from './ask-confirmation.js';
import { deny } from './audit-rows.js';
import { type BatchView, batchView, cancelPlan, planBatch } from './batches.js';
import { readAccount } from './bulk-items.js';
import type { Asked } from './changes.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import { changeKind, gatherOf, isKind } from './kinds/index.js';
import type { AccountNow, Inverse, UndoScene } from './kinds/kind.js';
import { roleOf } from './policies.js';
import { utcText } from './typed-time.js';
import { type Actor, type Failure, fail, type Result, roleIncludes } from './types.js';
import { recordUndoRow, UNDO_ACTION } from './undo-trail.js';

/** An Undo's plan with what it leaves out and why (changed since, which the person may include), or one change. */
export type UndoResult = Result<
  { status: 'plan'; view: BatchView; left: string[]; changedSince: number } | Exclude<Asked, Failure>
>;

export interface UndoOptions {
  /** Whether numbers routed again since the change are routed back as well. */
  includeChanged?: boolean;
}

/** A change's outcome rows: what it made, item by item (one row for a single change, one an item for a batch). */
const madeIn = (rows: AuditEvent[]) =>
  rows.filter((row) => row.outcome === 'succeeded' && isKind(row.action) && row.target !== undefined);

/** One Undo of a change is planned at a time, whichever replica each click reaches, and a change is undone once. */
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
  const inverses = (scene: UndoScene) =>
    Promise.all(made.map((row) => inverse({ target: row.target ?? '', params: row.params ?? {} }, scene)));
  const planOnce = async () => {
    const earlier = await earlierUndo(deps, actor, correlationId, options);
    if (earlier) return earlier;
    const undone = await walkBack(deps, actor, { undoes: correlationId, id, ...options }, inverses);
    if (undone.ok && undone.status !== 'in_use') {
      const left = undone.status === 'plan' ? { left: undone.left, changedSince: undone.changedSince } : {};
      await recordUndoRow(deps, actor, id, correlationId, { outcome: 'requested', params: left });
    }
    return undone;
  };
  // A click that meets another planning the same Undo (a double click, on any replica) waits for that plan.
  for (let wait = 0; wait < PLANNING_WAITS; wait++) {
    const once = await deps.locks.tryWith([`undo:${correlationId}`], id, planOnce);
    if (once) return once.value;
    await sleep(PLANNING_POLL_MS);
  }
  return fail('busy', 'That change is being undone already: its plan is shown where Undo was pressed.');
}

/** How long a click waits for another click's plan of the same Undo: 20 looks, 100 ms apart. */
const PLANNING_WAITS = 20;
const PLANNING_POLL_MS = 100;

/** A second click shows the earlier plan again, unless it asks for numbers changed since; none is made twice. */
async function earlierUndo(
  deps: OpsDeps,
  actor: Actor,
  undoes: string,
  { includeChanged }: UndoOptions,
): Promise<UndoResult | undefined> {
  // The rows come oldest first: each Undo's last outcome is the one kept.
  const undos = new Map((await deps.store.audit.about(UNDO_ACTION, undoes)).map((row) => [row.correlationId, row]));
  const rows = [...undos.values()];
  const done = rows.find((row) => row.outcome === 'succeeded');
  if (done) {
    return fail(
      'already_used',
      `That change was undone already, at ${utcText(new Date(done.at))}: the Undo's result carries Undo to walk it ` +
        'back in turn.',
    );
  }
  const requested = rows.filter((row) => row.outcome === 'requested');
  for (const batch of await deps.store.batches.getMany(requested.map((row) => row.correlationId))) {
    if (['awaiting', 'running', 'stopping'].includes(batch.state))
      return fail('already_used', 'That change is being undone: its Undo was confirmed and is under way.');
    const open = batch.state === 'planned' && Date.parse(batch.expiresAt) > deps.now().getTime();
    if (!open || batch.requestedBy !== actor.userId) continue;
    if (includeChanged) {
      await cancelPlan(deps, actor, batch.id);
      continue;
    }
    const view = await batchView(deps, batch.id);
    const shown = planShown.safeParse(undos.get(batch.id)?.params);
    if (view && shown.success) return { ok: true, status: 'plan', view, ...shown.data };
  }
  return undefined;
}

/** What an Undo's request row keeps of its plan: what it left out, and how many of those were changed since. */
const planShown = z.object({ left: z.array(z.string()), changedSince: z.number() });

/**
 * The inverses, worked out against the account as it is now (read once, when first asked): one batch when their
 * kind's bulk form gathers them, else the one inverse asked for as if by hand.
 */
async function walkBack(
  deps: OpsDeps,
  actor: Actor,
  { undoes, id, includeChanged = false }: UndoOptions & { undoes: string; id: string },
  inverses: (scene: UndoScene) => Promise<Inverse[]>,
): Promise<UndoResult> {
  let reading: Promise<AccountNow> | undefined;
  const scene: UndoScene = { account: () => (reading ??= readNow(deps)), includeChanged };
  const found = await inverses(scene).catch(providerFailure);
  if (!Array.isArray(found)) return found;
  const changes = found.flatMap((inverse) => ('change' in inverse ? [inverse.change] : []));
  const left = found.flatMap((inverse) => ('cannot' in inverse ? [inverse.cannot] : []));
  const [first] = changes;
  if (!first) return fail('conflict', `Nothing of that change can be walked back. ${left.join(' ')}`);
  const gathered = gatherOf(first.kind)?.(changes);
  if (!gathered) {
    // Only a kind with a bulk form walks back several changes at once.
    if (changes.length > 1) throw new Error(`${first.kind} has no bulk form to walk back ${changes.length} changes.`);
    return askOne(deps, actor, { ...first, undoes }, id);
  }
  const changedSince = found.filter((inverse) => 'changedSince' in inverse).length;
  const now = await scene.account().catch(providerFailure);
  if ('ok' in now) return now;
  // Planned under the Undo's own id, so that a refusal of the plan is its one audit row.
  const planned = await planBatch(deps, actor, { ...gathered, undoes }, now.read, id);
  return planned.ok ? { ok: true, status: 'plan', view: planned.view, left, changedSince } : planned;
}

/** The account as the provider lists it now, and where the app's records route each number. */
async function readNow(deps: OpsDeps): Promise<AccountNow> {
  const read = await readAccount(deps.lists);
  const numbers = new Map(read.numbers.map((entry) => [entry.number, entry.id]));
  const agents = new Map(read.agents.map((entry) => [entry.id, entry.name]));
  return { read, numbers, agents, routed: await deps.store.routes.agentByNumber() };
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

/** Offered for VOICE_UNDO_HOURS after the last item; later, plan back to the routing as of the change's request. */
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
