// Background work (the reconciler's passes, the expiry of approvals) runs in one replica at a time: the one holding
// the `background` lease. Every replica tries to take it on each beat, and the holder renews it; when the holder
// dies, its lease expires and another replica takes over within one time to live.
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { Liveness } from '../store/liveness.js';
import type { LeasesRepo } from '../store/store.js';

const NAME = 'background';

export class BackgroundLease {
  #held = false;
  #beat?: NodeJS.Timeout;
  #stopped = false;
  /** The take under way, which a stop waits for before it gives the lease back. */
  #taking?: Promise<boolean>;

  /** `liveness` names this process (in the lease and the metrics), and says whether it may hold anything. */
  constructor(
    private readonly liveness: Pick<Liveness, 'replica' | 'held'>,
    private readonly leases: LeasesRepo,
    private readonly ttlMs: number,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
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
    // A replica that lost its liveness may have been taken over: it runs no background work until it has it back.
    this.#taking = this.liveness.held
      ? this.leases.take(NAME, this.replica, this.ttlMs).catch((error: unknown) => {
          this.logger.debug({ err: error }, 'could not take the background lease');
          return false;
        })
      : Promise.resolve(false);
    const held = await this.#taking;
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
    if (this.#held) await this.leases.release(NAME, this.replica).catch(() => {});
    this.#held = false;
    this.metrics.backgroundLease(this.replica, false);
  }
}
