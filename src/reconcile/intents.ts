// Changes the app started but never saw the end of (it stopped mid-call): what really happened is read from the
// provider, audited as reconciled, corrected in the routing records, announced once, and told to the requester.

import {
  type Actor,
  announce,
  announceSettled,
  atomically,
  auditParamsOf,
  type BatchView,
  batchItemOf,
  type ChangeIntent,
  type Done,
  type OpsDeps,
  ProviderReads,
  record,
  refuseSecondOutcome,
  reportSecondOutcome,
  requestIdOf,
  runsAnywhere,
  type SecondOutcome,
  type SettledBatch,
  settledBatch,
  subjectOf,
  taggedNow,
  targetOf,
  touchedBy,
  type Verified,
  verifyChange,
} from '../ops/api.js';
import { ProviderError } from '../provider/errors.js';
import type { Intent } from '../store/intents.js';
import type { BackOff } from './back-off.js';

/** Tells the requester of an interrupted change how it ended; the Slack layer picks the route. */
export type TellRequester = (
  to: { actor: Actor; replyAddress?: string; openedAt: string },
  outcome: Verified,
) => Promise<void>;

/** Tells the requester of a batch whose last item being settled was settled how the batch ended. */
export type TellBatch = (actor: Actor, view: BatchView) => Promise<void>;

/** How changes whose outcome is unknown are settled: tried again with back-off, and their batches told once. */
interface Unknowns {
  backOff: BackOff;
  tellBatch: TellBatch;
}

/**
 * Resolves open intents older than `settledBefore`, or of a dead replica. One the provider does not answer is tried
 * again after its back-off, its error thrown at the end; a change withheld (fence.ts) stops the resolving at once.
 */
export async function resolveIntents(
  deps: OpsDeps,
  tell: TellRequester,
  settledBefore: Date,
  unknowns: Unknowns,
): Promise<number> {
  const open = await underWayNowhere(deps, await deps.store.intents.openedBefore(deps.now()));
  const reads = new ProviderReads(deps);
  let resolved = 0;
  let unanswered: ProviderError | undefined;
  for (const intent of open) {
    const settled = intent.openedAt <= settledBefore.toISOString();
    if (!settled && !(await orphaned(deps, intent))) continue;
    const id = intent.correlationId;
    if (!unknowns.backOff.due(id, deps.now())) continue;
    try {
      if (await resolveOne(deps, tell, unknowns.tellBatch, reads, intent, settled)) resolved += 1;
      unknowns.backOff.settled(id);
    } catch (error) {
      // Withheld, the change was not sent (the pass's lease may have lapsed, or its liveness ended): the pass stops.
      if (!(error instanceof ProviderError) || error.kind === 'withheld') throw error;
      unknowns.backOff.failed(id, deps.now());
      unanswered ??= error;
    }
  }
  if (unanswered) throw unanswered;
  return resolved;
}

/** Whether the replica that opened the intent has died (intents from before replicas were named cannot say). */
async function orphaned(deps: OpsDeps, intent: Intent): Promise<boolean> {
  const { liveness } = deps.store;
  return (
    intent.replica !== undefined && intent.replica !== liveness.replica && !(await liveness.isAlive(intent.replica))
  );
}

/** The open intents under way nowhere (an item of a batch is under way while its batch runs): their process died. */
export async function underWayNowhere(deps: OpsDeps, open: Intent[]): Promise<Intent[]> {
  const stopped: Intent[] = [];
  for (const intent of open) if (!(await runsAnywhere(deps, requestIdOf(intent.correlationId)))) stopped.push(intent);
  return stopped;
}

/**
 * False when left open. A dead replica's change younger than its call's timeout may still reach the provider: it is
 * resolved now only if shown done, otherwise once `settled`.
 */
