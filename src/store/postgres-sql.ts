// Postgres as an Sql engine: a pool of connections; a transaction runs on one of them, from BEGIN to COMMIT. The
// store's `?` and `@name` placeholders become `$1…` once per statement text.
import pg from 'pg';
import { parse, toClientConfig } from 'pg-connection-string';
import type { Liveness } from './liveness.js';
import { postgresLiveness } from './postgres-liveness.js';
import { type Corkable, socketOf } from './postgres-socket.js';
import {
  DatabaseBusy,
  type DatabaseFault,
  DatabaseUnreachable,
  type Dialect,
  isNamed,
  type OpenedDatabase,
  type Sql,
  type SqlEngine,
  type SqlParam,
  type SqlParams,
  type StatementObserver,
  TransactionEnded,
  type TransactionOptions,
  type Writable,
} from './sql.js';

export const postgresDialect: Dialect = {
  name: 'postgres',
  jsonField: (column, key) => `(${column}::jsonb ->> '${key}')`,
  inJsonArray: (param) => `IN (${postgresDialect.jsonArrayRows(param)})`,
  jsonArrayRows: (param) => `SELECT jsonb_array_elements_text(CAST(${param} AS jsonb)) AS value`,
  caseless: (expression) => `lower(${expression})`,
  // clock_timestamp(), not now(): now() is the time the transaction began.
  clock: 'SELECT CAST(round(extract(epoch FROM clock_timestamp()) * 1000) AS float8) AS ms',
};

interface Compiled {
  text: string;
  /** For named parameters, the name behind each $n. */
  names?: string[];
  /** The name it is prepared under on each connection, for a query the server can plan once. */
  prepared?: string;
}

// Queries the server may keep prepared; a transaction's BEGIN and COMMIT, and anything else, run as simple text.
const PREPARABLE = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i;

const PLACEHOLDER = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\?|@([A-Za-z_][A-Za-z0-9_]*)/g;

/** `?` → `$1, $2…` in order; `@name` → one `$n` per distinct name. Quoted text is left as it is. */
export function compile(text: string): Compiled {
  const names: string[] = [];
  let positional = 0;
  const compiled = text.replace(PLACEHOLDER, (match, name: string | undefined) => {
    if (match === '?') return `$${++positional}`;
    if (name === undefined) return match;
    const index = names.indexOf(name);
    if (index >= 0) return `$${index + 1}`;
    names.push(name);
    return `$${names.length}`;
  });
  return names.length ? { text: compiled, names } : { text: compiled };
}

const compiledTexts = new Map<string, Compiled>();

function compiledOf(text: string): Compiled {
  let compiled = compiledTexts.get(text);
  if (compiled === undefined) {
    // Each connection parses and plans a statement once, then only binds its values: the delivery key's insert
    // before every acknowledgement costs the server no parse.
    compiled = { ...compile(text), ...(PREPARABLE.test(text) ? { prepared: `voice_ops_${compiledTexts.size}` } : {}) };
    compiledTexts.set(text, compiled);
  }
  return compiled;
}

function values(compiled: Compiled, params: SqlParams): SqlParam[] {
  if (!isNamed(params)) return [...params];
  return (compiled.names ?? []).map((name) => {
    const value = params[name];
    if (value === undefined) throw new Error(`No value for the SQL parameter @${name}`);
    return value;
  });
}

// BIGINT (counts, ids) and NUMERIC arrive as text; every one the store reads fits a double.
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

type Runner = pg.Pool | pg.PoolClient;

const SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);
// What pg itself says when a connection ends or cannot be made in time.
const NO_CONNECTION_IN_TIME = /timeout exceeded when trying to connect/i;
const CONNECTION_ENDED = /Connection terminated|timeout exceeded when trying to connect|not queryable/i;

/** The server is gone: a socket failure, a lost connection, class 08 or 57P (shut down, restarting). */
export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof pg.DatabaseError) return /^(08|57P)/.test(error.code ?? '');
  const code = 'code' in error ? String(error.code) : '';
  return SOCKET_ERRORS.has(code) || CONNECTION_ENDED.test(error.message);
}

/** What a Postgres error says of the database: busy (a timeout, a lock, a deadlock, a full pool) is not unreachable. */
export function postgresFault(error: unknown): DatabaseFault | undefined {
  if (error instanceof DatabaseBusy) return 'busy';
  if (error instanceof DatabaseUnreachable) return 'unreachable';
  // Only the server's own errors: a socket error from elsewhere (a Slack call, say) says nothing of the database.
  if (!(error instanceof pg.DatabaseError)) return undefined;
  if (isConnectionLoss(error)) return 'unreachable';
  const code = error.code ?? '';
  if (code === '53100') return 'full';
  if (code === '25006') return 'not writable';
  // Statement and lock timeouts, a lock not available, serialization failures and deadlocks, too many connections.
  if (['57014', '55P03', '40001', '40P01', '53300'].includes(code)) return 'busy';
  return 'failing';
}

