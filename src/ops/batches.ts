import { counted } from '../counts.js';
import type { Settings } from '../settings-schema.js';
import type { AuditAction } from '../store/audit.js';
import type { Batch, BatchItem, ItemCounts } from '../store/batches.js';
import type { BatchApproval, StoredChange, StoredPlan } from '../store/records.js';
import { NO_TAGS, type Tags } from '../store/tags.js';
import type { BatchAnnouncement } from './announcements.js';
import { type ApprovalRequest, awaitApproval, type BatchDecisions, recordAwaiting } from './approvals.js';
import { deny, newCorrelationId, record } from './audit-rows.js';
import type { AccountRead, Planned } from './bulk-items.js';
import { batchAction, planItems, requestFor, samePlan } from './bulk-plans.js';
import { busyWith } from './busy.js';
import { carryOutHeld, openIntent, type Settle } from './carry-out.js';
import { itemCorrelationId } from './changes.js';
import type { OpsDeps } from './deps.js';
import { keepForDigests } from './digests.js';
import {
  bulkFormOf,
  changeKind,
  KIND,
  kindOf,
  numberOf,
  takesFromAgent,
  targetOf,
  touchedBy,
  type UndoOffer,
  undoOffer,
  workFor,
} from './kinds/index.js';
import { type Held, runsAnywhere } from './locks.js';
import { announceParts } from './notify.js';
import type { Page } from './pages.js';
import { mayConfirm, mayRequest, needsApproval, refuseBulkOverBuyLimit } from './policies.js';
import { subscribedAs } from './subscriptions.js';
import { atomically, bothEnded } from './transactions.js';
import { type Actor, type Failure, fail, type OnProgress, type Result } from './types.js';
import { recordUndoRow, undoesOf } from './undo-trail.js';
import type { Work } from './work.js';

/** Provider calls of one batch at once: the provider's pace (it answers 429 beyond its own), against the batch's duration. */
export const BATCH_CONCURRENCY = 4;

interface PendingItem {
  seq: number;
  work: Work;
}

const actionOf = (batch: Batch): AuditAction => batchAction(batch.kind);

/** The states of a batch that has ended; an item of it may still be being settled. */
const ENDED: readonly Batch['state'][] = ['finished', 'stopped', 'interrupted'];

/** One item as shown: its change, and what became of it. */
export type BatchLine = Omit<BatchItem, 'batchId'>;

/** A batch as the Slack layer shows it: its plan, its counts, and one page of its items. */
export interface BatchView {
  id: string;
  state: Batch['state'];
  requestedBy: string;
  expiresAt: string;
  plan: StoredPlan;
  counts: ItemCounts;
  /** Items to act on (not the unchanged ones). */
  total: number;
  items: Page<BatchLine, { batchId: string }>;
  /** Each failed item with its reason, once the batch has ended. */
  failures: BatchLine[];
  /** Whether its requester is offered Undo once it has ended, and if not, why; absent when the policy offers none. */
  undo?: UndoOffer;
}

export type PlanResult = Result<{ view: BatchView }>;

const lineOf = ({ batchId: _, ...line }: BatchItem): BatchLine => line;

/** A page of a batch's items, with its plan and counts; undefined for an unknown batch. */
export async function batchView(deps: OpsDeps, batchId: string, page = 1, size = 20): Promise<BatchView | undefined> {
  const batch = await deps.store.batches.get(batchId);
  if (!batch) return undefined;
  const pages = Math.max(1, Math.ceil(batch.total / size));
  const current = Math.min(Math.max(1, page), pages);
  const [items, counts] = await Promise.all([
    deps.store.batches.items(batchId, { offset: (current - 1) * size, limit: size }),
    deps.store.batches.counts(batchId),
  ]);
  const ended = ENDED.includes(batch.state);
  const failures = ended ? (await deps.store.batches.itemsIn(batchId, ['failed'])).map(lineOf) : [];
  return {
    id: batch.id,
    state: batch.state,
    requestedBy: batch.requestedBy,
    expiresAt: batch.expiresAt,
    plan: batch.plan,
    counts,
    total: batch.total - counts.unchanged,
    items: { items: items.map(lineOf), page: current, pages, total: batch.total, filter: { batchId } },
    failures,
    undo: undoOffer((await deps.settings.current()).undoHours, { kind: batch.kind }),
  };
}

