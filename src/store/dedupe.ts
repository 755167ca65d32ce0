// Keys of deliveries already handled, so that a retried Slack delivery or a double click acts once.
import type { Sql } from './sql.js';
import type { DeliveriesRepo } from './store.js';

export const DEFAULT_DELIVERY_KEY_TTL_MS = 60 * 60 * 1000;

// A key older than the TTL counts as new and is taken over, so the answer never depends on pruning.
const RECORD = `
  INSERT INTO delivery_keys (key, seen_at) VALUES (@key, @now)
  ON CONFLICT (key) DO UPDATE SET seen_at = excluded.seen_at WHERE delivery_keys.seen_at <= @cutoff`;
const PRUNE = 'DELETE FROM delivery_keys WHERE seen_at <= ?';

/** When keys were last pruned (ms since the epoch): one state shared by every binding of the store. */
export interface Pruning {
  lastAt: number;
}

export class DeliveryKeys implements DeliveriesRepo {
  readonly #ttlMs: number;
  readonly #now: () => Date;
  readonly #pruning: Pruning;

  constructor(
    private readonly sql: Sql,
    options: { ttlMs?: number; now?: () => Date; pruning: Pruning },
  ) {
    this.#ttlMs = options.ttlMs ?? DEFAULT_DELIVERY_KEY_TTL_MS;
    this.#now = options.now ?? (() => new Date());
    this.#pruning = options.pruning;
  }

  /** True for the first caller with this key within the TTL, false for every repeat. */
  async firstSeen(key: string): Promise<boolean> {
    const now = this.#now().getTime();
    const cutoff = new Date(now - this.#ttlMs).toISOString();
    // Pruning at most once per TTL keeps the table to about two TTLs of keys at one indexed DELETE per TTL. The time
    // is marked before the DELETE, so that calls arriving while it runs do not prune again.
    if (now - this.#pruning.lastAt >= this.#ttlMs) {
      this.#pruning.lastAt = now;
      await this.sql.run(PRUNE, [cutoff]);
    }
    return (await this.sql.run(RECORD, { key, now: new Date(now).toISOString(), cutoff })) === 1;
  }
}
