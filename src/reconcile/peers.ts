// Notices the moment another replica dies. Every replica looks, once a second, at the replicas that hold leases or
// have changes open, and tests each one's liveness (store/liveness.ts): a test is one read of pg_locks, or one try of
// a file lock. A replica found dead has its leases freed there and then, so that its numbers, agents and batch are
// free at once and the background work passes to a live replica; its open changes are then the reconciler's to
// resolve (see intents.ts), which `onDead` starts, and starts again at each look while any is left: the provider may
// show one done a moment after its replica died.
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';

/** How often the other replicas' liveness is tested. */
const PEER_CHECK_MS = 1_000;

export class PeerWatch {
  /** Replicas already found dead, each counted and logged once; one seen alive again (its liveness back) leaves it. */
  readonly #gone = new Set<string>();
  #timer?: NodeJS.Timeout;
  #looking?: Promise<void>;

  constructor(
    private readonly store: Pick<Store, 'leases' | 'intents' | 'liveness'>,
    private readonly logger: Logger,
    /** Told of the replicas newly found dead, and whenever a dead one's changes are still open. */
    private readonly onDead: (newlyDead: number) => Promise<void>,
  ) {}

  start(everyMs = PEER_CHECK_MS): void {
    this.#timer = setInterval(() => void this.look(), everyMs);
    this.#timer.unref();
  }

  /** One look (or the one under way); replicas newly found dead are taken over. */
  look(): Promise<void> {
    this.#looking ??= this.#look()
      .catch((error: unknown) => this.logger.debug({ err: error }, 'could not test the other replicas'))
      .finally(() => {
        this.#looking = undefined;
      });
    return this.#looking;
  }

  async #look(): Promise<void> {
    const { leases, intents, liveness } = this.store;
    const me = liveness.replica;
    const withChanges = new Set(await intents.replicasBesides(me));
    let newlyDead = 0;
    let changesLeft = false;
    for (const replica of new Set([...(await leases.replicasBesides(me)), ...withChanges])) {
      if (await liveness.isAlive(replica)) {
        this.#gone.delete(replica);
        continue;
      }
      const freed = await leases.freeOf(replica);
      changesLeft ||= withChanges.has(replica);
      if (this.#gone.has(replica)) continue;
      this.#gone.add(replica);
      newlyDead += 1;
      this.logger.warn({ replica, freed }, 'another replica stopped: its leases are freed and its changes resolved');
    }
    if (newlyDead > 0 || changesLeft) await this.onDead(newlyDead);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#looking;
  }
}