/** Plans a bulk change: every item with its effect, stored as a batch that waits for one confirmation. */
export async function planBatch(
  deps: OpsDeps,
  actor: Actor,
  request: StoredChange,
  read?: AccountRead,
  batchId = newCorrelationId(),
): Promise<PlanResult> {
  const action = batchAction(request.kind);
  const attempt = { action: request.kind, correlationId: batchId };
  const denied = await mayRequest(deps, actor, attempt);
  if (denied) return denied;
  const buying = changeKind(request.kind).spends ? bulkFormOf(request.kind).count?.(request) : undefined;
  if (buying !== undefined) {
    const overLimit = await refuseBulkOverBuyLimit(deps, actor, buying, { ...attempt, action });
    if (overLimit) return overLimit;
  }
  const planned = await planItems(deps, actor, request, read);
  if (!planned.ok) {
    await record(deps, actor, batchId, { action, outcome: 'rejected', error: planned });
    return planned;
  }
  return storePlan(deps, actor, batchId, request, planned);
}

async function storePlan(
  deps: OpsDeps,
  actor: Actor,
  batchId: string,
  request: StoredChange,
  planned: Planned,
): Promise<PlanResult> {
  const changing = planned.items.filter((item) => !item.unchanged);
  const totals = {
    change: changing.length,
    taken: changing.filter(({ change }) => takesFromAgent(change)).length,
    unchanged: planned.items.length - changing.length,
  };
  const plan: StoredPlan = {
    request,
    agent: planned.agent,
    totals,
    ...(planned.leftOut ? { leftOut: planned.leftOut } : {}),
    ...(planned.outsideScope ? { outsideScope: planned.outsideScope } : {}),
  };
  const { replyAddress: _, ...who } = actor;
  // The numbers a plan names (a Resume, a routing text) are its items: the audit counts them rather than list them.
  const { numbers, routes, changes, ...asked } = request;
  const named = [numbers, routes, changes].find(Array.isArray);
  // The batch, its items and its request's audit row are written together, or not at all.
  await atomically(deps, async (deps) => {
    await deps.store.batches.create({
      id: batchId,
      kind: request.kind,
      plan,
      requestedBy: actor.userId,
      actor: who,
      items: planned.items.map((item) => ({ change: item.change, state: item.unchanged ? 'unchanged' : 'pending' })),
    });
    await record(deps, actor, batchId, {
      action: batchAction(request.kind),
      outcome: 'requested',
      target: counted(planned.items.length, 'number'),
      params: {
        ...asked,
        ...(planned.agent ? { agentId: planned.agent.id, agentName: planned.agent.name } : {}),
        ...(named ? { named: named.length } : {}),
        ...totals,
      },
    });
  });
  const view = await batchView(deps, batchId);
  if (!view) throw new Error(`batch ${batchId} was not stored`);
  return { ok: true, view };
}

/** What a release's confirmation asks to be typed: the count of numbers, as a repository's name is typed to delete it. */
export function typedCount(view: Pick<BatchView, 'plan' | 'total'>): string | undefined {
  return bulkFormOf(view.plan.request.kind).words.destroys ? String(view.total) : undefined;
}

export type ApplyResult = Result<
  | { status: 'done'; view: BatchView }
  | { status: 'changed'; view: BatchView }
  | { status: 'awaiting'; request: ApprovalRequest }
>;

/**
 * Confirms a plan, checked again against the provider first (changed, the new plan is returned instead). Starting is
 * one conditional UPDATE, so a double click, a retried delivery or another replica applies it once.
 */
export async function applyBatch(
  deps: OpsDeps,
  actor: Actor,
  batchId: string,
  options: { typed?: string; onProgress: OnProgress },
): Promise<ApplyResult> {
  const batch = await deps.store.batches.get(batchId);
  if (!batch) return notFound();
  const plan = batch.plan;
  const kind = plan.request.kind;
  const refused = await refuseToStart(deps, actor, batch);
  if (refused) return refused;
  const expected = typedCount({ plan, total: plan.totals.change });
  if (expected !== undefined && options.typed?.trim() !== expected) {
    return fail('invalid', `Type ${expected}, the count of numbers to release: nothing was changed.`, {
      field: 'typed_confirmation',
    });
  }
  const attempt = { action: kind, correlationId: batchId };
  const settings = await deps.settings.current();
  const denied = await mayConfirm(deps, settings, actor, kind, attempt);
  if (denied) return denied;
  const changed = await replanIfChanged(deps, actor, batch, plan);
  if (changed) return changed;
  if (needsApproval(settings, kind)) return awaitBatchApproval(deps, settings, actor, batch, plan);
  const ran = await runBatch(deps, actor, batch, 'planned', options.onProgress);
  return ran.ok ? { ok: true, status: 'done', view: ran.view } : ran;
}

