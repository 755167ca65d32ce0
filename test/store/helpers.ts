// Real databases for tests, on either engine: SQLite files in a fresh temporary directory, or fresh databases on the
// suite's Postgres server (test/global-setup.ts); each is closed and removed after its test.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, inject } from 'vitest';
import type { DatabaseTarget } from '../../src/database-target.js';
// The kinds of change register the shapes of the records the store reads back, as the app's start does.
import '../../src/ops/kinds/index.js';
import { openEngine } from '../../src/store/open-store.js';
import type { SqlEngine } from '../../src/store/sql.js';
import { type EngineName, TEST_ENGINE } from '../harness/database.js';
import { createDatabase, dropDatabases } from '../harness/postgres.js';

export { type EngineName, TEST_ENGINE };

/** For `describe.each`, so that a test's name says its engine. */
export const ENGINES: EngineName[] = [TEST_ENGINE];

export function useTempDatabases(engine: EngineName = TEST_ENGINE) {
  let dir: string | undefined;
  const opened: SqlEngine[] = [];
  const databases = new Map<string, string>();

  afterEach(async () => {
    try {
      await Promise.all(opened.splice(0).map((sql) => sql.close().catch(() => {})));
      await dropDatabases(inject('postgresUrl'), [...databases.values()]);
    } finally {
      databases.clear();
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    }
  });

  /** A SQLite file's path in the test's directory. */
  const path = (name = 'store.db'): string => {
    dir ??= mkdtempSync(join(tmpdir(), 'voice-ops-store-'));
    return join(dir, name);
  };

  /** Where the database called `name` is, on this engine; the same name is the same database. */
  const target = async (name = 'store.db'): Promise<DatabaseTarget> => {
    if (engine === 'sqlite') return { kind: 'sqlite', path: path(name) };
    let url = databases.get(name);
    if (url === undefined) {
      url = await createDatabase(inject('postgresUrl'));
      databases.set(name, url);
    }
    return { kind: 'postgres', url, poolSize: 4, statementTimeoutMs: 10_000 };
  };

  /** Closes the engine after the test. */
  const track = (sql: SqlEngine): SqlEngine => {
    opened.push(sql);
    return sql;
  };

  return {
    engine,
    path,
    target,
    track,
    /** Opens (creating and migrating) the database; opening the same name twice gives two connections to one. */
    open: async (name?: string): Promise<SqlEngine> => track(await openEngine(await target(name))),
  };
}

/** A clock that only moves when told to. */
export function manualClock(start = '2026-11-01T09:00:00.000Z') {
  let time = new Date(start).getTime();
  return {
    now: () => new Date(time),
    advance(ms: number): void {
      time += ms;
    },
    set(iso: string): void {
      time = new Date(iso).getTime();
    },
  };
}

/** Runs a CLI with the database variables unset unless `env` sets them, so that the runner's own cannot leak in. */
export async function runCli(script: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    env: { ...process.env, DATABASE_URL: '', DATABASE_PATH: '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = await once(child, 'close');
  return { code, stdout, stderr };
}
