// The one way the store speaks to a database, whichever engine: SQL written once, in what SQLite and Postgres share,
// with `?` or `@name` placeholders. The few places where the dialects differ are functions of the Dialect, so that a
// query is still one definition. The engines are in sqlite-sql.ts and postgres-sql.ts.

import type { Liveness } from './liveness.js';

export type SqlParam = string | number | null;
/** Positional (`?`) or named (`@name`) parameters; one statement uses one kind. */
export type SqlParams = readonly SqlParam[] | Readonly<Record<string, SqlParam>>;

export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** The text at `key` of a JSON object stored in a TEXT column. */
  jsonField(column: string, key: string): string;
  /** `IN` over the elements of a JSON array of strings passed as one parameter. */
  inJsonArray(param: string): string;
  /** A SELECT of one row per element (its column `value`) of a JSON array of strings passed as one parameter. */
  jsonArrayRows(param: string): string;
  /** An expression compared without regard to case, as its index is built. */
  caseless(expression: string): string;
  /** A SELECT of the database's own time, in milliseconds since the epoch, as the column `ms`. */
  readonly clock: string;
}

export interface Sql {
  readonly dialect: Dialect;
  all<T>(text: string, params?: SqlParams): Promise<T[]>;
  get<T>(text: string, params?: SqlParams): Promise<T | undefined>;
  /** Runs a statement and returns how many rows it changed. */
  run(text: string, params?: SqlParams): Promise<number>;
  /**
   * Runs a statement whose count nobody reads. Inside a Postgres transaction it is sent without waiting for its
   * answer: the transaction's next statement that answers (COMMIT at the latest) waits for it too, and throws the
   * transaction's first error. Statements in a row then reach the server in one write and cost one round trip.
   */
  write(text: string, params?: SqlParams): Promise<void>;
  /**
   * Inside a transaction: holds `key` until the transaction ends; the statements after it run once no other
   * transaction holds it. Postgres takes an advisory lock, sent as `write` sends: the call may return before the lock
   * is granted, and only the next statement waited for is sure to run under it. SQLite's transactions already take
   * the one writer lock at BEGIN.
   */
  lock(key: string): Promise<void>;
  /** Runs `work` in one transaction: all of its statements happen, or none. A transaction begun inside joins it. */
  transaction<T>(work: (sql: Sql) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

export interface TransactionOptions {
  /**
   * The work changes nothing outside the database, so that it can run again from its start: on Postgres, a
   * transaction ended as a deadlock's victim or for a serialization failure is then run once more.
   */
  replayable?: boolean;
}

/** Which database an engine opened, as the start-up log names it: never a password. */
export type OpenedDatabase =
  | { engine: 'sqlite'; file: string }
  | { engine: 'postgres'; host: string; port: number; database: string; user: string };

/** The opened database in words, for the start-up log. */
export function openedText(opened: OpenedDatabase): string {
  return opened.engine === 'sqlite'
    ? `the SQLite file ${opened.file}`
    : `the Postgres database "${opened.database}" on ${opened.host}:${opened.port} as ${opened.user}`;
}

/** Where a database is, and what its connection can do, as a store opens it. */
export interface SqlEngine extends Sql {
  /** The database as a person would name it: a file's path, or a server's host and database (never a password). */
  readonly label: string;
  readonly opened: OpenedDatabase;
  /** Whether the database takes writes now, for /readyz. */
  checkWritable(): Promise<Writable>;
  /** Holds this process's liveness (liveness.ts); `onChange` is told when it is lost and held again. */
  holdLiveness(onChange?: (held: boolean, error?: Error) => void): Promise<Liveness>;
  close(): Promise<void>;
}

/**
 * Whether a database takes writes: if not, a public word for why (shown by /readyz, so it names no host, file or
 * database) and the details for the log.
 */
export type Writable = { ok: true } | { ok: false; state: DatabaseFault; detail: string };

/** What went wrong with a database, in words a person (and /readyz) can be told: never a host, file or name. */
export type DatabaseFault = 'not writable' | 'full' | 'busy' | 'unreachable' | 'failing';

/** Told of every statement an engine runs, with how long it took: the metrics' database latency. */
export type StatementObserver = (seconds: number) => void;

export const isNamed = (params: SqlParams): params is Readonly<Record<string, SqlParam>> => !Array.isArray(params);

/**
 * A statement asked of a transaction that has ended (work that went on after its transaction returned or failed): it
 * is refused rather than run outside the transaction, or on a connection another transaction may now hold.
 */
export class TransactionEnded extends Error {
  override readonly name = 'TransactionEnded';
  constructor() {
    super('A statement came after its transaction had ended, and was not run');
  }
}

/**
 * The database answers, but every connection of the pool is in use past the wait for one: the request found the
 * database busy, not gone. Nothing of it was run.
 */
export class DatabaseBusy extends Error {
  override readonly name = 'DatabaseBusy';
  constructor(
    readonly database: string,
    options?: ErrorOptions,
  ) {
    super(`${database} is busy: every connection of the pool is in use`, options);
  }
}

/** The database could not be reached (or was lost mid-statement): nothing of the statement or its transaction holds. */
export class DatabaseUnreachable extends Error {
  override readonly name = 'DatabaseUnreachable';
  constructor(
    /** The database as a person would name it, never with a password. */
    readonly database: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`${database} cannot be reached: ${reason}`, options);
  }
}