/**
 * Holds the locks of every pending item for the whole run, so no other change slips between items and no item waits
 * on another's lock; its own lease tells every replica the batch runs in this process.
 */
async function runBatch(
  deps: OpsDeps,
  actor: Actor,
  batch: Batch,
  from: 'planned' | 'awaiting',
  onProgress: OnProgress,
): Promise<Result<{ view: BatchView }>> {
  const plan = batch.plan;
  // Read before the batch starts: until it runs, nothing moves its items.
  const pending = (await deps.store.batches.itemsIn(batch.id, ['pending'])).map((item) => ({
    seq: item.seq,
    work: workFor(deps, item.change, actor.userId),
  }));
  const keys = [...new Set(pending.flatMap(({ work }) => work.lockKeys))];
  const ran = await deps.locks.tryWith(keys, batch.id, async (held) => {
    const refused = await start(deps, actor, batch, from);
    if (refused) return refused;
    // Read before the items run, which may forget them (a release), for where the batch is announced.
    const tagged = await deps.store.tags.of(pending.flatMap(({ work }) => touchedBy(work.intent)));
    const describe = () => `batch ${batch.id} by ${actor.userId}`;
    await deps.changesUnderWay.run(
      describe,
      () => runItems(deps, actor, batch.id, held, pending, onProgress),
      batch.id,
    );
    // Cut off meanwhile: the batch is settled and told as one a dead process left, by another replica or by this one
    // once it holds its liveness again, so that it is told once.
    if (!held.mayStillAct()) return CUT_OFF;
    return finish(deps, actor, batch.id, tagged);
  });
  if (ran) return 'id' in ran.value ? { ok: true, view: ran.value } : ran.value;
  const current = await deps.store.batches.get(batch.id);
  if (current?.state !== from) return current ? alreadyStartedMessage(current) : notFound();
  // Not started: another click holds the batch while it starts it, or a change to one of its numbers (or to its
  // agent) is under way.
  if (await deps.locks.isUnderWay(batch.id)) return beingApplied();
  return busyWith(deps, keys, lockedBy(plan));
}

const CUT_OFF = fail(
  'provider',
  'Voice Ops lost its hold on its database, or was paused past its hold on this plan, while applying it, and sent ' +
    'nothing more: you will be told where it stopped, with a Resume.',
  { providerKind: 'withheld' },
);

/** What a batch that could not take its locks names as busy. */
const lockedBy = (plan: StoredPlan): string =>
  plan.agent ? `agent ${plan.agent.name} or one of these numbers` : 'one of these numbers';

/** A kind of change VOICE_REQUIRE_APPROVAL names waits, as a whole batch, for one second person's approval. */
async function awaitBatchApproval(
  deps: OpsDeps,
  settings: Settings,
  actor: Actor,
  batch: Batch,
  plan: StoredPlan,
): Promise<ApplyResult> {
  const change: BatchApproval = {
    kind: 'batch',
    batchId: batch.id,
    bulk: plan.request.kind,
    total: plan.totals.change,
    taken: plan.totals.taken,
    agent: plan.agent,
  };
  const approval = await atomically(deps, async (deps) =>
    (await deps.store.batches.start(batch.id, actor.userId, 'awaiting'))
      ? awaitApproval(deps, settings, actor, batch.id, change)
      : undefined,
  );
  if (!approval) return alreadyStarted(deps, batch.id);
  await record(deps, actor, batch.id, { action: actionOf(batch), outcome: 'confirmed' });
  const awaiting = await recordAwaiting(deps, actor, approval, change);
  return awaiting.ok ? { ok: true, status: 'awaiting', request: awaiting.awaitingApproval } : awaiting;
}

