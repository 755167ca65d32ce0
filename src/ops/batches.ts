// Bulk changes, planned and applied like code: a plan lists every item with its effect and is stored as a batch;
// one confirmation covers it; each item then goes through `carryOut` like a single change (its own intent and locks,
// its audit rows under the batch's correlation id), a few at a time. Stop keeps the items not yet started from
// happening. A batch cut short by a crash is never continued by itself: its requester is told, and may resume it.
import { z } from 'zod';
import type { Batch, BatchItem, ItemCounts } from '../store/batches.js';
import {
  type BulkMapRequest,
  bulkMapRequest,
  type MapChange,
  type PlannedMap,
  planMapItems,
  samePlan,
} from './bulk-map.js';
import { carryOut } from './carry-out.js';
import { itemCorrelationId, pendingChange } from './changes.js';
import { busy, deny, newCorrelationId, type OpsDeps, record } from './context.js';
import type { Page } from './pages.js';
import { mayConfirm, mayRequest, needsApproval } from './policies.js';
import { mapWork } from './routing.js';
import { type Actor, type Failure, fail, type Result, storedActor } from './types.js';

/** Items under way at once: the provider's pace (it answers 429 beyond its own), against the batch's duration. */
export const BATCH_CONCURRENCY = 4;

/** What a batch's plan says, as stored with it. */
const storedPlan = z.object({
  request: bulkMapRequest,
  agent: z.object({ id: z.string(), name: z.string() }),
  totals: z.object({ add: z.number(), reroute: z.number(), unchanged: z.number() }),
});
export type StoredPlan = z.infer<typeof storedPlan>;

/** One item as shown: the number, where it routes now, and what became of it. */
export interface BatchLine {
  seq: number;
  number: string;
  previousAgent?: { id: string; name?: string };
  state: BatchItem['state'];
  error?: string;
}

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
}

export type PlanResult = Result<{ view: BatchView }>;

const lineOf = (item: BatchItem): BatchLine => {
  const change = pendingChange.parse(item.change) as MapChange;
  return {
    seq: item.seq,
    number: change.phoneNumber,
    previousAgent: change.previousAgent,
    state: item.state,
    error: item.error,
  };
};

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
  const ended = ['finished', 'stopped', 'interrupted'].includes(batch.state);
  const failures = ended ? (await deps.store.batches.itemsIn(batchId, ['failed'])).map(lineOf) : [];
  return {
    id: batch.id,
    state: batch.state,
    requestedBy: batch.requestedBy,
    expiresAt: batch.expiresAt,
    plan: storedPlan.parse(batch.plan),
    counts,
    total: batch.total - counts.unchanged,
    items: { items: items.map(lineOf), page: current, pages, total: batch.total, filter: { batchId } },
    failures,
  };
}

/** The numbers a `/voice numbers` filter picks (or a list names), routed to one agent: planned, not yet done. */
export async function planMap(deps: OpsDeps, actor: Actor, request: BulkMapRequest): Promise<PlanResult> {
  const batchId = newCorrelationId();
  const attempt = { action: 'routing.map' as const, correlationId: batchId };
  const denied = await mayRequest(deps, actor, 'operator', attempt);
  if (denied) return denied;
  const approval = refuseWhereApprovalIsNeeded(deps);
  if (approval) return deny(deps, actor, attempt, approval, { rule: 'VOICE_REQUIRE_APPROVAL', bulk: true });
  const planned = await planMapItems(deps, request);
  if (!planned.ok) {
    await record(deps, actor, batchId, { action: 'batch.map', outcome: 'rejected', error: planned });
    return planned;
  }
  return storePlan(deps, actor, batchId, request, planned);
}

async function storePlan(
  deps: OpsDeps,
  actor: Actor,
  batchId: string,
  request: BulkMapRequest,
  planned: PlannedMap,
): Promise<PlanResult> {
  const totals = {
    add: planned.items.filter((item) => !item.unchanged && !item.change.previousAgent).length,
    reroute: planned.items.filter((item) => item.change.previousAgent).length,
    unchanged: planned.items.filter((item) => item.unchanged).length,
  };
  const plan: StoredPlan = { request, agent: planned.agent, totals };
  const { replyAddress: _, ...who } = actor;
  await deps.store.batches.create({
    id: batchId,
    kind: 'routing.map',
    plan,
    requestedBy: actor.userId,
    actor: who,
    items: planned.items.map((item) => ({ change: item.change, state: item.unchanged ? 'unchanged' : 'pending' })),
  });
  await record(deps, actor, batchId, {
    action: 'batch.map',
    outcome: 'requested',
    target: `${planned.items.length} numbers`,
    params: {
      agentId: planned.agent.id,
      agentName: planned.agent.name,
      ...(request.filter ? { filter: request.filter } : { named: request.numbers?.length }),
      ...totals,
    },
  });
  const view = await batchView(deps, batchId);
  if (!view) throw new Error(`batch ${batchId} was not stored`);
  return { ok: true, view };
}

