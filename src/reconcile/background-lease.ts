// Background work (reconciler passes, approval expiry) runs only in the replica holding the `background` lease;
// when it dies, another takes over within one time to live. Work acts only while its term holds by this process's
// own clocks (as a change under ops/locks.ts), so a replica paused past its lease sends nothing on waking.
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { type DeadlineClocks, type Held, leaseDeadline } from '../ops/api.js';
import type { Liveness } from '../store/liveness.js';
import type { LeasesRepo } from '../store/store.js';

const NAME = 'background';

/** One holding of the lease: its deadline, and the liveness epoch it was taken under. */
interface Term {
  deadline: ReturnType<typeof leaseDeadline>;
  epoch: number;
}

export class BackgroundLease {
  #held = false;
  #term?: Term;
  #beat?: NodeJS.Timeout;
  #stopped = false;
  /** The take under way, which a stop waits for before it gives the lease back. */
  #taking?: Promise<boolean>;

  /** `liveness` names this process (in the lease and the metrics), and says whether it may hold anything. */
  constructor(
    private readonly liveness: Pick<Liveness, 'replica' | 'held' | 'epoch'>,
    private readonly leases: LeasesRepo,
    private readonly ttlMs: number,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    /** What the lease's deadline is read on; replaced by tests. */
    private readonly clocks?: DeadlineClocks,
  ) {}

  get replica(): string {
    return this.liveness.replica;
  }

  /** Whether this replica held the lease at its last beat. */
  get held(): boolean {
    return this.#held;
  }

  /** Takes or renews the lease; whether this replica holds it. A database that cannot be reached holds nothing. */
  async hold(): Promise<boolean> {
    if (this.#stopped) return false;
    const fresh: Term = { deadline: leaseDeadline(this.ttlMs, this.clocks), epoch: this.liveness.epoch };
    const asked = fresh.deadline.ask();
    // A replica that lost its liveness may have been taken over: it runs no background work until it has it back.
    this.#taking = this.liveness.held
      ? this.leases.take(NAME, this.replica, this.ttlMs).catch((error: unknown) => {
          this.logger.debug({ err: error }, 'could not take the background lease');
          return false;
        })
      : Promise.resolve(false);
    const held = await this.#taking;
    const term = this.#term;
    if (!held || this.#stopped) this.#term = undefined;
    // Renewed while the term holds, under the same liveness, the term goes on; otherwise a new one begins.
    else if (term !== undefined && term.epoch === fresh.epoch && this.#holds(term)) term.deadline.renewed(asked);
    else {
      fresh.deadline.taken(asked);
      this.#term = fresh;
    }
    if (held !== this.#held) {
      this.logger.info(
        { replica: this.replica },
        held ? 'this replica runs the background work' : 'lost the background lease',
      );
    }
    this.#held = held;
    this.metrics.backgroundLease(this.replica, held);
    return held;
  }

  /**
   * The held term, for `ProviderClient.forChange`: once it lapsed or the lease was lost, it never holds again, even
   * when the lease is taken anew.
   */
  term(): Held {
    const term = this.#term;
    const live = () => term !== undefined && this.liveness.held && this.liveness.epoch === term.epoch;
    return {
      mayStillAct: () => live() && this.#holds(term),
      lapsed: () => live() && !this.#holds(term),
    };
  }

  /** Whether `term` is the term under way and its deadline has not passed. */
  #holds(term: Term | undefined): boolean {
    return term !== undefined && this.#term === term && term.deadline.holds();
  }

  /** Renews (or tries to take) the lease three times per time to live, so that it never lapses while held. */
  start(): void {
    void this.hold();
    this.#beat = setInterval(() => void this.hold(), this.ttlMs / 3);
    this.#beat.unref();
  }

  /** Gives the lease back, so that another replica takes over at once rather than when it expires. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#beat);
    await this.#taking;
    this.#term = undefined;
    if (this.#held) await this.leases.release(NAME, this.replica).catch(() => {});
    this.#held = false;
    this.metrics.backgroundLease(this.replica, false);
  }
}