/** Approved, a batch is checked again (it may have waited hours) before it runs; rejected or expired, it is closed. */
export function batchDecisions(deps: OpsDeps): BatchDecisions {
  return {
    apply: async (requester, batchId, onProgress) => {
      const batch = await deps.store.batches.get(batchId);
      if (batch?.state !== 'awaiting') return batch ? alreadyStartedMessage(batch) : notFound();
      const plan = batch.plan;
      if (!(await planNow(deps, requester, batch, plan)).holds) {
        await deps.store.batches.move(batchId, ['awaiting'], 'expired');
        const failure = fail(
          'conflict',
          'What the plan would do changed while it waited for approval: nothing was applied. The requester can plan ' +
            'it again.',
          { code: 'plan_changed' },
        );
        await record(deps, requester, batchId, { action: actionOf(batch), outcome: 'expired', error: failure });
        return failure;
      }
      const ran = await runBatch(deps, requester, batch, 'awaiting', onProgress);
      if (ran.ok) return { ok: true, batchId };
      if (ran.reason !== 'busy' || !(await deps.store.batches.move(batchId, ['awaiting'], 'expired'))) return ran;
      // Its approval is spent: a batch that could not start then does not wait on, unseen, for a retry.
      const failure = fail(
        'busy',
        `Another change to ${lockedBy(plan)} was in progress: nothing was applied, and the plan expired. The ` +
          'requester can plan it again once that change is done.',
      );
      await record(deps, requester, batchId, { action: actionOf(batch), outcome: 'expired', error: failure });
      return failure;
    },
    close: async (_requester, batchId) => {
      await deps.store.batches.move(batchId, ['awaiting'], 'expired');
    },
  };
}

/** The request planned again now, and whether that gives the plan stored. */
async function planNow(
  deps: OpsDeps,
  actor: Actor,
  batch: Batch,
  plan: StoredPlan,
): Promise<{ now: Result<Planned>; holds: boolean }> {
  const now = await planItems(deps, actor, plan.request);
  if (!now.ok) return { now, holds: false };
  const stored = (await deps.store.batches.items(batch.id, { offset: 0, limit: batch.total })).map((item) => ({
    change: item.change,
    unchanged: item.state === 'unchanged',
  }));
  return { now, holds: samePlan(stored, now.items) };
}

/** The plan as things stand now, stored as a new plan, when it differs from the one shown; the old one expires. */
async function replanIfChanged(
  deps: OpsDeps,
  actor: Actor,
  batch: Batch,
  plan: StoredPlan,
): Promise<ApplyResult | undefined> {
  const { now, holds } = await planNow(deps, actor, batch, plan);
  if (holds) return undefined;
  if (!(await deps.store.batches.move(batch.id, ['planned'], 'expired'))) return alreadyStarted(deps, batch.id);
  await record(deps, actor, batch.id, {
    action: batchAction(plan.request.kind),
    outcome: 'expired',
    error: fail('conflict', 'What the plan would do changed before it was confirmed.', { code: 'plan_changed' }),
  });
  if (!now.ok) return now;
  const replanned = await storePlan(deps, actor, newCorrelationId(), plan.request, now);
  return replanned.ok ? { ok: true, status: 'changed', view: replanned.view } : replanned;
}

/** Starts the batch with the last buy-limit check, so that no single buy takes a slot the batch was granted. */
async function start(
  deps: OpsDeps,
  actor: Actor,
  batch: Batch,
  from: 'planned' | 'awaiting',
): Promise<Failure | undefined> {
  return atomically(deps, async (deps) => {
    if (changeKind(batch.kind).spends) {
      await deps.store.lock('buy-limits');
      const count = (await deps.store.batches.counts(batch.id)).pending;
      const attempt = { action: batchAction(batch.kind), correlationId: batch.id };
      const overLimit = await refuseBulkOverBuyLimit(deps, actor, count, attempt);
      if (overLimit) return overLimit;
    }
    const started =
      from === 'planned'
        ? await deps.store.batches.start(batch.id, actor.userId)
        : await deps.store.batches.move(batch.id, ['awaiting'], 'running');
    if (!started) return alreadyStarted(deps, batch.id);
    // In the same transaction: a batch is running only once its confirmation is audited, so that a database that
    // fails in between leaves it as planned, to be applied again, rather than running with no one to run it.
    if (from === 'planned') await record(deps, actor, batch.id, { action: actionOf(batch), outcome: 'confirmed' });
    return undefined;
  });
}

const notFound = (): Failure => fail('not_found', 'That plan does not exist. Start again from the command.');

