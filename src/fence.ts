// Fencing: a replica that has lost its liveness (its database session was cut while it runs) may have had its
// leases and changes taken over by the others, who think it dead. Until it holds its liveness again it sends the
// provider no change, and renews no lease; and a change begun before the loss sends nothing even after, since
// another replica may now be settling it. Reads go on: they change nothing.
//
// A replica that keeps its liveness but is paused (a frozen VM, a stopped process) renews no lease meanwhile: a change
// also sends nothing once its leases have lapsed by its own clocks (ops/locks.ts, LeaseDeadline), and the reconciler
// waits until a lapsed lease can no longer be sending before it settles the change. The reconciler's own passes send
// only while the background lease they began under holds, on the same deadline (reconcile/background-lease.ts).
//
// A change knows the epoch it began under because its locks hand it (ops/locks.ts), not from an ambient store: on
// Node 20 an AsyncLocalStorage in use turns on async hooks for every promise of the process.
import type { Liveness } from './store/liveness.js';

export class Fence {
  constructor(private readonly liveness: Pick<Liveness, 'held' | 'epoch'>) {}

  /** The liveness epoch now: what a change taking its leases begins under. */
  get epoch(): number {
    return this.liveness.epoch;
  }

  /** Whether this replica still holds the liveness it held at `epoch`, unbroken. */
  holds(epoch: number): boolean {
    return this.liveness.held && this.liveness.epoch === epoch;
  }

  /** Whether this replica may send the provider a change now: it holds its liveness (every client checks it). */
  mayChange(): boolean {
    return this.liveness.held;
  }
}