/** Any map, for the rules that depend only on the kind of change (its role, its approval). */
const mapProbe: MapChange = { kind: 'routing.map', phoneNumber: '', agentId: '', agentName: '' };

/**
 * A second approver is asked for each change, never for a batch as a whole yet: rather than let a batch slip past
 * the rule, bulk changes are refused while it covers maps.
 */
function refuseWhereApprovalIsNeeded(deps: OpsDeps): Failure | undefined {
  if (!needsApproval(deps, mapProbe)) return undefined;
  return fail(
    'denied',
    'Maps wait for a second approver here (VOICE_REQUIRE_APPROVAL), and a bulk map cannot wait for one: map the ' +
      'numbers one at a time, or ask whoever runs Voice Ops to change VOICE_REQUIRE_APPROVAL.',
    { code: 'approval_required' },
  );
}

/** Told after each item, to show progress. */
export type OnProgress = (counts: ItemCounts) => void;

export type ApplyResult = Result<{ status: 'done'; view: BatchView } | { status: 'changed'; view: BatchView }>;

/**
 * Confirms a plan and applies it. The plan is checked again against the provider first: when it would now do
 * something else, the plan is not applied and the new one is returned for its own confirmation. Starting the batch is
 * one conditional UPDATE, so a double click, a retried delivery or another replica applies it once.
 */
export async function applyBatch(
  deps: OpsDeps,
  actor: Actor,
  batchId: string,
  onProgress: OnProgress,
): Promise<ApplyResult> {
  const batch = await deps.store.batches.get(batchId);
  const refused = batch ? await refuseToStart(deps, actor, batch) : notFound();
  if (refused || !batch) return refused ?? notFound();
  const plan = storedPlan.parse(batch.plan);
  const attempt = { action: 'routing.map' as const, correlationId: batchId };
  const denied = (await mayConfirm(deps, actor, mapProbe, attempt)) ?? refuseWhereApprovalIsNeeded(deps);
  if (denied) return denied;
  const now = await planMapItems(deps, plan.request);
  const shown = (await deps.store.batches.items(batchId, { offset: 0, limit: batch.total })).map((item) => ({
    change: pendingChange.parse(item.change) as MapChange,
    unchanged: item.state === 'unchanged',
  }));
  if (!now.ok || !samePlan(shown, now.items)) {
    if (!(await deps.store.batches.move(batchId, ['planned'], 'expired'))) return alreadyStarted(deps, batchId);
    await record(deps, actor, batchId, {
      action: 'batch.map',
      outcome: 'expired',
      error: fail('conflict', 'What the plan would do changed before it was confirmed.', { code: 'plan_changed' }),
    });
    if (!now.ok) return now;
    const replanned = await storePlan(deps, actor, newCorrelationId(), plan.request, now);
    return replanned.ok ? { ok: true, status: 'changed', view: replanned.view } : replanned;
  }
  // The batch's own lease tells every replica that it is under way while this process runs it; it holds the agent,
  // so that nobody deletes it midway, and each item holds its number.
  const ran = await deps.locks.tryWith([`agent:${plan.agent.id}`], batchId, async () => {
    if (!(await deps.store.batches.start(batchId, actor.userId))) return undefined;
    await record(deps, actor, batchId, { action: 'batch.map', outcome: 'confirmed' });
    const describe = () => `batch ${batchId} by ${actor.userId}`;
    await deps.changes.run(describe, () => runItems(deps, actor, batchId, onProgress), batchId);
    return finish(deps, actor, batchId);
  });
  if (ran?.value) return { ok: true, status: 'done', view: ran.value };
  const current = await deps.store.batches.get(batchId);
  // Still planned: the agent is busy with another change (or a second click holds the batch for a moment).
  if (!ran && current?.state === 'planned') return busy(`agent ${plan.agent.name}`);
  return current ? alreadyStartedMessage(current) : notFound();
}

const notFound = (): Failure => fail('not_found', 'That plan does not exist. Start again from the command.');