async function refuseToStart(deps: OpsDeps, actor: Actor, batch: Batch): Promise<Failure | undefined> {
  if (batch.requestedBy !== actor.userId) return notTheRequester(deps, actor, batch);
  if (batch.state !== 'planned') return alreadyStartedMessage(batch);
  if (Date.parse(batch.expiresAt) > deps.now().getTime()) return undefined;
  if (await deps.store.batches.move(batch.id, ['planned'], 'expired')) {
    const failure = fail('expired', 'That plan expired (plans last 10 minutes). Nothing was changed: start again.');
    await record(deps, actor, batch.id, { action: actionOf(batch), outcome: 'expired', error: failure });
    return failure;
  }
  return alreadyStarted(deps, batch.id);
}

async function alreadyStarted(deps: OpsDeps, batchId: string): Promise<Failure> {
  const batch = await deps.store.batches.get(batchId);
  return batch ? alreadyStartedMessage(batch) : notFound();
}

const beingApplied = (): Failure =>
  fail('already_used', 'That plan is being applied: its message shows how far it has gone.');

function alreadyStartedMessage(batch: Batch): Failure {
  switch (batch.state) {
    case 'running':
    case 'stopping':
      return beingApplied();
    case 'awaiting':
      return fail('already_used', 'That plan is confirmed and waits for a second approver: nothing to do here.');
    case 'expired':
      return fail('expired', 'That plan expired, was cancelled or was replaced by a newer one. Nothing was changed.');
    default:
      return fail('already_used', 'That plan was already applied, once. /voice audit shows what became of it.');
  }
}

/**
 * The transaction that writes an item's outcome also starts its worker's next item: one commit an item. An item not
 * started has not reached the provider, so a Stop or a crash keeps it from happening.
 */
async function runItems(
  deps: OpsDeps,
  actor: Actor,
  batchId: string,
  held: Held,
  pending: PendingItem[],
  onProgress: OnProgress,
): Promise<void> {
  // Counted here rather than read back after each item: one runner owns the batch's items while it runs.
  const counts = await deps.store.batches.counts(batchId);
  let next = 0;
  /** What stopped a worker (the database, say): the others start nothing more. */
  let failed: { error: unknown } | undefined;
  const startNext = async (deps: OpsDeps): Promise<PendingItem | undefined> => {
    // A runner cut off from its database session starts nothing more: another replica may be settling the batch.
    const item = failed || !held.mayStillAct() ? undefined : pending[next++];
    if (!item) return undefined;
    if (deps.changesUnderWay.closing) {
      // The batch stops as a Stop would, and its requester gets Resume.
      await deps.store.batches.move(batchId, ['running'], 'stopping');
      return undefined;
    }
    if (!(await deps.store.batches.startItem(batchId, item.seq))) return undefined;
    await openIntent(deps, actor, itemCorrelationId(batchId, item.seq), item.work.intent);
    return item;
  };
  const worker = async () => {
    for (let item = await startNext(deps); item; ) {
      const { seq, work } = item;
      let following: PendingItem | undefined;
      const settle: Settle = async (deps, outcome) => {
        // Both sent before either is waited for: the item's rows are locked ahead of the audit chain (see Settle).
        const state = stateOf(outcome);
        const finishing =
          state === 'running'
            ? Promise.resolve()
            : deps.store.batches.finishItem(batchId, seq, state, outcome.ok ? undefined : outcome.message);
        [, following] = await bothEnded(finishing, startNext(deps));
      };
      const state = stateOf(await carryOutHeld(deps, actor, itemCorrelationId(batchId, seq), work, held, settle));
      counts.pending -= 1;
      counts[state] += 1;
      onProgress({ ...counts });
      item = following;
    }
  };
  // Every worker ends before the batch gives back its locks, even when one fails: the others' items are covered by
  // them until their outcomes are written.
  const workers = Array.from({ length: Math.min(BATCH_CONCURRENCY, pending.length) }, () =>
    worker().catch((error: unknown) => {
      failed ??= { error };
    }),
  );
  await Promise.all(workers);
  if (failed) throw failed.error;
}

/** An item whose outcome is unknown stays under way, its intent open, until the reconciler settles it. */
const stateOf = (outcome: Result<unknown>) => (outcome.ok ? 'succeeded' : outcome.unsettled ? 'running' : 'failed');