async function resolveOne(
  deps: OpsDeps,
  tell: TellRequester,
  tellBatch: TellBatch,
  reads: ProviderReads,
  intent: Intent,
  settled: boolean,
): Promise<boolean> {
  const change = intent.change;
  const requester = intent.actor;
  // The requester made the same change again since, and it went through: that one was answered and announced.
  const target = targetOf(change);
  const redone = (await deps.store.audit.changesMade(intent.openedAt, deps.now().toISOString())).some(
    (made) => made.action === change.kind && made.target === target,
  );
  if (redone) {
    await closeQuietly(deps, tellBatch, requester, intent, change);
    return true;
  }
  // Read before the verification, which may forget them (a release), for where the change is announced.
  const tagged = await taggedNow(deps, touchedBy(change));
  const outcome = await verifyChange(deps, reads, change, requester.userId);
  if (!outcome.ok && !settled) return false;
  // An item of a batch is told with its batch (see interruptAbandoned), never on its own.
  const item = batchItemOf(intent.correlationId);
  // The reconciler acts for the requester: their change, their name, marked as reconciled by the system.
  const actor: Actor = { ...requester, source: 'system' };
  const ended = await atomically(
    deps,
    async (deps): Promise<{ closed: true; batch?: SettledBatch } | { closed: false; second?: SecondOutcome }> => {
      const closing = await deps.store.intents.close(intent.correlationId, outcome.ok ? 'succeeded' : 'failed');
      // Resolved meanwhile by another pass or process: what this pass found is no outcome of the change's.
      if (!closing) {
        const refused = outcome.ok ? 'succeeded' : 'failed';
        const second = await refuseSecondOutcome(deps, actor, intent.correlationId, {
          action: change.kind,
          target,
          refused,
        });
        return { closed: false, second };
      }
      // What the change's normal path keeps is kept by whoever closes its intent, here as there.
      if (outcome.ok) await outcome.keep?.(deps);
      if (item) {
        const error = outcome.ok ? undefined : outcome.message;
        await deps.store.batches.finishItem(item.batchId, item.seq, outcome.ok ? 'succeeded' : 'failed', error);
      }
      await record(deps, actor, requestIdOf(intent.correlationId), {
        action: change.kind,
        outcome: outcome.ok ? 'succeeded' : 'failed',
        target: outcome.ok ? subjectOf(outcome.change) : targetOf(change),
        params: { reconciled: true, ...auditParamsOf(change), ...(outcome.ok ? outcome.found : {}) },
        error: outcome.ok ? undefined : outcome,
      });
      // The last item of an ended batch to be settled gives the batch its final word.
      return { closed: true, batch: item ? await settledBatch(deps, item.batchId) : undefined };
    },
    { replayable: true },
  );
  if (!ended.closed) {
    if (ended.second) reportSecondOutcome(deps, ended.second);
    return false;
  }
  deps.lists.invalidate();
  deps.logger.info(
    { correlationId: intent.correlationId, action: change.kind, outcome: outcome.ok ? 'succeeded' : 'failed' },
    'reconciled a change the app did not see to its end',
  );
  if (ended.batch) await tellSettled(deps, tellBatch, ended.batch);
  if (item) return true;
  if (outcome.ok) {
    const done: Done = { change: outcome.change, correlationId: intent.correlationId, tagged };
    await announce(deps, actor, done);
  }
  await tell({ actor: requester, replyAddress: intent.replyAddress, openedAt: intent.openedAt }, outcome).catch(
    (error: unknown) =>
      deps.logger.warn({ err: error, correlationId: intent.correlationId }, 'could not tell the requester'),
  );
  return true;
}

/** A batch whose items being settled are settled: announced once, and its requester told how it ended. */
async function tellSettled(deps: OpsDeps, tellBatch: TellBatch, settled: SettledBatch): Promise<void> {
  const view = await announceSettled(deps, settled);
  if (!view) return;
  await tellBatch(settled.actor, view).catch((error: unknown) =>
    deps.logger.warn({ err: error, batchId: view.id }, 'could not tell a requester how their batch ended'),
  );
}

async function closeQuietly(
  deps: OpsDeps,
  tellBatch: TellBatch,
  requester: Actor,
  intent: Intent,
  change: ChangeIntent,
): Promise<void> {
  const item = batchItemOf(intent.correlationId);
  const settled = await atomically(
    deps,
    async (deps) => {
      if (!(await deps.store.intents.close(intent.correlationId, 'succeeded'))) return undefined;
      if (item) await deps.store.batches.finishItem(item.batchId, item.seq, 'succeeded');
      await record(deps, { ...requester, source: 'system' }, requestIdOf(intent.correlationId), {
        action: change.kind,
        outcome: 'succeeded',
        target: targetOf(change),
        params: { reconciled: true, madeAgainBy: 'a later request', ...auditParamsOf(change) },
      });
      return item ? settledBatch(deps, item.batchId) : undefined;
    },
    { replayable: true },
  );
  if (settled) await tellSettled(deps, tellBatch, settled);
}
