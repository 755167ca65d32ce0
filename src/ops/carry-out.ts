import { setTimeout as sleep } from 'node:timers/promises';
import { NO_TAGS, type Tags } from '../store/tags.js';
import { record } from './audit-rows.js';
import { busyWith } from './busy.js';
import { type ChangeIntent, requestIdOf } from './changes.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import { subjectOf, touchedBy, type UndoOffer, undoOffer, verifyChange } from './kinds/index.js';
import type { Held } from './locks.js';
import { givenAway, outOfReach, ownedElsewhere } from './ownership.js';
import { ProviderReads } from './provider-reads.js';
import { isSecondOutcome, refuseSecondOutcome, reportSecondOutcome, secondOutcomeFailure } from './second-outcome.js';
import { atomically, bothEnded } from './transactions.js';
import type { Actor, Failure, Result } from './types.js';
import { recordUndoRow, undoesOf } from './undo-trail.js';
import type { Finished, Work } from './work.js';

/** A finished change as carried out: its report, and the correlation id of its audit trail. */
export interface Done extends Omit<Finished, 'keep'> {
  /** Ties the change's announcement (and any failure of it) to the rest of its audit trail. */
  correlationId: string;
  /** Whether its maker is offered Undo, and if not, why; absent when the policy offers none. */
  undo?: UndoOffer;
  /** The labels and owner of the numbers and agents it touched, as they were before it: where it is announced. */
  tagged: Tags[];
}

/**
 * What else an outcome settles, in the transaction that audits it. It sends its row locks before it first waits, so
 * that they reach the database ahead of the audit chain's lock (see carryOutHeld).
 */
export type Settle = (deps: OpsDeps, outcome: Result<unknown>) => Promise<void>;

/** A trace the reconciler can resolve should a crash come before the outcome; opening it twice changes nothing. */
export function openIntent(deps: OpsDeps, actor: Actor, correlationId: string, intent: ChangeIntent): Promise<void> {
  const { replyAddress, ...who } = actor;
  return deps.store.intents.open({ correlationId, action: intent.kind, change: intent, actor: who, replyAddress });
}

/**
 * A single change's path to the provider. Its locks are released once the outcome is known, and announcing is the
 * caller's next step (`announce`), so that nothing waits on the announcement channel.
 */
export async function carryOut(deps: OpsDeps, actor: Actor, correlationId: string, work: Work): Promise<Result<Done>> {
  await openIntent(deps, actor, correlationId, work.intent);
  deps.delivery?.noteIntentOpened();
  return carryOutClaimed(deps, actor, correlationId, work);
}

/**
 * The same path for a change whose intent its claim opened (a confirmation's, an approval's), in its transaction; an
 * Undo's change (an agent's deletion) also gives the Undo its outcome, unless the reconciler is to settle it.
 */
export async function carryOutClaimed(
  deps: OpsDeps,
  actor: Actor,
  correlationId: string,
  work: Work,
): Promise<Result<Done>> {
  const describe = () =>
    [work.action, work.target, `by ${actor.userId}`, `correlation ${correlationId}`].filter(Boolean).join(' ');
  const done = await deps.changesUnderWay.run(
    describe,
    () => carryOutLocked(deps, actor, correlationId, work),
    correlationId,
  );
  // An outcome refused as the second one leaves the Undo to the outcome that stands, which the reconciler recorded.
  if (done.ok || !(done.unsettled || isSecondOutcome(done))) {
    const outcome = done.ok ? { outcome: 'succeeded' as const } : { outcome: 'failed' as const, error: done };
    await recordUndoRow(deps, actor, correlationId, undoesOf(work.intent), outcome);
  }
  return done;
}

async function carryOutLocked(deps: OpsDeps, actor: Actor, correlationId: string, work: Work): Promise<Result<Done>> {
  const locked = await deps.locks.tryWith(work.lockKeys, correlationId, (held) =>
    carryOutHeld(deps, actor, correlationId, work, held),
  );
  if (locked) return locked.value;
  const failure = await busyWith(deps, work.lockKeys, work.target ?? 'that item');
  await atomically(deps, async (deps) => {
    const closed = await deps.store.intents.close(correlationId, 'failed');
    if (closed)
      await record(deps, actor, requestIdOf(correlationId), { ...entryOf(work), outcome: 'failed', error: failure });
  });
  return failure;
}