/** Ends a batch that ran to its end or was stopped: the items not started are cancelled, and the batch audited. */
async function finish(
  deps: OpsDeps,
  actor: Actor,
  batchId: string,
  tagged: ReadonlyMap<string, Tags>,
): Promise<BatchView> {
  const stopped = await deps.store.batches.move(batchId, ['stopping'], 'stopped');
  if (stopped) await cancelRest(deps, actor, batchId);
  else await deps.store.batches.move(batchId, ['running'], 'finished');
  const view = await batchView(deps, batchId);
  if (!view) throw new Error(`batch ${batchId} vanished`);
  // Items whose outcome is unknown: the batch's final word comes once the reconciler has settled them.
  if (view.counts.running) {
    const action = batchAction(view.plan.request.kind);
    await record(deps, actor, batchId, { action, outcome: 'unknown', params: countsParams(view.counts) });
    return view;
  }
  await recordEnd(deps, actor, view, view.counts);
  await announceBatch(deps, actor, view, tagged);
  return view;
}

/** The batch's final audit row (and its Undo's), once none of its items is being settled. */
async function recordEnd(
  deps: OpsDeps,
  actor: Actor,
  batch: Pick<Batch, 'id' | 'state' | 'plan'>,
  counts: ItemCounts,
): Promise<void> {
  const ended = {
    outcome: batch.state === 'stopped' ? 'cancelled' : counts.failed ? 'failed' : 'succeeded',
    params: countsParams(counts),
    error: counts.failed
      ? fail('provider', `${counts.failed} of the items failed.`, { code: 'items_failed' })
      : undefined,
  } as const;
  await record(deps, actor, batch.id, { action: batchAction(batch.plan.request.kind), ...ended });
  await recordUndoRow(deps, actor, batch.id, undoesOf(batch.plan.request), ended);
}

/** An ended batch whose last item being settled was settled: to announce, and to tell its requester how it ended. */
export interface SettledBatch {
  actor: Actor;
  batchId: string;
}

/**
 * Writes an ended batch's final audit rows once its last item is settled. The audit chain's lock, held since the
 * item's row, makes the transaction that settles the last item the one.
 */
export async function settledBatch(deps: OpsDeps, batchId: string): Promise<SettledBatch | undefined> {
  const batch = await deps.store.batches.get(batchId);
  if (!batch || !ENDED.includes(batch.state)) return undefined;
  const counts = await deps.store.batches.counts(batchId);
  if (counts.running) return undefined;
  const actor: Actor = { ...batch.actor, source: 'system' };
  await recordEnd(deps, actor, batch, counts);
  return { actor, batchId };
}

/** The one announcement of a batch settled after its runner ended; the batch as its requester is to be told it. */
export async function announceSettled(deps: OpsDeps, settled: SettledBatch): Promise<BatchView | undefined> {
  const view = await batchView(deps, settled.batchId);
  if (view) await announceBatch(deps, settled.actor, view);
  return view;
}

/** The items' counts as a batch's audit rows keep them, with those still being settled when there are any. */
const countsParams = (counts: ItemCounts) => ({
  succeeded: counts.succeeded,
  failed: counts.failed,
  cancelled: counts.cancelled,
  unchanged: counts.unchanged,
  ...(counts.running ? { settling: counts.running } : {}),
});

/** Each item that will not start now is audited as cancelled. */
async function cancelRest(deps: OpsDeps, actor: Actor, batchId: string): Promise<void> {
  for (const item of await deps.store.batches.cancelPending(batchId)) {
    const change = item.change;
    await record(deps, actor, batchId, { action: change.kind, outcome: 'cancelled', target: targetOf(change) });
  }
}

/** The numbers a batch changed, each with its agent when asked: what its announcement names. */
async function changedNumbers(
  deps: OpsDeps,
  batchId: string,
  withAgents: boolean,
): Promise<BatchAnnouncement['numbers']> {
  const items = await deps.store.batches.itemsIn(batchId, ['succeeded']);
  return items.map(({ change }) => {
    const agent = withAgents ? kindOf(change).routesTo?.(change) : undefined;
    return agent ? { number: numberOf(change), agent } : { number: numberOf(change) };
  });
}

