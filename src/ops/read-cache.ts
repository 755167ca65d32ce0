import type { Logger } from '../log.js';

export interface ReadCacheOptions<T> {
  /** What to read, e.g. a user group's members from Slack. */
  read: (key: string) => Promise<T>;
  /** What a key stands for while it cannot be read: it must grant nothing. */
  unreadable: (error: unknown) => T;
  /** How long a reading is trusted before the key is read again. */
  ttlMs: number;
  /** What is read, for the log lines ("user group members"). */
  what: string;
  now: () => number;
  logger?: Logger;
}

// While a key cannot be read, its failed answer stands for this long before it is tried again: during an outage,
// users are answered at once instead of each waiting out the read's timeout.
const UNREADABLE_TTL_MS = 30_000;

/** Readings from Slack kept for a while. A failed read grants nothing, is logged once per outage, retried in 30 s. */
export class ReadCache<T> {
  readonly #options: ReadCacheOptions<T>;
  readonly #entries = new Map<string, { value: T; readAt: number; failed: boolean }>();
  /** Reads under way: requests that need the same key at once share one read. */
  readonly #reading = new Map<string, Promise<T>>();

  constructor(options: ReadCacheOptions<T>) {
    this.#options = options;
  }

  /** The reading kept for `key`, or a new one; `fresh`: a new one whatever is kept (kept in turn). */
  get(key: string, options: { fresh?: boolean } = {}): Promise<T> {
    const { ttlMs, now } = this.#options;
    const cached = this.#entries.get(key);
    if (!options.fresh && cached && now() - cached.readAt < (cached.failed ? UNREADABLE_TTL_MS : ttlMs)) {
      return Promise.resolve(cached.value);
    }
    const reading = this.#reading.get(key);
    if (reading !== undefined) return reading;
    const read = this.#read(key, cached).finally(() => this.#reading.delete(key));
    this.#reading.set(key, read);
    return read;
  }

  async #read(key: string, cached: { failed: boolean } | undefined): Promise<T> {
    const { read, unreadable, what, now, logger } = this.#options;
    const at = now();
    try {
      const value = await read(key);
      if (cached?.failed) logger?.info({ key }, `${what} can be read again`);
      this.#entries.set(key, { value, readAt: at, failed: false });
      return value;
    } catch (error) {
      if (!cached?.failed) {
        logger?.warn({ err: error, key }, `could not read ${what}: it grants no role until it can be read again`);
      }
      const value = unreadable(error);
      this.#entries.set(key, { value, readAt: at, failed: true });
      return value;
    }
  }
}
