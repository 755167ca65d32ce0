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
  /** How many rows it changed. */
  run(text: string, params?: SqlParams): Promise<number>;
  /**
   * Inside a Postgres transaction, sent without waiting: the next statement that answers (COMMIT at the latest)
   * waits for it too and throws the first error, so that statements in a row cost one round trip.
   */
  write(text: string, params?: SqlParams): Promise<void>;
  /**
   * Holds `key` until the transaction ends. On Postgres an advisory lock, sent as `write` sends: only the next
   * statement waited for is sure to run under it. SQLite's transactions already take the writer lock at BEGIN.
   */
  lock(key: string): Promise<void>;
  /** Runs `work` in one transaction: all of its statements happen, or none. A transaction begun inside joins it. */
  transaction<T>(work: (sql: Sql) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

export interface TransactionOptions {
  /** Changes nothing outside the database, so that Postgres may rerun it after a deadlock or serialization failure. */
  replayable?: boolean;
}

/** Which database an engine opened, as the start-up log names it: never a password. */
export type OpenedDatabase =
  | { engine: 'sqlite'; file: string }
  | { engine: 'postgres'; host: string; port: number; database: string; user: string };

/** For the start-up log. */
export function openedText(opened: OpenedDatabase): string {
  return opened.engine === 'sqlite'
    ? `the SQLite file ${opened.file}`
    : `the Postgres database "${opened.database}" on ${opened.host}:${opened.port} as ${opened.user}`;
}

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

/** If not writable, a public word (shown by /readyz, so naming no host, file or database) and details for the log. */
export type Writable = { ok: true } | { ok: false; state: DatabaseFault; detail: string };

/** What went wrong with a database, in words a person (and /readyz) can be told: never a host, file or name. */
export type DatabaseFault = 'not writable' | 'full' | 'busy' | 'unreachable' | 'failing';

/** Told of every statement an engine runs, with how long it took: the metrics' database latency. */
export type StatementObserver = (seconds: number) => void;

export const isNamed = (params: SqlParams): params is Readonly<Record<string, SqlParam>> => !Array.isArray(params);

/** A statement asked of an ended transaction: refused, rather than run outside it or on another's connection. */
export class TransactionEnded extends Error {
  override readonly name = 'TransactionEnded';
  constructor() {
    super('A statement came after its transaction had ended, and was not run');
  }
}

/** Every pooled connection stayed in use past the wait: the database is busy, not gone. Nothing was run. */
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
