// Keeps the app's view of the provider true: changes left open mid-call are resolved (even with the interval at 0:
// that is bookkeeping, not watching), and changes made outside Voice Ops are noticed. Only the background lease's
// holder makes passes, and a pass acts only while the lease it began under holds (background-lease.ts).
import type { Logger } from '../log.js';
import {
  type Actor,
  abandonedBatches,
  type BatchView,
  countByOwner,
  interruptAbandoned,
  type OpsDeps,
  postDigests,
  settleSteps,
} from '../ops/api.js';
import { ProviderError } from '../provider/errors.js';
import { BackOff } from './back-off.js';
import type { BackgroundLease } from './background-lease.js';
import { detectDrift } from './drift.js';
import { resolveIntents, type TellBatch, type TellRequester, underWayNowhere } from './intents.js';

/** The longest between two looks for changes left unsettled. */
const LOOK_MS = 5_000;

interface ReconcilerOptions {
  /** Seconds between passes; 0 turns the periodic passes and the noticing of outside changes off. */
  intervalS: number;
  /** An intent younger than this (the provider call's timeout, plus a margin) may still be answered. */
  settleMs: number;
  now: () => Date;
  /** Passes run only in the replica that holds it. */
  lease: BackgroundLease;
  /** Tells the requester of a batch a stopped process cut short where it stopped, with a Resume. */
  tellInterrupted: (actor: Actor, view: BatchView) => Promise<void>;
  /** Tells the requester of a batch how it ended, once the last of its items being settled is settled. */
  tellSettled: TellBatch;
}

export class Reconciler {
  readonly #deps: OpsDeps;
  readonly #tell: TellRequester;
  readonly #options: ReconcilerOptions;
  readonly #logger: Logger;
  readonly #timers: NodeJS.Timeout[] = [];
  /** Changes whose outcome is still unknown are tried again after a wait that doubles, from one look's. */
  readonly #backOff: BackOff;
  #running?: Promise<void>;
  #outage = false;

  constructor(deps: OpsDeps, tell: TellRequester, options: ReconcilerOptions) {
    this.#deps = deps;
    this.#tell = tell;
    this.#options = options;
    this.#logger = deps.logger.child({ component: 'reconciler' });
    this.#backOff = new BackOff(this.#lookMs);
  }

  /** In between passes, a change whose answer was lost is resolved once the provider cannot still be working on it. */
  start(): void {
    void this.pass();
    const every = (ms: number, work: () => void) => {
      const timer = setInterval(work, ms);
      timer.unref();
      this.#timers.push(timer);
    };
    if (this.#options.intervalS > 0) every(this.#options.intervalS * 1000, () => void this.pass());
    // A look costs a few reads of the database and no provider call: often enough that a batch whose runner was cut
    // off, or a change that has just settled, is told within seconds.
    every(this.#lookMs, () => void this.#passIfUnsettled());
  }

  get #lookMs(): number {
    return Math.min(this.#options.settleMs, LOOK_MS);
  }

  /** Between passes, only the replica that runs them looks for changes left unsettled. */
  async #passIfUnsettled(): Promise<void> {
    if (!this.#options.lease.held) return;
    try {
      const open = await this.#deps.store.intents.openedBefore(this.#settledBefore());
      // A change whose outcome is still unknown waits out its back-off: no pass is run for it before then.
      const now = this.#options.now();
      const due = (await underWayNowhere(this.#deps, open)).filter((intent) =>
        this.#backOff.due(intent.correlationId, now),
      );
      const unsettled = due.length + (await abandonedBatches(this.#deps)).length;
      this.#logger.debug({ open: open.length, unsettled }, 'looked for changes left unsettled');
      if (unsettled) await this.pass();
      // A step waiting on a plan ends when the plan expires unconfirmed: a few reads, and no provider call.
      else await settleSteps(this.#deps);
    } catch (error) {
      this.#logger.warn({ err: error }, 'could not look for changes left unsettled');
    }
  }

  #settledBefore(): Date {
    return new Date(this.#options.now().getTime() - this.#options.settleMs);
  }

  pass(): Promise<void> {
    this.#running ??= this.#pass().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async stop(): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer);
    await this.#running;
  }

  /** Batches whose process died are never continued by themselves: their requesters are told, and may resume. */
  async #interruptAbandonedBatches(deps: OpsDeps): Promise<void> {
    for (const { actor, view } of await interruptAbandoned(deps)) {
      await this.#options.tellInterrupted(actor, view).catch((error: unknown) => {
        this.#logger.warn({ err: error, batchId: view.id }, 'could not tell a requester that their batch stopped');
      });
    }
  }

  async #pass(): Promise<void> {
    const { lease } = this.#options;
    if (!(await lease.hold())) return;
    // Every change the pass sends (a map sent again) goes through a client fenced by the lease it began under, as a
    // change's are by its locks; and the pass goes on to its next step only while that lease holds.
    const term = lease.term();
    const deps: OpsDeps = { ...this.#deps, provider: this.#deps.provider.forChange(term) };
    const goOn = () => {
      if (!term.mayStillAct()) throw new ProviderError('withheld', 'the background lease may have lapsed');
    };
    let ok = false;
    try {
      const unknowns = { backOff: this.#backOff, tellBatch: this.#options.tellSettled };
      // A change the provider did not answer for waits for its next try; what needs no answer of it goes on meanwhile.
      const unanswered = await resolveIntents(deps, this.#tell, this.#settledBefore(), unknowns).then(
        () => undefined,
        (error: unknown) => {
          if (error instanceof ProviderError && error.kind !== 'withheld') return error;
          throw error;
        },
      );
      goOn();
      await this.#interruptAbandonedBatches(deps);
      goOn();
      // After the changes they wait on are settled: a step then ends with what its change did.
      await settleSteps(deps);
      // Slack's, not the provider's: posted even while the provider does not answer.
      await postDigests(deps, goOn);
      if (unanswered) throw unanswered;
      goOn();
      if (this.#options.intervalS > 0) await detectDrift(deps, this.#options.now);
      deps.metrics.ownedBy(await countByOwner(deps));
      if (this.#outage) this.#logger.info('the provider answers again: reconciliation resumed');
      this.#outage = false;
      ok = true;
    } catch (error) {
      if (error instanceof ProviderError && error.kind === 'withheld') {
        this.#logger.warn(
          { err: error },
          term.lapsed()
            ? 'a reconciliation pass stopped: the background lease it began under may have lapsed (was this process paused?); it sends nothing more, and passes resume once the lease is held again'
            : 'a reconciliation pass stopped: this replica lost its liveness; passes resume once it holds it and the lease again',
        );
        return;
      }
      if (!(error instanceof ProviderError)) {
        this.#logger.error({ err: error }, 'a reconciliation pass failed');
        return;
      }
      if (!this.#outage) {
        this.#logger.warn(
          { err: error },
          'the provider did not answer the reconciliation pass: what it did not answer for is tried again later',
        );
      }
      this.#outage = true;
    } finally {
      this.#deps.metrics.reconcilerPass(this.#options.now(), ok);
    }
  }
}
