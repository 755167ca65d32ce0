import { randomUUID } from 'node:crypto';
import type { Fence } from '../fence.js';
import type { InFlight } from '../in-flight.js';
import type { Logger } from '../log.js';
import type { LeasesRepo } from '../store/store.js';

const lockName = (key: string) => `lock:${key}`;
const changeName = (correlationId: string) => `change:${correlationId}`;
/** Each attempt at a change holds its leases under a name of its own: the change's id, a space, the attempt's. */
const attemptOf = (correlationId: string) => `${correlationId} ${randomUUID()}`;
const changeOf = (holder: string) => holder.slice(0, holder.lastIndexOf(' '));

/** A change holding its locks, as its work sees it. */
export interface Held {
  /** This replica kept its liveness since the change began, and its leases still hold by its own clocks (fence.ts). */
  mayStillAct(): boolean;
  /** Its leases lapsed while it kept its liveness (it was paused past them): another replica may be settling it. */
  lapsed(): boolean;
}

/** The two clocks a lease's deadline is read on; replaceable, so that its boundaries can be tested without waiting. */
export interface DeadlineClocks {
  /** Milliseconds on a clock no step of the wall clock moves (`performance.now()`). */
  monotonic(): number;
  /** Milliseconds since the epoch, by the wall clock (`Date.now()`). */
  wall(): number;
}

const REAL_CLOCKS: DeadlineClocks = { monotonic: () => performance.now(), wall: () => Date.now() };

type Asked = { monotonic: number; wall: number };

/**
 * Until when a change's leases hold: from the ask of their last successful take, plus their time to live, less a
 * margin. The longer of the monotonic and the wall clock's elapsed times counts (a host's suspend stops the
 * monotonic one). A renewal answered after the deadline does not revive the leases: others may have seen them lapse.
 */
export class LeaseDeadline {
  #asked: Asked = { monotonic: Number.NEGATIVE_INFINITY, wall: Number.NEGATIVE_INFINITY };

  /** `holdsMs`: how long after a take is asked for the leases surely hold (their time to live, less the margin). */
  constructor(
    private readonly holdsMs: number,
    private readonly clocks: DeadlineClocks = REAL_CLOCKS,
  ) {}

  /** The moment a take is asked for, to hand to `taken` or `renewed` once it succeeds. */
  ask(): Asked {
    return { monotonic: this.clocks.monotonic(), wall: this.clocks.wall() };
  }

  taken(asked: Asked): void {
    this.#asked = asked;
  }

