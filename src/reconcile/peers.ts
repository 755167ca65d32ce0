// Notices the moment another replica dies. Every replica looks, once a second, at the replicas that hold leases or
// have changes open, and tests each one's liveness (store/liveness.ts): a test is one read of pg_locks, or one try of
// a file lock. A replica found dead has its leases freed there and then, so that its numbers, agents and batch are
// free at once and the background work passes to a live replica; its open changes are then the reconciler's to
// resolve (see intents.ts), which `onGone` starts.
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';

/** How often the other replicas' liveness is tested. */
export const PEER_CHECK_MS = 1_000;

export class PeerWatch {
  /** Replicas already found dead: each is taken over once. */
  readonly #gone = new Set<string>();
  #timer?: NodeJS.Timeout;
  #looking?: Promise<void>;

  constructor(
    private readonly store: Pick<Store, 'leases' | 'intents' | 'liveness'>,
    private readonly logger: Logger,
    private readonly onGone: (replicas: string[]) => Promise<void>,
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
    const others = new Set([...(await leases.replicasBesides(me)), ...(await intents.replicasBesides(me))]);
    const gone: string[] = [];
    for (const replica of others) {
      if (this.#gone.has(replica) || (await liveness.isAlive(replica))) continue;
      const freed = await leases.freeOf(replica);
      this.#gone.add(replica);
      gone.push(replica);
      this.logger.warn({ replica, freed }, 'another replica stopped: its leases are freed and its changes resolved');
    }
    if (gone.length) await this.onGone(gone);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#looking;
  }
}
