// Fencing: a replica that lost its liveness may have had its leases and changes taken over by others. Until it holds
// it again it sends the provider no change and renews no lease; a change begun before the loss sends nothing even
// after. Reads go on. A paused replica's change also sends nothing once its leases lapse by its own clocks
// (ops/locks.ts, LeaseDeadline; reconcile/background-lease.ts for the reconciler's passes).
//
// The epoch comes from the locks, not an ambient store: on Node 20 an AsyncLocalStorage in use turns on async hooks
// for every promise of the process.
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