  /** A renewal succeeded: it counts only when its answer came while the leases still held. */
  renewed(asked: Asked): void {
    if (this.holds() && asked.monotonic > this.#asked.monotonic) this.#asked = asked;
  }

  holds(): boolean {
    const elapsed = Math.max(this.clocks.monotonic() - this.#asked.monotonic, this.clocks.wall() - this.#asked.wall);
    return elapsed < this.holdsMs;
  }
}

/** How long a change's leases last, and how long after they lapse its holder may still be at the provider. */
export interface LockTiming {
  ttlMs: number;
  settleMs: number;
}

/** Renewed this often within a time to live, so that a renewal slow to answer has others after it in time. */
const RENEWALS_PER_TTL = 6;

/**
 * Held short of the time to live, so that others never see leases lapse while their holder may still send: replicas'
 * database clocks differ a little (database-clock.ts), and a request leaves a moment after its check.
 */
const leaseMarginMs = (ttlMs: number): number => ttlMs / 4;

/** The deadline of a lease that lasts `ttlMs`. */
export const leaseDeadline = (ttlMs: number, clocks?: DeadlineClocks): LeaseDeadline =>
  new LeaseDeadline(ttlMs - leaseMarginMs(ttlMs), clocks);

const LAPSED = "a change's leases lapsed while it was under way (was this process paused?): it sends nothing more";

/**
 * Locks on numbers and agents across replicas, as leases in the store renewed while a change runs: a second change
 * is told to wait instead of queueing. A change's own lease tells every reconciler it is under way; a dead process's
 * leases expire within `ttlMs`, and the reconciler then resolves its change.
 */
export class ResourceLocks {
  constructor(
    private readonly leases: LeasesRepo,
    private readonly timing: LockTiming,
    private readonly logger: Logger,
    private readonly fence: Fence,
  ) {}

  /**
   * Undefined at once when a key is held, even by another attempt at the same change (a second click): each attempt
   * holds its leases under a name of its own, so that the one refused cannot give back those of the one that runs.
   */
  async tryWith<T>(
    keys: string[],
    correlationId: string,
    work: (held: Held) => Promise<T>,
  ): Promise<{ value: T } | undefined> {
    const { ttlMs } = this.timing;
    const names = [changeName(correlationId), ...keys.map(lockName)];
    const holder = attemptOf(correlationId);
    const epoch = this.fence.epoch;
    const deadline = leaseDeadline(ttlMs);
    // Begun under this liveness, and sent only while its leases hold: should either end meanwhile (the process lost
    // its session, or was frozen past its leases), the change sends nothing more (fence.ts).
    const held: Held = {
      mayStillAct: () => this.fence.holds(epoch) && deadline.holds(),
      lapsed: () => this.fence.holds(epoch) && !deadline.holds(),
    };
    let renewing: Promise<unknown> | undefined;
    let told = false;
    const renewal = setInterval(() => {
      if (renewing !== undefined) return;
      // Freed by the others since: taken again, they would hide a change they settle, or one they may be settling.
      if (!held.mayStillAct()) {
        if (!told && held.lapsed()) this.logger.warn({ correlationId }, LAPSED);
        told = true;
        return;
      }
      const asked = deadline.ask();
      renewing = this.leases
        .take(names, holder, ttlMs)
        // Another holder has one: this change ran longer than the lease while it could not be renewed.
        .then((kept) =>
          kept
            ? deadline.renewed(asked)
            : this.logger.error({ correlationId }, 'a change lost its lock while under way'),
        )
        .catch((error: unknown) => this.logger.warn({ err: error, correlationId }, 'could not renew a lock'))
        .finally(() => {
          renewing = undefined;
        });
    }, ttlMs / RENEWALS_PER_TTL);
    renewal.unref();
    try {
      const asked = deadline.ask();
      if (!(await this.leases.take(names, holder, ttlMs))) return undefined;
      deadline.taken(asked);
      return { value: await work(held) };
    } finally {
      clearInterval(renewal);
      // A renewal still on its way would otherwise take the leases again after they were given back.
      await renewing;
      // Also after a refusal: two takes racing on Postgres may each have taken part. One not given back expires.
      await this.leases.release(names, holder).catch(() => {});
    }
  }

  /** The change (or batch) that holds one of these keys now, if one does: whom a change refused as busy waits on. */
  async holderOf(keys: readonly string[]): Promise<string | undefined> {
    for (const key of keys) {
      const holder = await this.leases.holder(lockName(key));
      if (holder !== undefined) return changeOf(holder);
    }
    return undefined;
  }

  /**
   * Held, or lapsed less than `settleMs` ago, while its holder may still be at the provider. `settleMs`, twice the
   * request timeout, also covers a provider that finishes a request after its client gave up on it.
   */
  async isUnderWay(correlationId: string): Promise<boolean> {
    return (await this.leases.holder(changeName(correlationId), this.timing.settleMs)) !== undefined;
  }
}

/** Whether change (or batch) `id` runs now: in this process, or, holding its lease, in another replica. */
export async function runsAnywhere(
  deps: { changesUnderWay: Pick<InFlight, 'isRunning'>; locks: ResourceLocks },
  id: string,
): Promise<boolean> {
  return deps.changesUnderWay.isRunning(id) || (await deps.locks.isUnderWay(id));
}