/** A transaction the server ended for a serialization failure or as a deadlock's victim: run again, it may pass. */
function endedToRetry(error: unknown): boolean {
  return error instanceof pg.DatabaseError && (error.code === '40001' || error.code === '40P01');
}

const LOCK = 'SELECT pg_advisory_xact_lock(hashtextextended(?, 0))';

abstract class PostgresSql implements Sql {
  readonly dialect = postgresDialect;
  constructor(
    protected readonly runner: Runner,
    readonly label: string,
    protected readonly observe: StatementObserver,
  ) {}

  /** A lost server becomes a DatabaseUnreachable; a statement that cannot be built throws before anything is sent. */
  protected query(text: string, params: SqlParams): Promise<pg.QueryResult> {
    const compiled = compiledOf(text);
    return this.#send(compiled, values(compiled, params));
  }

  async #send(compiled: Compiled, given: SqlParam[]): Promise<pg.QueryResult> {
    const started = performance.now();
    try {
      return await this.runner.query({ name: compiled.prepared, text: compiled.text, values: given });
    } catch (error) {
      throw this.unreachableOr(error);
    } finally {
      this.observe((performance.now() - started) / 1000);
    }
  }

  protected unreachableOr(error: unknown): unknown {
    if (error instanceof DatabaseUnreachable || error instanceof DatabaseBusy) return error;
    // pg's wait for a connection ends the same way whether the server is slow to answer or every connection of the
    // pool is taken: a full pool means the server is up, and the request found it busy.
    const pool = this.runner instanceof pg.Pool ? this.runner : undefined;
    if (pool && NO_CONNECTION_IN_TIME.test(String(error)) && pool.totalCount >= (pool.options.max ?? 10)) {
      return new DatabaseBusy(this.label, { cause: error });
    }
    if (!isConnectionLoss(error)) return error;
    return new DatabaseUnreachable(this.label, reasonOf(error), { cause: error });
  }

  async all<T>(text: string, params: SqlParams = []): Promise<T[]> {
    return (await this.query(text, params)).rows as T[];
  }

  async get<T>(text: string, params: SqlParams = []): Promise<T | undefined> {
    return (await this.all<T>(text, params))[0];
  }

  async run(text: string, params: SqlParams = []): Promise<number> {
    return (await this.query(text, params)).rowCount ?? 0;
  }

  async write(text: string, params: SqlParams = []): Promise<void> {
    await this.query(text, params);
  }

  async lock(_key: string): Promise<void> {
    throw new Error('A lock can only be taken inside a transaction');
  }

  abstract transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
}

/**
 * A transaction on one pooled connection, which pipelines: a `write` is sent without waiting, and the server runs
 * statements in the order sent, so a read sent behind a lock sees what the lock's previous holder committed.
 */
class PostgresTransaction extends PostgresSql {
  /** Statements sent whose answers nobody has waited for yet. */
  #sent: Promise<unknown>[] = [];
  /** The error of the transaction's first statement to fail: the cause of the abort every later one meets. */
  #firstError: unknown;
  readonly #socket: Corkable | undefined;
  #corked = false;
  /** Until COMMIT or ROLLBACK: a statement asked after it would run outside the transaction, or in another's. */
  #open = true;

  constructor(client: pg.PoolClient, label: string, observe: StatementObserver) {
    super(client, label, observe);
    this.#socket = socketOf(client);
  }