/** The provider call of a change whose intent is open and resources held, then its outcome and audit row. */
export async function carryOutHeld(
  deps: OpsDeps,
  actor: Actor,
  correlationId: string,
  work: Work,
  held: Held,
  settle?: Settle,
): Promise<Result<Done>> {
  // Every request the change sends, its verification's included, goes through the client its locks hand it, so that
  // a change begun before this replica lost its liveness, or whose leases lapsed, sends nothing after (fence.ts).
  const provider = deps.provider.forChange({
    mayStillAct: () => held.mayStillAct(),
    lapsed: () => held.lapsed(),
    sent: () => deps.delivery?.noteChangeSent(),
  });
  // Checked under the change's locks, which a label change takes too: no owner changes between this and the call.
  const touched = touchedBy(work.intent);
  const settings = await deps.settings.current();
  // Read once, before the change, which may forget them (a release): for its owners, and for where it is announced.
  const found = await deps.store.tags.of(touched);
  const [beyond] = await outOfReach(deps, settings, actor, touched, found);
  const refused = beyond ? ownedElsewhere(beyond) : await givenAway(deps, settings, actor, work.intent);
  const tagged = touched.map((subject) => found.get(subject) ?? NO_TAGS);
  // Whatever the outcome (a lost answer may still have changed something), kept lists are read again.
  const ran = refused ?? (await work.run(provider).catch(providerFailure).finally(deps.lists.invalidate));
  // A batch's item is checked before its batch moves on, so that the batch's counts and messages are final where
  // they can be; a single change the provider may still make is left to the reconciler at once.
  const result =
    !ran.ok && ran.unsettled && settle ? await verifiedOnceDone({ ...deps, provider }, work.intent, actor.userId) : ran;
  if (!result.ok && result.unsettled) return beingSettled(deps, actor, correlationId, work, result, settle);
  // The intent is closed first, and the outcome recorded only by whoever closed it: should a reconciler have
  // taken this change for abandoned meanwhile, it has recorded the outcome, and the audit gets one.
  const second = await atomically(
    deps,
    async (deps) => {
      // Sent at once (one Postgres round trip), rows before the chain's lock as in every transaction that appends:
      // one holding the chain while waiting for a row held by one waiting for the chain would deadlock.
      const closing = deps.store.intents.close(correlationId, result.ok ? 'succeeded' : 'failed');
      const settling = settle?.(deps, result);
      deps.store.audit.takeChainEnd();
      const [closed] = await bothEnded(closing, settling);
      if (closed && result.ok) await result.keep?.(deps);
      const entry = entryOf(work);
      if (!closed) {
        const refused = result.ok ? 'succeeded' : 'failed';
        return refuseSecondOutcome(deps, actor, correlationId, { ...entry, refused });
      }
      await record(
        deps,
        actor,
        requestIdOf(correlationId),
        result.ok
          ? {
              ...entry,
              params: { ...entry.params, ...result.found },
              target: subjectOf(result.change),
              outcome: 'succeeded',
            }
          : { ...entry, outcome: 'failed', error: result },
      );
      // A batch's `settle` starts its next item, which cannot run twice; a single change's close can be replayed.
      return undefined;
    },
    { replayable: settle === undefined },
  );
  if (second) {
    reportSecondOutcome(deps, second);
    return secondOutcomeFailure(second);
  }
  if (!result.ok) return result;
  const { keep: _kept, found: _found, ...done } = result;
  return {
    ...done,
    correlationId,
    undo: undoOffer((await deps.settings.current()).undoHours, { change: done.change }),
    tagged,
  };
}

/** What the provider shows once it can no longer be working on the change (one more timeout); silent, unknown. */
async function verifiedOnceDone(deps: OpsDeps, intent: ChangeIntent, by: string): Promise<Result<Finished>> {
  deps.logger.info({ change: intent.kind }, 'a batch item waits until the provider cannot still be at work on it');
  await sleep(deps.provider.timeoutMs);
  return verifyChange(deps, new ProviderReads(deps), intent, by).catch((error: unknown) => ({
    ...providerFailure(error),
    unsettled: true as const,
  }));
}

/**
 * Audited as `unknown`, never as failed, its intent left open for the reconciler to settle; a batch's item stays
 * under way meanwhile, and its batch starts its next item.
 */
async function beingSettled(
  deps: OpsDeps,
  actor: Actor,
  correlationId: string,
  work: Work,
  failure: Failure,
  settle: Settle | undefined,
): Promise<Failure> {
  const settled = await atomically(
    deps,
    async (deps) => {
      // As in every transaction that appends: what the outcome settles is sent ahead of the audit chain's lock.
      const settling = settle?.(deps, failure);
      deps.store.audit.takeChainEnd();
      await settling;
      // Read under the chain's lock, which the reconciler's close takes before it appends: a change it settled
      // meanwhile (this process paused past its leases, or taken for dead) keeps that outcome, and nothing follows it.
      const settled = (await deps.store.intents.get(correlationId))?.outcome;
      if (settled === undefined) {
        await record(deps, actor, requestIdOf(correlationId), { ...entryOf(work), outcome: 'unknown', error: failure });
      }
      return settled;
    },
    { replayable: settle === undefined },
  );
  if (settled !== undefined) {
    const was = settled === 'succeeded' ? 'done' : 'not done';
    return {
      ...failure,
      message: `${failure.message} It was settled meanwhile by checking with the provider: it was ${was}.`,
    };
  }
  deps.logger.info({ correlationId, action: work.action }, 'the outcome of a change is unknown: it is being settled');
  return { ...failure, message: `${failure.message} ${BEING_SETTLED}` };
}

const BEING_SETTLED =
  'It is being settled: Voice Ops checks with the provider again once it can no longer be working on it, and tells ' +
  'you what became of it.';

const entryOf = (work: Work) => ({ action: work.action, target: work.target, params: work.params });
