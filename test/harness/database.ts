// The database of one test's app, on the engine of this run of the matrix (vitest.config.ts): a SQLite file in the
// test's folder, or a fresh database on the project's Postgres server. Tests point the app at it through `env`, and
// read what the app kept through `sql()`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { inject } from 'vitest';
import type { DatabaseTarget } from '../../src/database-target.js';
import { openEngine } from '../../src/store/open-store.js';
import type { SqlEngine } from '../../src/store/sql.js';
import { createDatabase, dropDatabases } from './postgres.js';

export type EngineName = DatabaseTarget['kind'];

/** The engine of this run of the matrix: the Postgres project sets it; SQLite is the default. */
export const TEST_ENGINE: EngineName = process.env.TEST_DATABASE_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

export interface TestDatabase {
  readonly target: DatabaseTarget;
  /** The variables that point the app at it. */
  readonly env: Record<string, string>;
  /** An engine on it for the test's own reads and writes, opened once; closed by `remove`. */
  sql(): Promise<SqlEngine>;
  /** Every row of every table, as JSON by table name: for proving that something (a secret) was never stored. */
  text(): Promise<string>;
  /** Closes the test's engines and, on Postgres, drops the database (a SQLite file goes with its folder). */
  remove(): Promise<void>;
}

/** A database for one test, in `folder` when it is a file. */
export async function testDatabase(folder: string, engine: EngineName = TEST_ENGINE): Promise<TestDatabase> {
  const target: DatabaseTarget =
    engine === 'sqlite'
      ? { kind: 'sqlite', path: join(folder, 'voice-ops.db') }
      : { kind: 'postgres', url: await createDatabase(inject('postgresUrl')), poolSize: 4, statementTimeoutMs: 10_000 };
  let opened: Promise<SqlEngine> | undefined;
  const sql = () => {
    opened ??= openEngine(target);
    return opened;
  };
  return {
    target,
    env: target.kind === 'sqlite' ? { DATABASE_PATH: target.path } : { DATABASE_URL: target.url },
    sql,
    text: async () => {
      const db = await sql();
      const tables = await db.all<{ name: string }>(
        target.kind === 'sqlite'
          ? "SELECT name FROM sqlite_master WHERE type = 'table'"
          : 'SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()',
      );
      const rows = await Promise.all(tables.map(async ({ name }) => [name, await db.all(`SELECT * FROM "${name}"`)]));
      return JSON.stringify(Object.fromEntries(rows));
    },
    remove: async () => {
      await (await opened)?.close();
      opened = undefined;
      if (target.kind === 'postgres') await dropDatabases(inject('postgresUrl'), [target.url]);
    },
  };
}

/** Every row of a SQLite file an app left (one that ran outside the engine matrix), for the secrets sweep. */
export async function databaseText(path: string): Promise<string> {
  if (!existsSync(path)) return '';
  const db = new Sqlite(path, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    return JSON.stringify(
      Object.fromEntries(tables.map(({ name }) => [name, db.prepare(`SELECT * FROM "${name}"`).all()])),
    );
  } finally {
    db.close();
  }
}
