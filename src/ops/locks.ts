import { randomUUID } from 'node:crypto';
import type { Fence } from '../fence.js';
import type { InFlight } from '../in-flight.js';
import type { Logger } from '../log.js';
import type { LeasesRepo } from '../store/store.js';

const lockName = (key: string) => `lock:${key}`;
const changeName = (correlationId: string) => `change:${correlationId}`;

/** A change holding its locks, as its work sees it. */
export interface Held {
  /** Whether the change may still act: this replica has kept its liveness since the change began (fence.ts). */
  mayStillAct(): boolean;
}

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
    private readonly ttlMs: number,
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
    const names = [changeName(correlationId), ...keys.map(lockName)];
    const holder = `${correlationId} ${randomUUID()}`;
    const epoch = this.fence.epoch;
    // Begun under this liveness: should it be lost meanwhile, the change sends nothing more (fence.ts).
    const held: Held = { mayStillAct: () => this.fence.holds(epoch) };
    let renewing: Promise<unknown> = Promise.resolve();
    const renewal = setInterval(() => {
      // Freed by the others since this replica lost its liveness: taken again, they would hide a change they settle.
      if (!held.mayStillAct()) return;
      renewing = this.leases
        .take(names, holder, this.ttlMs)
        // Another holder has one: this change ran longer than the lease while it could not be renewed.
        .then((kept) => kept || this.logger.error({ correlationId }, 'a change lost its lock while under way'))
        .catch((error: unknown) => this.logger.warn({ err: error, correlationId }, 'could not renew a lock'));
    }, this.ttlMs / 3);
    renewal.unref();
    try {
      if (!(await this.leases.take(names, holder, this.ttlMs))) return undefined;
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

  /** Whether the change's lease is held: it runs now, in this process or another replica. */
  async isUnderWay(correlationId: string): Promise<boolean> {
    return (await this.leases.holder(changeName(correlationId))) !== undefined;
  }
}

/** Whether change (or batch) `id` runs now: in this process, or, holding its lease, in another replica. */
export async function runsAnywhere(
  deps: { changes: Pick<InFlight, 'isRunning'>; locks: ResourceLocks },
  id: string,
): Promise<boolean> {
  return deps.changes.isRunning(id) || (await deps.locks.isUnderWay(id));
}
