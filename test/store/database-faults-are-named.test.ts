// Real failures of each engine, named by what they say of the database (store/faults.ts), as a person and /readyz
// are told them: on SQLite a file on a full filesystem (a small tmpfs, as root), a file that takes no writes, a
// constraint; on Postgres a statement timeout, a lock not available, a read-only transaction, a constraint, and a
// pool whose every connection is in use, which is busy, not unreachable.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseFault } from '../../src/store/faults.js';
import { openEngine } from '../../src/store/open-store.js';
import type { SqlEngine } from '../../src/store/sql.js';
import { TEST_ENGINE, type TestDatabase, testDatabase } from '../harness/database.js';
import { signal } from '../harness/signal.js';

/** The error `work` throws; fails the test when it throws none. */
async function thrown(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe.runIf(TEST_ENGINE === 'sqlite')('SQLite', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'voice-ops-faults-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a full filesystem is full', async () => {
    const small = join(dir, 'small');
    await mkdir(small);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', small]);
    try {
      const db = new Sqlite(join(small, 'full.db'));
      db.exec('CREATE TABLE filler (text TEXT)');
      const insert = db.prepare('INSERT INTO filler VALUES (?)');
      const error = await thrown(() => {
        for (let i = 0; i < 10_000; i++) insert.run('x'.repeat(4096));
      });
      db.close();
      expect(databaseFault(error)).toBe('full');
    } finally {
      execFileSync('umount', [small]);
    }
  });

  it('a file that takes no writes is not writable; a constraint is a failure', async () => {
    const path = join(dir, 'readonly.db');
    const setUp = new Sqlite(path);
    setUp.exec('CREATE TABLE once (id TEXT PRIMARY KEY)');
    setUp.prepare('INSERT INTO once VALUES (?)').run('a');
    expect(databaseFault(await thrown(() => setUp.prepare('INSERT INTO once VALUES (?)').run('a')))).toBe('failing');
    setUp.close();
    const readOnly = new Sqlite(path, { readonly: true });
    expect(databaseFault(await thrown(() => readOnly.prepare('INSERT INTO once VALUES (?)').run('b')))).toBe(
      'not writable',
    );
    readOnly.close();
  });

  it('an error that is not a database’s is none', () => {
    expect(databaseFault(new Error('a plain mistake'))).toBeUndefined();
  });
});

describe.runIf(TEST_ENGINE === 'postgres')('Postgres', () => {
  let dir: string;
  let database: TestDatabase;
  let engine: SqlEngine;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'voice-ops-faults-'));
    database = await testDatabase(dir);
    engine = await database.sql();
  });
  afterAll(async () => {
    await database?.remove();
    await rm(dir, { recursive: true, force: true });
  });

  it('a statement timeout and a lock not available are busy', async () => {
    const timedOut = await thrown(() =>
      engine.transaction(async (sql) => {
        await sql.run('SET LOCAL statement_timeout = 50');
        await sql.get('SELECT pg_sleep(5)');
      }),
    );
    expect(databaseFault(timedOut)).toBe('busy');
    // A lock another transaction holds, past the lock timeout.
    const taken = signal();
    const letGo = signal();
    const holding = engine.transaction(async (sql) => {
      await sql.run('LOCK TABLE leases IN ACCESS EXCLUSIVE MODE');
      taken.fire();
      await letGo.reached;
    });
    await taken.reached;
    const locked = await thrown(() =>
      engine.transaction(async (sql) => {
        await sql.run('SET LOCAL lock_timeout = 50');
        await sql.run('LOCK TABLE leases IN ACCESS EXCLUSIVE MODE');
      }),
    );
    letGo.fire();
    await holding;
    expect(databaseFault(locked)).toBe('busy');
  });

  it('a read-only transaction is not writable; a constraint is a failure', async () => {
    const readOnly = await thrown(() =>
      engine.transaction(async (sql) => {
        await sql.run('SET TRANSACTION READ ONLY');
        await sql.run("INSERT INTO leases (name, holder, expires_at) VALUES ('x', 'y', 'z')");
      }),
    );
    expect(databaseFault(readOnly)).toBe('not writable');
    await engine.run("INSERT INTO leases (name, holder, expires_at) VALUES ('twice', 'y', 'z')");
    const twice = await thrown(() =>
      engine.run("INSERT INTO leases (name, holder, expires_at) VALUES ('twice', 'y', 'z')"),
    );
    expect(databaseFault(twice)).toBe('failing');
  });

  it('a pool whose every connection is in use is busy, not unreachable', async () => {
    if (database.target.kind !== 'postgres') throw new Error('Postgres only');
    const pool = await openEngine({ ...database.target, poolSize: 1 });
    try {
      const taken = signal();
      const letGo = signal();
      const held = pool.transaction(async () => {
        taken.fire();
        await letGo.reached;
      });
      await taken.reached;
      const busy = await thrown(() => pool.get('SELECT 1'));
      letGo.fire();
      await held;
      expect(databaseFault(busy)).toBe('busy');
    } finally {
      await pool.close();
    }
  });
});