/**
 * One message for the whole batch, never one per item; a lost one is audited, and changes nothing. A subscribed
 * channel is told of the numbers its filter picks, by the tags each number and the batch's agent had before it ran,
 * or, for a batch settled elsewhere, those they have now.
 */
async function announceBatch(
  deps: OpsDeps,
  actor: Actor,
  view: BatchView,
  tagsBefore?: ReadonlyMap<string, Tags>,
): Promise<void> {
  if (view.counts.succeeded === 0) return;
  try {
    const { plan, counts, total } = view;
    const { request } = plan;
    const numbers = await changedNumbers(deps, view.id, !plan.agent);
    const subjects = (number: string) => [number, ...(plan.agent ? [plan.agent.id] : [])];
    const tags = tagsBefore ?? (await deps.store.tags.of(numbers.flatMap(({ number }) => subjects(number))));
    const partsTagged = numbers.map(({ number }) => subjects(number).map((subject) => tags.get(subject) ?? NO_TAGS));
    const batch: BatchAnnouncement = {
      actor,
      batchId: view.id,
      kind: request.kind,
      agent: plan.agent,
      region: bulkFormOf(request.kind).region?.(request),
      numbers,
      counts,
      total,
      undo: view.undo,
    };
    const kind = subscribedAs(request.kind);
    const partOf = (some: BatchAnnouncement['numbers']) =>
      some.length === numbers.length ? batch : { ...batch, numbers: some, of: numbers.length };
    await keepForDigests(deps, kind, partsTagged, (picked) => ({
      batch: partOf(picked.map((index) => numbers[index] as BatchAnnouncement['numbers'][number])),
    }));
    await announceParts(deps, kind, numbers, partsTagged, (some, where) =>
      deps.announcer.announceBatch(partOf(some), where),
    );
  } catch (error) {
    deps.logger.warn({ err: error, batchId: view.id }, 'could not announce a batch');
    await record(deps, actor, view.id, {
      action: 'change.announce',
      outcome: 'failed',
      error: fail('undelivered', error instanceof Error ? error.message : 'The announcement could not be posted.'),
    });
  }
}

/** A running batch may also be stopped by whoever approved it, since they set it running. */
type MayAct = 'requester' | 'requester or approver';

const REFUSED: Record<MayAct, string> = {
  requester: 'Only the person who asked for this plan can confirm or cancel it.',
  'requester or approver': 'Only the person who asked for this plan, or who approved it, can stop it.',
};

/** The batch, when `actor` may act on it; anyone else is refused, and audited. */
async function ownBatch(
  deps: OpsDeps,
  actor: Actor,
  batchId: string,
  who: MayAct = 'requester',
): Promise<Result<{ batch: Batch }>> {
  const batch = await deps.store.batches.get(batchId);
  if (!batch) return notFound();
  if (batch.requestedBy === actor.userId) return { ok: true, batch };
  const approval = who === 'requester or approver' ? await deps.store.approvals.forChange(batchId) : undefined;
  const approved = approval?.state === 'approved' && approval.decidedBy === actor.userId;
  return approved ? { ok: true, batch } : notTheRequester(deps, actor, batch, who);
}

/** Someone else's batch: refused, and audited as a denial. */
function notTheRequester(deps: OpsDeps, actor: Actor, batch: Batch, who: MayAct = 'requester'): Promise<Failure> {
  const failure = fail('wrong_user', REFUSED[who]);
  const attempt = { action: actionOf(batch), correlationId: batch.id };
  return deny(deps, actor, attempt, failure, { reason: 'not the requester' });
}

/** Stop: items not yet started will not start. Items under way finish; the batch's runner then ends it. */
export async function stopBatch(deps: OpsDeps, actor: Actor, batchId: string): Promise<Result<object>> {
  const own = await ownBatch(deps, actor, batchId, 'requester or approver');
  if (!own.ok) return own;
  if (!(await deps.store.batches.move(batchId, ['running'], 'stopping'))) {
    return fail('already_used', 'That batch is no longer running: nothing is left to stop.');
  }
  await record(deps, actor, batchId, {
    action: actionOf(own.batch),
    outcome: 'cancelled',
    params: { stop: 'requested' },
  });
  return { ok: true };
}

