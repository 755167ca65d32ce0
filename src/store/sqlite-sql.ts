// SQLite as an Sql engine: one better-sqlite3 connection, whose statements run synchronously. A transaction may
// await between its statements, so it holds the connection until it ends: statements from elsewhere wait for it
// rather than slip into it. BEGIN IMMEDIATE takes the file's one writer lock at once, which serialises transactions
// across processes sharing the file (and makes `lock` unnecessary).
import { resolve } from 'node:path';
import type Sqlite from 'better-sqlite3';
import type { WalCheckpoints } from './checkpoints.js';
import { checkWritable, type Database } from './db.js';
import { type Liveness, soleLiveness } from './liveness.js';
import {
  type Dialect,
  isNamed,
  type OpenedDatabase,
  type Sql,
  type SqlEngine,
  type SqlParams,
  type StatementObserver,
  TransactionEnded,
} from './sql.js';
import { fileLiveness } from './sqlite-liveness.js';

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  jsonField: (column, key) => `json_extract(${column}, '$.${key}')`,
  inJsonArray: (param) => `IN (${sqliteDialect.jsonArrayRows(param)})`,
  jsonArrayRows: (param) => `SELECT value FROM json_each(${param})`,
  caseless: (expression) => `${expression} COLLATE NOCASE`,
  // The process's clock: every process on the file shares one host, and reads it through the same path as Postgres.
  clock: `SELECT CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER) AS ms`,
};

class Statements {
  readonly #cache = new Map<string, Sqlite.Statement>();
  constructor(
    readonly db: Database,
    private readonly observe: StatementObserver,
  ) {}

  prepare(text: string): Sqlite.Statement {
    let statement = this.#cache.get(text);
    if (statement === undefined) {
      statement = this.db.prepare(text);
      this.#cache.set(text, statement);
    }
    return statement;
  }

  all<T>(text: string, params: SqlParams): T[] {
    const statement = this.prepare(text);
    return this.#timed(() => (isNamed(params) ? statement.all(params) : statement.all(...params)) as T[]);
  }

  run(text: string, params: SqlParams): number {
    const statement = this.prepare(text);
    return this.#timed(() => (isNamed(params) ? statement.run(params) : statement.run(...params)).changes);
  }

  #timed<T>(work: () => T): T {
    const started = performance.now();
    try {
      return work();
    } finally {
      this.observe((performance.now() - started) / 1000);
    }
  }
}

/** Whether a transaction holds the connection, and the promise of its end. */
interface Gate {
  held?: Promise<void>;
}

/**
 * Statements outside a transaction wait at the gate; those inside the transaction that holds it (no gate) run at
 * once. Each waits and then runs in one synchronous step, so nothing can begin in between.
 */
class SqliteSql implements Sql {
  readonly dialect = sqliteDialect;
  constructor(
    protected readonly statements: Statements,
    private readonly gate: Gate | undefined,
    /** Inside a transaction, until its COMMIT or ROLLBACK: a statement asked after it would run in another's. */
    private readonly open?: { now: boolean },
  ) {}

  async all<T>(text: string, params: SqlParams = []): Promise<T[]> {
    if (this.gate) while (this.gate.held !== undefined) await this.gate.held;
    if (this.open?.now === false) throw new TransactionEnded();
    return this.statements.all<T>(text, params);
  }

  async get<T>(text: string, params: SqlParams = []): Promise<T | undefined> {
    return (await this.all<T>(text, params))[0];
  }

  async run(text: string, params: SqlParams = []): Promise<number> {
    if (this.gate) while (this.gate.held !== undefined) await this.gate.held;
    if (this.open?.now === false) throw new TransactionEnded();
    return this.statements.run(text, params);
  }

  async write(text: string, params: SqlParams = []): Promise<void> {
    await this.run(text, params);
  }

  async lock(): Promise<void> {}

  async transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    const { gate } = this;
    if (!gate) return work(this);
    while (gate.held !== undefined) await gate.held;
    let release = (): void => {};
    gate.held = new Promise((resolve) => {
      release = resolve;
    });
    const { db } = this.statements;
    const open = { now: true };
    try {
      db.exec('BEGIN IMMEDIATE');
      try {
        const value = await work(new SqliteSql(this.statements, undefined, open)).finally(() => {
          open.now = false;
        });
        db.exec('COMMIT');
        return value;
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    } finally {
      gate.held = undefined;
      release();
    }
  }
}

class SqliteEngine extends SqliteSql implements SqlEngine {
  readonly #gate: Gate;
  readonly opened: OpenedDatabase;

  constructor(
    statements: Statements,
    readonly label: string,
    private readonly checkpoints: WalCheckpoints | undefined,
    gate: Gate = {},
  ) {
    super(statements, gate);
    this.#gate = gate;
    const { db } = statements;
    this.opened = { engine: 'sqlite', file: db.memory ? db.name : resolve(db.name) };
  }

  async checkWritable() {
    while (this.#gate.held !== undefined) await this.#gate.held;
    return checkWritable(this.statements.db);
  }

  async holdLiveness(): Promise<Liveness> {
    const { db } = this.statements;
    return db.memory ? soleLiveness() : fileLiveness(db.name);
  }

  async close(): Promise<void> {
    await this.checkpoints?.stop();
    while (this.#gate.held !== undefined) await this.#gate.held;
    this.statements.db.close();
  }
}

/** `checkpoints`, given for the app's own file, is stopped when the engine closes. */
export function sqliteEngine(
  db: Database,
  label = db.name,
  observe: StatementObserver = () => {},
  checkpoints?: WalCheckpoints,
): SqlEngine {
  return new SqliteEngine(new Statements(db, observe), label, checkpoints);
}
