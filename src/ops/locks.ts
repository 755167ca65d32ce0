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
  /**
   * Whether the change may still act: this replica has kept its liveness since the change began, and its leases
   * still hold by this process's own clocks (fence.ts).
   */
  mayStillAct(): boolean;
  /**
   * Whether its leases lapsed by this process's clocks while it kept its liveness (it was paused past them): another
   * replica may be settling the change.
   */
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
 * Until when a change's leases hold, as this process alone can tell: from the moment it asked for their last take
 * that succeeded, plus their time to live, less a margin. It is read on the monotonic clock, which no step of the
 * wall clock moves, and on the wall clock too, which a host's suspend (that stops the monotonic clock) moves on: the
 * longer of the two times elapsed counts. A renewal answered after the deadline does not revive the leases: the
 * others may have seen them lapse meanwhile.
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

  /** The first take succeeded. */
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
 * What a change's leases are held short of their time to live, so that the others never see them lapse while it may
 * still send: the replicas' reads of the database's clock may differ by a little (database-clock.ts), and a request
 * leaves a moment after the check that lets it go.
 */
const leaseMarginMs = (ttlMs: number): number => ttlMs / 4;

/** The deadline of a lease that lasts `ttlMs`: it holds its time to live less the margin after each take asked for. */
export const leaseDeadline = (ttlMs: number, clocks?: DeadlineClocks): LeaseDeadline =>
  new LeaseDeadline(ttlMs - leaseMarginMs(ttlMs), clocks);

const LAPSED = "a change's leases lapsed while it was under way (was this process paused?): it sends nothing more";

/**
 * Locks on resources (a number, an agent), so that two concurrent changes to the same one cannot both reach the
 * provider, whichever replicas they run on: the second is told to wait instead of queueing behind the first. Each
 * lock is a lease in the store, renewed while its change runs; a change also holds a lease of its own, which tells
 * every replica's reconciler that it is under way. The leases of a process that died expire within `ttlMs`, and
 * the reconciler then resolves its change.
 */
export class ResourceLocks {
  constructor(
    private readonly leases: LeasesRepo,
    private readonly timing: LockTiming,
    private readonly logger: Logger,
    private readonly fence: Fence,
  ) {}

  /**
   * Runs `work` holding every key for change `correlationId`, or returns undefined at once when one is held, even by
   * another attempt at the same change (a second click): each attempt holds its leases under a name of its own, so
   * that the one refused cannot give back those of the one that runs.
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
      // Also after a refusal: two takes racing on Postgres may each have taken part. One that cannot be given back
      // (the database is gone) expires by itself.
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
   * Whether the change's lease is held, or lapsed less than `settleMs` ago: it runs now, in this process or another
   * replica, or its holder may still be at the provider. A holder sends nothing once its lease is within a margin of
   * lapsing (see tryWith), and a request it sent before then ends within its timeout; `settleMs`, twice that timeout,
   * also covers a provider that finishes a request after its client gave up on it.
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