/** Cancel on a plan not yet confirmed: it can no longer be applied. */
export async function cancelPlan(deps: OpsDeps, actor: Actor, batchId: string): Promise<Result<object>> {
  const own = await ownBatch(deps, actor, batchId);
  if (!own.ok) return own;
  if (!(await deps.store.batches.move(batchId, ['planned'], 'expired'))) return alreadyStarted(deps, batchId);
  await record(deps, actor, batchId, { action: actionOf(own.batch), outcome: 'cancelled' });
  await recordUndoRow(deps, actor, batchId, undoesOf(own.batch.plan.request), { outcome: 'cancelled' });
  return { ok: true };
}

/** The failed items of an ended batch, or those it never reached, planned again (checked afresh) as a new plan. */
export async function planAgain(
  deps: OpsDeps,
  actor: Actor,
  batchId: string,
  which: 'failed' | 'rest',
): Promise<PlanResult> {
  const batch = await deps.store.batches.get(batchId);
  if (!batch) return notFound();
  const items = await deps.store.batches.itemsIn(batchId, which === 'failed' ? ['failed'] : ['pending', 'cancelled']);
  if (items.length === 0) return fail('not_found', 'Nothing is left to plan again: every item of that batch ended.');
  const numbers = items.map((item) => numberOf(item.change));
  return planBatch(deps, actor, requestFor(batch.plan.request, numbers));
}

/** The numbers a batch bought, planned to route to one agent: the way on from a bulk buy's result. */
export async function routeBought(deps: OpsDeps, actor: Actor, batchId: string, agentId: string): Promise<PlanResult> {
  const batch = await deps.store.batches.get(batchId);
  if (!batch || !bulkFormOf(batch.plan.request.kind).words.routeNext) return notFound();
  const items = await deps.store.batches.itemsIn(batchId, ['succeeded']);
  if (items.length === 0) return fail('not_found', 'That batch bought no number to route.');
  return planBatch(deps, actor, { kind: KIND.map, agentId, numbers: items.map((item) => numberOf(item.change)) });
}

/** Batches marked running that no process runs: neither this one nor, holding its lease, another replica. */
export async function abandonedBatches(deps: OpsDeps): Promise<Batch[]> {
  const abandoned: Batch[] = [];
  for (const batch of await deps.store.batches.underWay())
    if (!(await runsAnywhere(deps, batch.id))) abandoned.push(batch);
  return abandoned;
}

/**
 * Batches whose runner stopped (a crash, a redeploy): no item not yet started will start by itself. A batch is marked
 * interrupted, audited and returned (for its requester to be told where it stopped, and offered a Resume) once its
 * items under way are resolved: the reconciler's intents come first, so that what the requester is told is final.
 */
export async function interruptAbandoned(deps: OpsDeps): Promise<{ actor: Actor; view: BatchView }[]> {
  const interrupted: { actor: Actor; view: BatchView }[] = [];
  for (const batch of await abandonedBatches(deps)) {
    if (!(await itemsSettled(deps, batch.id))) continue; // an item's intent awaits the reconciler: the next pass
    if (!(await deps.store.batches.move(batch.id, ['running', 'stopping'], 'interrupted'))) continue;
    const actor: Actor = { ...batch.actor, source: 'system' };
    const view = await batchView(deps, batch.id);
    if (!view) continue;
    const cutShort = {
      outcome: 'failed',
      params: countsParams(view.counts),
      error: fail(
        'provider',
        'The batch was cut short (the app stopped, or lost its database): the rest waits for Resume.',
        { code: 'interrupted' },
      ),
    } as const;
    await record(deps, actor, batch.id, { action: batchAction(view.plan.request.kind), ...cutShort });
    await recordUndoRow(deps, actor, batch.id, undoesOf(view.plan.request), cutShort);
    interrupted.push({ actor, view });
  }
  return interrupted;
}

/**
 * Settles the items a dead runner left marked started: one whose change never opened its intent did not reach the
 * provider and waits for Resume; one whose intent is closed takes its outcome. False while an intent is still open.
 */
async function itemsSettled(deps: OpsDeps, batchId: string): Promise<boolean> {
  let settled = true;
  for (const item of await deps.store.batches.itemsIn(batchId, ['running'])) {
    const intent = await deps.store.intents.get(itemCorrelationId(batchId, item.seq));
    if (!intent) await deps.store.batches.finishItem(batchId, item.seq, 'pending');
    else if (intent.outcome) await deps.store.batches.finishItem(batchId, item.seq, intent.outcome);
    else settled = false;
  }
  return settled;
}