  protected override async query(text: string, params: SqlParams): Promise<pg.QueryResult> {
    if (!this.#open) throw new TransactionEnded();
    return this.#answered(text, params);
  }

  /** A statement's answer, once the writes sent before it have answered too. */
  async #answered(text: string, params: SqlParams): Promise<pg.QueryResult> {
    // The writes sent before this statement; any sent after it (not waited for here) stay for the next.
    const before = this.#sent;
    this.#sent = [];
    this.#cork();
    const [answer, ...earlier] = await Promise.allSettled([this.#dispatch(text, params), ...before]);
    const failed = [...earlier, answer].find((outcome) => outcome.status === 'rejected');
    // Should an earlier statement have failed, this one found the transaction aborted: the first error is the cause.
    if (failed) throw this.#firstError ?? failed.reason;
    return (answer as PromiseFulfilledResult<pg.QueryResult>).value;
  }

  override async write(text: string, params: SqlParams = []): Promise<void> {
    if (!this.#open) throw new TransactionEnded();
    // Built before anything is sent, so that the transaction can still roll back rather than commit the rest.
    this.#cork();
    const sent = this.#dispatch(text, params);
    sent.catch(() => {}); // thrown by the next statement waited for
    this.#sent.push(sent);
  }

  override lock(key: string): Promise<void> {
    return this.write(LOCK, [key]);
  }

  override transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return work(this);
  }

  /** Postgres answers the COMMIT of a failed transaction with ROLLBACK and no error. */
  async commit(): Promise<void> {
    this.end();
    const { command } = await this.#answered('COMMIT', []);
    if (command !== 'COMMIT') {
      throw this.#firstError ?? new Error(`${this.label} rolled the transaction back: one of its statements failed`);
    }
  }

  /** Refuses every statement from now on: the transaction is being committed or rolled back. */
  end(): void {
    this.#open = false;
  }

  /** Keeps the transaction's first error: answers come in the order sent, so it aborted the rest. */
  #dispatch(text: string, params: SqlParams): Promise<pg.QueryResult> {
    const sent = super.query(text, params);
    sent.catch((error: unknown) => {
      this.#firstError ??= error;
    });
    return sent;
  }

  #cork(): void {
    if (this.#corked || !this.#socket) return;
    this.#corked = true;
    this.#socket.cork();
    process.nextTick(() => {
      this.#corked = false;
      this.#socket?.uncork();
    });
  }
}

export interface PostgresOptions {
  poolSize: number;
  /** A statement that runs longer is cancelled by the server. */
  statementTimeoutMs: number;
  /** For errors the pool meets on idle connections (the server restarting, say). */
  onIdleError: (error: Error) => void;
  onStatement?: StatementObserver;
}

export class PostgresEngine extends PostgresSql implements SqlEngine {
  readonly #pool: pg.Pool;
  readonly opened: OpenedDatabase;
  constructor(
    pool: pg.Pool,
    label: string,
    observe: StatementObserver,
    private readonly connection: pg.ClientConfig,
  ) {
    super(pool, label, observe);
    this.#pool = pool;
    // pg's own reading of the connection, defaults (PGHOST, PGUSER, the port) filled in as the pool's are.
    const { host, port, database = '', user = '' } = new pg.Client(connection);
    this.opened = { engine: 'postgres', host, port, database, user };
  }

  holdLiveness(onChange?: (held: boolean, error?: Error) => void): Promise<Liveness> {
    return postgresLiveness({
      connection: this.connection,
      query: (text, values) => this.#pool.query(text, values),
      onChange,
    });
  }

  /** A `replayable` transaction ended as a deadlock victim or serialization failure runs once more; then is busy. */
  async transaction<T>(work: (sql: Sql) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    try {
      return await this.#transactionOnce(work);
    } catch (error) {
      if (!options.replayable || !endedToRetry(error)) throw error;
      return this.#transactionOnce(work);
    }
  }

  async #transactionOnce<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect().catch((error: unknown) => {
      throw this.unreachableOr(error);
    });
    let broken: Error | undefined;
    const inside = new PostgresTransaction(client, this.label, this.observe);
    try {
      await inside.write('BEGIN');
      try {
        const value = await work(inside);
        await inside.commit();
        return value;
      } catch (error) {
        // A connection lost mid-transaction has rolled back on the server; it is discarded, not reused.
        inside.end();
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      }
    } finally {
      inside.end();
      client.release(broken);
    }
  }

  async checkWritable(): Promise<Writable> {
    try {
      const { rows } = await this.#pool.query<{ read_only: string }>(
        "SELECT current_setting('transaction_read_only') AS read_only",
      );
      if (rows[0]?.read_only === 'on')
        return { ok: false, state: 'not writable', detail: `${this.label} is read-only` };
      return { ok: true };
    } catch (error) {
      const state = postgresFault(this.unreachableOr(error)) ?? 'failing';
      return { ok: false, state, detail: `${this.label}: ${reasonOf(error)}` };
    }
  }

  /** Runs `work` on one connection of its own (the migrations hold a session lock on it). */
  async connected<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    try {
      return await work(client);
    } finally {
      client.release();
    }
  }

  close(): Promise<void> {
    return this.#pool.end();
  }
}

/** What went wrong, in words that never carry the connection string. */
export function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
    return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}

/** The server and database a URL names, for messages: never its user's password. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres';
    return `the Postgres database "${database}" on ${parsed.host || 'localhost'}`;
  } catch {
    return 'the Postgres database in DATABASE_URL (which is not a valid URL)';
  }
}

/** How the pool connects to the database at `url`: `sslmode` and the rest read as libpq reads them. */
export function connectionOf(url: string): pg.ClientConfig {
  // pg's own reading takes sslmode=require (and prefer, verify-ca) as verify-full; libpq's is what operators know.
  return toClientConfig(parse(url, { useLibpqCompat: true }));
}

/** A pool on the database at `url`; no connection is opened yet. */
export function postgresEngine(url: string, options: PostgresOptions): PostgresEngine {
  const connection = connectionOf(url);
  const pool = new pg.Pool({
    ...connection,
    // A transaction's statements whose answers it does not wait for are sent behind each other (PostgresTransaction).
    pipeline: true,
    max: options.poolSize,
    statement_timeout: options.statementTimeoutMs,
    connectionTimeoutMillis: 5_000,
    types,
  });
  pool.on('error', options.onIdleError);
  return new PostgresEngine(pool, describeUrl(url), options.onStatement ?? (() => {}), connection);
}