async function refuseToStart(deps: OpsDeps, actor: Actor, batch: Batch): Promise<Failure | undefined> {
  if (batch.requestedBy !== actor.userId) {
    const failure = fail('wrong_user', 'Only the person who asked for this plan can confirm, stop or cancel it.');
    return deny(deps, actor, { action: 'routing.map', correlationId: batch.id }, failure, {
      reason: 'not the requester',
    });
  }
  if (batch.state !== 'planned') return alreadyStartedMessage(batch);
  if (Date.parse(batch.expiresAt) > deps.now().getTime()) return undefined;
  if (await deps.store.batches.move(batch.id, ['planned'], 'expired')) {
    const failure = fail('expired', 'That plan expired (plans last 10 minutes). Nothing was changed: start again.');
    await record(deps, actor, batch.id, { action: 'batch.map', outcome: 'expired', error: failure });
    return failure;
  }
  return alreadyStarted(deps, batch.id);
}

async function alreadyStarted(deps: OpsDeps, batchId: string): Promise<Failure> {
  const batch = await deps.store.batches.get(batchId);
  return batch ? alreadyStartedMessage(batch) : notFound();
}

function alreadyStartedMessage(batch: Batch): Failure {
  switch (batch.state) {
    case 'running':
    case 'stopping':
      return fail('already_used', 'That plan is being applied: its message shows how far it has gone.');
    case 'expired':
      return fail('expired', 'That plan expired or was replaced by a newer one. Nothing was changed: start again.');
    default:
      return fail('already_used', 'That plan was already applied, once. `/voice audit` shows what became of it.');
  }
}

/** Walks the pending items, a few at a time, each as a change of its own; stops taking new ones at a Stop. */
async function runItems(deps: OpsDeps, actor: Actor, batchId: string, onProgress: OnProgress): Promise<void> {
  const pending = await deps.store.batches.itemsIn(batchId, ['pending']);
  // Counted here rather than read back after each item: one runner owns the batch's items while it runs.
  const counts = await deps.store.batches.counts(batchId);
  let next = 0;
  const worker = async () => {
    for (let item = pending[next++]; item; item = pending[next++]) {
      if (!(await deps.store.batches.startItem(batchId, item.seq))) return; // stopped
      const change = pendingChange.parse(item.change) as MapChange;
      const correlationId = itemCorrelationId(batchId, item.seq);
      // The batch holds the agent for all of its items (see applyBatch); each item holds its number.
      const work = { ...mapWork(deps, change, actor.userId), lockKeys: [`number:${change.phoneNumber}`] };
      const done = await carryOut(deps, actor, correlationId, work);
      const state = done.ok ? 'succeeded' : 'failed';
      await deps.store.batches.finishItem(batchId, item.seq, state, done.ok ? undefined : done.message);
      counts.pending -= 1;
      counts[state] += 1;
      onProgress({ ...counts });
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, pending.length) }, worker));
}

/** Ends a batch that ran to its end or was stopped: the items not started are cancelled, and the batch audited. */
async function finish(deps: OpsDeps, actor: Actor, batchId: string): Promise<BatchView> {
  const stopped = await deps.store.batches.move(batchId, ['stopping'], 'stopped');
  if (stopped) await cancelRest(deps, actor, batchId);
  else await deps.store.batches.move(batchId, ['running'], 'finished');
  const counts = await deps.store.batches.counts(batchId);
  await record(deps, actor, batchId, {
    action: 'batch.map',
    outcome: stopped ? 'cancelled' : counts.failed ? 'failed' : 'succeeded',
    params: countsParams(counts),
    error: counts.failed
      ? fail('provider', `${counts.failed} of the items failed.`, { code: 'items_failed' })
      : undefined,
  });
  const view = await batchView(deps, batchId);
  if (!view) throw new Error(`batch ${batchId} vanished`);
  await announceBatch(deps, actor, view);
  return view;
}

const countsParams = (counts: ItemCounts) => ({
  succeeded: counts.succeeded,
  failed: counts.failed,
  cancelled: counts.cancelled,
  unchanged: counts.unchanged,
});

/** Each item that will not start now is audited as cancelled. */
async function cancelRest(deps: OpsDeps, actor: Actor, batchId: string): Promise<void> {
  for (const item of await deps.store.batches.cancelPending(batchId)) {
    const change = pendingChange.parse(item.change) as MapChange;
    await record(deps, actor, batchId, { action: 'routing.map', outcome: 'cancelled', target: change.phoneNumber });
  }
}

