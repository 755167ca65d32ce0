// Fencing: a replica that has lost its liveness (its database session was cut while it runs) may have had its
// leases and changes taken over by the others, who think it dead. Until it holds its liveness again it sends the
// provider no change, and renews no lease; and a change begun before the loss sends nothing even after, since
// another replica may now be settling it. Reads go on: they change nothing.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Liveness } from './store/liveness.js';

export class Fence {
  /** The liveness epoch under which the change under way began. */
  readonly #begun = new AsyncLocalStorage<number>();

  constructor(private readonly liveness: Pick<Liveness, 'held' | 'epoch'>) {}

  /** The liveness epoch now: what a change taking its leases begins under. */
  get epoch(): number {
    return this.liveness.epoch;
  }

  /** Whether this replica still holds the liveness it held at `epoch`, unbroken. */
  holds(epoch: number): boolean {
    return this.liveness.held && this.liveness.epoch === epoch;
  }

  /** Runs `work` (a change holding its leases) as begun under `epoch`. */
  run<T>(epoch: number, work: () => Promise<T>): Promise<T> {
    return this.#begun.run(epoch, work);
  }

  /** Whether a change may be sent to the provider now, from where it is asked. */
  mayChange(): boolean {
    return this.holds(this.#begun.getStore() ?? this.liveness.epoch);
  }
}
