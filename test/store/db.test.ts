import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AUDIT_OUTCOMES, AUDIT_SOURCES, AuditLog } from '../../src/store/audit.js';
import { type Database, openDatabase, openDatabaseReadOnly } from '../../src/store/db.js';
import { MIGRATIONS, migrate, SchemaVersionError, schemaVersion } from '../../src/store/migrations.js';
import { sqliteEngine } from '../../src/store/sqlite-sql.js';
import { useTempDatabases } from './helpers.js';

// The SQLite file itself: its connection, its schema's history, its read-only use.
const temp = useTempDatabases('sqlite');

/** A connection of its own, closed after the test. */
function tracked(db: Database): Database {
  temp.track(sqliteEngine(db));
  return db;
}

/** The app's connection to the file called `name` in the test's directory. */
const open = async (name?: string): Promise<Database> => tracked(await openDatabase(temp.path(name)));

const tableNames = (db: Sqlite.Database): string[] =>
  db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all()
    .map((row) => row.name)
    .sort();

describe('openDatabase', () => {
  it('creates the missing parent directory, tunes the connection and applies every migration', async () => {
    const path = join(temp.path('nested'), 'deeper', 'app.db');
    const db = tracked(await openDatabase(path));

    expect(existsSync(path)).toBe(true);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    expect(tableNames(db)).toEqual([
      'agent_facts',
      'approvals',
      'audit_checkpoints',
      'audit_events',
      'batch_items',
      'batches',
      'confirmations',
      'delivery_keys',
      'digest_lines',
      'digests',
      'intents',
      'leases',
      'number_facts',
      'open_announcements',
      'provider_snapshot',
      'provider_snapshot_taken',
      'routes',
      'settings',
      'settings_version',
      'tags',
      'workflow_steps',
    ]);
  });

  it('applies nothing to an up-to-date database and keeps its data when reopened', async () => {
    const first = await open('app.db');
    await new AuditLog(sqliteEngine(first)).append({
      actorId: 'U1',
      source: 'command',
      action: 'agent.list',
      outcome: 'succeeded',
      correlationId: 'c-1',
    });
    first.close();

    const again = await open('app.db');
    expect(schemaVersion(again)).toBe(MIGRATIONS.length);
    expect(await migrate(again)).toEqual([]);
    expect((await new AuditLog(sqliteEngine(again)).recent(10)).map((event) => event.correlationId)).toEqual(['c-1']);
  });

  it('refuses a database written by newer code, with a message naming both versions', async () => {
    const path = temp.path('future.db');
    const raw = new Sqlite(path);
    raw.pragma(`user_version = ${MIGRATIONS.length + 5}`);
    raw.close();

    await expect(openDatabase(path)).rejects.toThrow(SchemaVersionError);
    await expect(openDatabase(path)).rejects.toThrow(
      `has schema version ${MIGRATIONS.length + 5}, but this code knows versions up to ${MIGRATIONS.length}`,
    );
  });

  it('works in memory, for callers that need no file', async () => {
    const db = tracked(await openDatabase(':memory:'));
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
  });

  it('has CHECK constraints that accept exactly the sources and outcomes the code knows', async () => {
    const db = await open();
    // At the next id and with a well-formed hash, as the append-only trigger asks, so that only a CHECK can refuse.
    const insert = db.prepare<[string, string]>(
      `INSERT INTO audit_events (id, at, actor_id, source, action, outcome, correlation_id, hash)
       VALUES ((SELECT coalesce(max(id), 0) + 1 FROM audit_events), 't', 'U1', ?, 'agent.list', ?, 'c', '${'0'.repeat(64)}')`,
    );
    for (const source of AUDIT_SOURCES) expect(() => insert.run(source, 'succeeded')).not.toThrow();
    for (const outcome of AUDIT_OUTCOMES) expect(() => insert.run('command', outcome)).not.toThrow();
    expect(() => insert.run('email', 'succeeded')).toThrow(/CHECK constraint failed/);
    expect(() => insert.run('command', 'maybe')).toThrow(/CHECK constraint failed/);
  });
});

describe('migrate', () => {
  const steps = [
    { version: 1, name: 'one', sql: 'CREATE TABLE one (x INTEGER)' },
    { version: 2, name: 'two', sql: 'CREATE TABLE two (x INTEGER)' },
  ];

  it('applies pending steps in order, once, recording each version', async () => {
    const db = tracked(new Sqlite(temp.path('steps.db')));
    expect(await migrate(db, steps.slice(0, 1))).toEqual([1]);
    expect(schemaVersion(db)).toBe(1);
    expect(await migrate(db, steps)).toEqual([2]);
    expect(schemaVersion(db)).toBe(2);
    expect(await migrate(db, steps)).toEqual([]);
    expect(tableNames(db)).toEqual(['one', 'two']);
  });

  it('rolls back a failing step entirely and keeps the steps before it', async () => {
    const db = tracked(new Sqlite(temp.path('broken.db')));
    const broken = [...steps, { version: 3, name: 'broken', sql: 'CREATE TABLE three (x INTEGER); NOT SQL' }];

    await expect(migrate(db, broken)).rejects.toThrow(/syntax error/);
    expect(schemaVersion(db)).toBe(2);
    expect(tableNames(db)).toEqual(['one', 'two']);
  });

  it('rejects a list that is not numbered 1, 2, 3… in order', async () => {
    const db = tracked(new Sqlite(temp.path('misnumbered.db')));
    await expect(migrate(db, [...steps].reverse())).rejects.toThrow(/numbered/);
    await expect(migrate(db, [{ version: 2, name: 'gap', sql: 'CREATE TABLE gap (x INTEGER)' }])).rejects.toThrow(
      /numbered/,
    );
    expect(schemaVersion(db)).toBe(0);
  });
});

describe('openDatabaseReadOnly', () => {
  it('reads a migrated database and refuses to write to it', async () => {
    const path = temp.path('app.db');
    (await openDatabase(path)).close();

    const db = tracked(openDatabaseReadOnly(path));
    expect(await new AuditLog(sqliteEngine(db)).recent(5)).toEqual([]);
    expect(() => db.exec("INSERT INTO routes VALUES ('+15550100', 'a', NULL, 't', 'U1')")).toThrow(/readonly/);
  });

  it('refuses a database an older version wrote until the app has migrated it, which it cannot do itself', async () => {
    const path = temp.path('old.db');
    const old = new Sqlite(path);
    await migrate(old, MIGRATIONS.slice(0, 1));
    old.close();

    expect(() => openDatabaseReadOnly(path)).toThrow(
      `has schema version 1, older than this code's ${MIGRATIONS.length}: start the app once to migrate it`,
    );
    (await openDatabase(path)).close();
    expect(() => tracked(openDatabaseReadOnly(path))).not.toThrow();
  });

  it('refuses a file without the schema, and a file that is not there', async () => {
    const empty = temp.path('empty.db');
    writeFileSync(empty, '');
    expect(() => openDatabaseReadOnly(empty)).toThrow(/has no voice-ops schema/);
    expect(() => openDatabaseReadOnly(temp.path('missing.db'))).toThrow();
    expect(existsSync(temp.path('missing.db'))).toBe(false);
  });
});
