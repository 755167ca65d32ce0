// The one clock of every replica: the database's, since a host's may be minutes off. It is read every few seconds
// and carried forward on the monotonic clock, since many comparisons are synchronous; a failed read keeps the last.
import type { Sql } from './sql.js';

/** How often the database's time is read again: the longest a paused or drifting process carries its own. */
const CLOCK_READ_MS = 5_000;

interface Reading {
  /** The database's time, in milliseconds since the epoch. */
  databaseMs: number;
  /** `performance.now()` at that moment. */
  monotonicMs: number;
}

/** All the clock asks of the database. */
type ClockSource = Pick<Sql, 'get' | 'dialect'>;

async function read(sql: ClockSource): Promise<Reading> {
  const before = performance.now();
  const row = await sql.get<{ ms: number | string }>(sql.dialect.clock);
  const after = performance.now();
  const databaseMs = Number(row?.ms);
  if (!Number.isFinite(databaseMs)) throw new Error('the database did not say what time it is');
  // The database read its clock somewhere within the round trip: its middle is the best guess.
  return { databaseMs, monotonicMs: (before + after) / 2 };
}

export class DatabaseClock {
  #reading: Reading;
  #timer?: NodeJS.Timeout;
  #pending?: Promise<void>;

  private constructor(
    private readonly sql: ClockSource,
    first: Reading,
  ) {
    this.#reading = first;
  }

  /** Reads the database's time once, and again every `readMs` until `stop`. */
  static async start(sql: ClockSource, readMs = CLOCK_READ_MS): Promise<DatabaseClock> {
    const clock = new DatabaseClock(sql, await read(sql));
    clock.#timer = setInterval(() => void clock.read(), readMs);
    clock.#timer.unref();
    return clock;
  }

  readonly now = (): Date => {
    const { databaseMs, monotonicMs } = this.#reading;
    return new Date(databaseMs + (performance.now() - monotonicMs));
  };

  /** Reads the database's time again (or waits for the read under way); a failed read keeps the last one. */
  read(): Promise<void> {
    this.#pending ??= read(this.sql)
      .then((reading) => {
        this.#reading = reading;
      })
      .catch(() => {})
      .finally(() => {
        this.#pending = undefined;
      });
    return this.#pending;
  }

  /** Stops reading; waits for a read under way, so that nothing reads a database about to close. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#pending;
  }
}
