// Keys of deliveries already handled, so that a retried Slack delivery or a double click acts once.
import type { Database } from './db.js';

export const DEFAULT_DELIVERY_KEY_TTL_MS = 60 * 60 * 1000;

export class DeliveryKeys {
  readonly #ttlMs: number;
  readonly #now: () => Date;
  readonly #record;
  readonly #prune;
  #lastPrunedAt = Number.NEGATIVE_INFINITY;

  constructor(db: Database, options: { ttlMs?: number; now?: () => Date } = {}) {
    this.#ttlMs = options.ttlMs ?? DEFAULT_DELIVERY_KEY_TTL_MS;
    this.#now = options.now ?? (() => new Date());
    // A key older than the TTL counts as new and is taken over, so the answer never depends on pruning.
    this.#record = db.prepare<[{ key: string; now: string; cutoff: string }]>(`
      INSERT INTO delivery_keys (key, seen_at) VALUES (@key, @now)
      ON CONFLICT (key) DO UPDATE SET seen_at = excluded.seen_at WHERE delivery_keys.seen_at <= @cutoff`);
    this.#prune = db.prepare<[string]>('DELETE FROM delivery_keys WHERE seen_at <= ?');
  }

  /** True for the first caller with this key within the TTL, false for every repeat. */
  firstSeen(key: string): boolean {
    const now = this.#now().getTime();
    const cutoff = new Date(now - this.#ttlMs).toISOString();
    // Pruning at most once per TTL keeps the table to about two TTLs of keys at one indexed DELETE per TTL.
    if (now - this.#lastPrunedAt >= this.#ttlMs) {
      this.#prune.run(cutoff);
      this.#lastPrunedAt = now;
    }
    return this.#record.run({ key, now: new Date(now).toISOString(), cutoff }).changes === 1;
  }
}