/** One message for the whole batch, never one per item; a lost one is audited, and changes nothing. */
async function announceBatch(deps: OpsDeps, actor: Actor, view: BatchView): Promise<void> {
  if (view.counts.succeeded === 0) return;
  try {
    const { plan, counts, total } = view;
    await deps.announcer.announceBatch({ actor, batchId: view.id, agent: plan.agent, counts, total });
  } catch (error) {
    deps.logger.warn({ err: error, batchId: view.id }, 'could not announce a batch');
    await record(deps, actor, view.id, {
      action: 'change.announce',
      outcome: 'failed',
      error: fail('undelivered', error instanceof Error ? error.message : 'The announcement could not be posted.'),
    });
  }
}

/** Stop: items not yet started will not start. Items under way finish; the batch's runner then ends it. */
export async function stopBatch(deps: OpsDeps, actor: Actor, batchId: string): Promise<Result<{ view: BatchView }>> {
  const batch = await deps.store.batches.get(batchId);
  if (!batch) return notFound();
  if (batch.requestedBy !== actor.userId) {
    const failure = fail('wrong_user', 'Only the person who asked for this plan can confirm, stop or cancel it.');
    return deny(deps, actor, { action: 'routing.map', correlationId: batchId }, failure, {
      reason: 'not the requester',
    });
  }
  if (!(await deps.store.batches.move(batchId, ['running'], 'stopping'))) {
    return fail('already_used', 'That batch is no longer running: nothing is left to stop.');
  }
  await record(deps, actor, batchId, { action: 'batch.map', outcome: 'cancelled', params: { stop: 'requested' } });
  const view = await batchView(deps, batchId);
  return view ? { ok: true, view } : notFound();
}

/** Cancel on a plan not yet confirmed. */
export async function cancelPlan(deps: OpsDeps, actor: Actor, batchId: string): Promise<Result<object>> {
  const batch = await deps.store.batches.get(batchId);
  if (!batch) return notFound();
  const refused = await refuseToStart(deps, actor, batch);
  if (refused) return refused;
  if (!(await deps.store.batches.move(batchId, ['planned'], 'expired'))) return alreadyStarted(deps, batchId);
  await cancelRest(deps, actor, batchId);
  await record(deps, actor, batchId, { action: 'batch.map', outcome: 'cancelled' });
  return { ok: true };
}

/** The failed items of an ended batch, or those it never reached, planned again (re-checked) as a new plan. */
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
  const { request } = storedPlan.parse(batch.plan);
  const numbers = items.map((item) => (pendingChange.parse(item.change) as MapChange).phoneNumber);
  return planMap(deps, actor, { kind: request.kind, agentId: request.agentId, numbers });
}

/** Batches marked running that no process runs: neither this one nor, holding its lease, another replica. */
export async function abandonedBatches(deps: OpsDeps): Promise<Batch[]> {
  const abandoned: Batch[] = [];
  for (const batch of await deps.store.batches.underWay()) {
    if (!deps.changes.isRunning(batch.id) && !(await deps.locks.isUnderWay(batch.id))) abandoned.push(batch);
  }
  return abandoned;
}

/**
 * Batches whose runner stopped (a crash, a redeploy): no item not yet started will start by itself. Their items
 * under way are left to the reconciler's intents; each batch is marked interrupted, audited, and returned, for its
 * requester to be told and offered a Resume.
 */
export async function interruptAbandoned(deps: OpsDeps): Promise<{ actor: Actor; view: BatchView }[]> {
  const interrupted: { actor: Actor; view: BatchView }[] = [];
  for (const batch of await abandonedBatches(deps)) {
    if (!(await deps.store.batches.move(batch.id, ['running', 'stopping'], 'interrupted'))) continue;
    const actor: Actor = { ...storedActor.parse(batch.actor), source: 'system' };
    // An item marked started whose change never opened its intent did not reach the provider.
    for (const item of await deps.store.batches.itemsIn(batch.id, ['running'])) {
      const intent = await deps.store.intents.get(itemCorrelationId(batch.id, item.seq));
      if (!intent) await deps.store.batches.finishItem(batch.id, item.seq, 'pending');
      else if (intent.outcome) await deps.store.batches.finishItem(batch.id, item.seq, intent.outcome);
    }
    const counts = await deps.store.batches.counts(batch.id);
    await record(deps, actor, batch.id, {
      action: 'batch.map',
      outcome: 'failed',
      params: countsParams(counts),
      error: fail('provider', 'The app stopped while applying the batch: the rest waits for Resume.', {
        code: 'interrupted',
      }),
    });
    const view = await batchView(deps, batch.id);
    if (view) interrupted.push({ actor, view });
  }
  return interrupted;
}
