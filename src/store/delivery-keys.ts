// Keys of deliveries already handled, so that a retried Slack delivery or a double click acts once. The statement that
// records a key also reads the settings' version: the two share a statement, not a purpose, because reading the
// version apart would cost every delivery a second round trip before its acknowledgement (ops/settings-in-force.ts
// uses it to know whether its settings are still current).
import { z } from 'zod';
import { SETTINGS_VERSION } from './settings-rows.js';
import type { Sql } from './sql.js';

const recorded = z.object({
  key: z.string(),
  settings_version: z.coerce.number(),
});

const DEFAULT_DELIVERY_KEY_TTL_MS = 60 * 60 * 1000;

/** Keys recorded by one statement at most; more waiting go in the next. */
const MAX_BATCH = 100;

// A key older than the TTL counts as new and is taken over, so the answer never depends on pruning. The keys the
// statement inserted or took over come back: those are seen for the first time, each with the settings' version.
const recordText = (count: number) => `
  INSERT INTO delivery_keys (key, seen_at) VALUES ${Array.from({ length: count }, () => '(?, ?)').join(', ')}
  ON CONFLICT (key) DO UPDATE SET seen_at = excluded.seen_at WHERE delivery_keys.seen_at <= ?
  RETURNING key, (${SETTINGS_VERSION}) AS settings_version`;
const RECORD: string[] = [];
const record = (count: number): string => {
  RECORD[count] ??= recordText(count);
  return RECORD[count];
};
const PRUNE = 'DELETE FROM delivery_keys WHERE seen_at <= ?';

/** When keys were last pruned (ms since the epoch): one state shared by every binding of the store. */
interface Pruning {
  lastAt: number;
}

/** A delivery's key recorded: a repeat, or the first, with the settings' version it found. */
export type Seen = { first: false } | { first: true; settingsVersion: number };

interface Waiting {
  key: string;
  resolve(seen: Seen): void;
  reject(error: unknown): void;
}

/**
 * Keys that arrive in the same turn of the event loop are recorded by one statement after it: under load one write
 * for many deliveries, and still one round trip before each acknowledgement.
 */
export class DeliveryKeys {
  readonly #ttlMs: number;
  readonly #now: () => Date;
  readonly #pruning: Pruning;
  readonly #waiting: Waiting[] = [];

  constructor(
    private readonly sql: Sql,
    options: { ttlMs?: number; now?: () => Date; pruning: Pruning },
  ) {
    this.#ttlMs = options.ttlMs ?? DEFAULT_DELIVERY_KEY_TTL_MS;
    this.#now = options.now ?? (() => new Date());
    this.#pruning = options.pruning;
  }

  /** The first caller with this key within the TTL is told so, with the settings' version found; every repeat is not. */
  firstSeen(key: string): Promise<Seen> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ key, resolve, reject });
      if (this.#waiting.length === 1) setImmediate(() => void this.#recordWaiting());
    });
  }

  async #recordWaiting(): Promise<void> {
    const batch = this.#waiting.splice(0, MAX_BATCH);
    if (this.#waiting.length > 0) setImmediate(() => void this.#recordWaiting());
    try {
      const first = await this.#record([...new Set(batch.map((waiting) => waiting.key))]);
      // A key given twice in one batch is new for its first caller only.
      for (const waiting of batch) {
        const seen = first.get(waiting.key);
        first.delete(waiting.key);
        waiting.resolve(seen ?? { first: false });
      }
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  }

  /** Records the keys; returns those seen for the first time, each with the settings' version found. */
  async #record(keys: string[]): Promise<Map<string, Seen>> {
    const now = this.#now().getTime();
    const cutoff = new Date(now - this.#ttlMs).toISOString();
    // Pruning at most once per TTL keeps the table to about two TTLs of keys at one indexed DELETE per TTL. The time
    // is marked before the DELETE, so that calls arriving while it runs do not prune again.
    if (now - this.#pruning.lastAt >= this.#ttlMs) {
      this.#pruning.lastAt = now;
      await this.sql.write(PRUNE, [cutoff]);
    }
    const seenAt = new Date(now).toISOString();
    const params = [...keys.flatMap((key) => [key, seenAt]), cutoff];
    const rows = (await this.sql.all(record(keys.length), params)).map((row) => recorded.parse(row));
    return new Map(rows.map((row) => [row.key, { first: true, settingsVersion: row.settings_version }]));
  }
}
