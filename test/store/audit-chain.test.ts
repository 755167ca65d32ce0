import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import Sqlite from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AuditEntry, AuditLog } from '../../src/store/audit.js';
import {
  type ChainedRow,
  canonicalContent,
  chainHash,
  GENESIS_HASH,
  verifyChain,
} from '../../src/store/audit-chain.js';
import { openDatabase } from '../../src/store/db.js';
import { MIGRATIONS, migrate, schemaVersion } from '../../src/store/migrations.js';
import type { Sql } from '../../src/store/sql.js';
import { sqliteEngine } from '../../src/store/sqlite-sql.js';
import { ENGINES, type EngineName, manualClock, useTempDatabases } from './helpers.js';

const entry = (overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  actorId: 'U0123ABC',
  source: 'command',
  action: 'number.buy',
  target: '+14155550100',
  outcome: 'requested',
  correlationId: 'corr-1',
  ...overrides,
});

const everyRow = (sql: Sql) => sql.all<ChainedRow & { hash: string }>('SELECT * FROM audit_events ORDER BY id');

describe('the canonical content of a row', () => {
  it('is a JSON array of the previous hash and the columns in a fixed order, hashed as UTF-8 with SHA-256', () => {
    const row: ChainedRow = {
      id: 1,
      at: '2026-11-01T09:00:00.000Z',
      actor_id: 'U0123ABC',
      actor_name: 'Zoë "Z"\n',
      team_id: null,
      channel_id: 'C0001',
      source: 'command',
      action: 'agent.create',
      target: null,
      params: '{"name":"Front desk"}',
      outcome: 'requested',
      error_code: null,
      error_message: null,
      correlation_id: 'corr-1',
    };
    const text =
      `["${'0'.repeat(64)}",1,"2026-11-01T09:00:00.000Z","U0123ABC","Zoë \\"Z\\"\\n",null,"C0001","command",` +
      '"agent.create",null,"{\\"name\\":\\"Front desk\\"}","requested",null,null,"corr-1"]';

    expect(GENESIS_HASH).toBe('0'.repeat(64));
    expect(canonicalContent(GENESIS_HASH, row)).toBe(text);
    expect(chainHash(GENESIS_HASH, row)).toBe(createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'));
  });
});

// Each statement is one someone with SQL access (but not the schema) might try. Row 2 exists; 3 is the last.
const ROW = "'2026-11-01T00:00:00.000Z', 'UEVE', 'command', 'number.buy', 'succeeded', 'c-forged'";
const COLUMNS = 'at, actor_id, source, action, outcome, correlation_id';
const HASH = `'${'a'.repeat(64)}'`;
/** In the SQL both engines speak. */
const TAMPERING: [string, string][] = [
  ['UPDATE', "UPDATE audit_events SET outcome = 'succeeded' WHERE id = 2"],
  ['UPDATE of every row', "UPDATE audit_events SET actor_id = 'UEVE'"],
  ['UPDATE onto another id', 'UPDATE audit_events SET id = 4 WHERE id = 3'],
  ['DELETE of one row', 'DELETE FROM audit_events WHERE id = 2'],
  ['DELETE of every row', 'DELETE FROM audit_events'],
  ['INSERT at a used id', `INSERT INTO audit_events (id, ${COLUMNS}, hash) VALUES (2, ${ROW}, ${HASH})`],
  [
    'an upsert at a used id',
    `INSERT INTO audit_events (id, ${COLUMNS}, hash) VALUES (2, ${ROW}, ${HASH}) ON CONFLICT (id) DO UPDATE SET outcome = 'failed'`,
  ],
  [
    'an upsert doing nothing at a used id',
    `INSERT INTO audit_events (id, ${COLUMNS}, hash) VALUES (2, ${ROW}, ${HASH}) ON CONFLICT (id) DO NOTHING`,
  ],
  [
    'INSERT below the first id, into the past',
    `INSERT INTO audit_events (id, ${COLUMNS}, hash) VALUES (0, ${ROW}, ${HASH})`,
  ],
  ['INSERT at a negative id', `INSERT INTO audit_events (id, ${COLUMNS}, hash) VALUES (-7, ${ROW}, ${HASH})`],
  [
    'INSERT past the next id, leaving a gap',
    `INSERT INTO audit_events (id, ${COLUMNS}, hash) VALUES (9, ${ROW}, ${HASH})`,
  ],
  ['INSERT without an id', `INSERT INTO audit_events (${COLUMNS}, hash) VALUES (${ROW}, ${HASH})`],
  ['INSERT without a hash', `INSERT INTO audit_events (id, ${COLUMNS}) VALUES (4, ${ROW})`],
  ['INSERT with a short hash', `INSERT INTO audit_events (id, ${COLUMNS}, hash) VALUES (4, ${ROW}, 'abc')`],
];
/** SQLite's own: REPLACE deletes the row it conflicts with without firing DELETE triggers. */
const SQLITE_TAMPERING: [string, string][] = [
  ['UPDATE OR REPLACE onto another id', 'UPDATE OR REPLACE audit_events SET id = 1 WHERE id = 2'],
  [
    'INSERT OR REPLACE at a used id',
    `INSERT OR REPLACE INTO audit_events (id, ${COLUMNS}, hash) VALUES (2, ${ROW}, ${HASH})`,
  ],
  [
    'REPLACE INTO … SELECT',
    `REPLACE INTO audit_events SELECT id, ${ROW}, NULL, NULL, NULL, NULL, NULL, NULL, NULL, hash FROM audit_events`,
  ],
  [
    'INSERT OR IGNORE at a used id',
    `INSERT OR IGNORE INTO audit_events (id, ${COLUMNS}, hash) VALUES (2, ${ROW}, ${HASH})`,
  ],
  [
    'INSERT OR IGNORE at a negative id',
    `INSERT OR IGNORE INTO audit_events (id, ${COLUMNS}, hash) VALUES (-7, ${ROW}, ${HASH})`,
  ],
];
/** Postgres's own: TRUNCATE removes rows without firing row triggers; MERGE updates and deletes in one statement. */
const POSTGRES_TAMPERING: [string, string][] = [
  ['TRUNCATE', 'TRUNCATE audit_events'],
  [
    'MERGE updating a row',
    "MERGE INTO audit_events e USING (SELECT 2 AS id) s ON e.id = s.id WHEN MATCHED THEN UPDATE SET outcome = 'failed'",
  ],
  [
    'MERGE deleting a row',
    'MERGE INTO audit_events e USING (SELECT 2 AS id) s ON e.id = s.id WHEN MATCHED THEN DELETE',
  ],
];
const ENGINE_TAMPERING: Record<EngineName, [string, string][]> = {
  sqlite: SQLITE_TAMPERING,
  postgres: POSTGRES_TAMPERING,
};

describe.each(ENGINES)('on %s', (engine) => {
  const temp = useTempDatabases(engine);

  it('a stored row hashes to its canonical content, each row chained to the one before', async () => {
    const sql = await temp.open();
    const log = new AuditLog(sql, { now: manualClock().now });
    await log.append(entry({ actorName: 'ada', params: { region: 'US' } }));
    await log.append(entry({ outcome: 'failed', errorCode: 'conflict', errorMessage: 'taken' }));

    const rows = await everyRow(sql);
    // Recomputed as another verifier would, from the README's column list rather than the module's constant.
    const columns =
      'id at actor_id actor_name team_id channel_id source action target params outcome error_code error_message ' +
      'correlation_id';
    const recompute = (previous: string, row: Record<string, unknown>) => {
      const content = JSON.stringify([previous, ...columns.split(' ').map((column) => row[column])]);
      return createHash('sha256').update(content).digest('hex');
    };
    expect(rows).toHaveLength(2);
    expect(rows[0]?.hash).toBe(recompute(GENESIS_HASH, rows[0] as ChainedRow));
    expect(rows[1]?.hash).toBe(recompute(rows[0]?.hash as string, rows[1] as ChainedRow));
  });

  describe('appends', () => {
    it('chain any text, lone surrogates and control characters included, so that the chain verifies', async () => {
      const sql = await temp.open();
      const log = new AuditLog(sql);
      const text = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('\ud800', 'a\udfffb', '\u0000', '\u2028'));
      let appended = 0;

      await fc.assert(
        fc.asyncProperty(
          fc.record({
            actorName: text,
            target: text,
            errorMessage: text,
            correlationId: text,
            params: fc.dictionary(text, text),
          }),
          async (fields) => {
            await log.append(entry(fields));
            appended++;
            expect(await verifyChain(sql)).toMatchObject({ ok: true, rows: appended });
          },
        ),
        { numRuns: 100 },
      );
    });

    it('from several processes at once into one database form one chain: none fails, none forks it', async () => {
      const target = await temp.target('shared.db');
      const database = target.kind === 'sqlite' ? target.path : target.url;
      const sql = await temp.open('shared.db');
      const names = ['a', 'b', 'c', 'd'];
      const rows = 150;
      const appenders = names.map((name) =>
        spawn(
          process.execPath,
          ['--import', 'tsx', 'test/store/fixtures/append-race.ts', database, name, String(rows)],
          {
            stdio: ['pipe', 'pipe', 'inherit'],
          },
        ),
      );
      // Listened for from the start: an appender may exit before its last line has been read.
      const exitCodes = Promise.all(appenders.map(async (child) => (await once(child, 'exit'))[0]));
      const lines = appenders.map((child) => createInterface({ input: child.stdout })[Symbol.asyncIterator]());
      const nextLines = () => Promise.all(lines.map(async (line) => (await line.next()).value));

      expect(await nextLines()).toEqual(names.map(() => 'ready'));
      const startAt = Date.now() + 100;
      for (const child of appenders) child.stdin.end(String(startAt));
      expect(await nextLines()).toEqual(names.map(() => 'done'));
      expect(await exitCodes).toEqual([0, 0, 0, 0]);

      expect(await verifyChain(sql)).toMatchObject({ ok: true, rows: names.length * rows });
      const ids = await sql.all<{ id: number }>('SELECT id FROM audit_events ORDER BY id');
      expect(ids.map((row) => row.id)).toEqual(Array.from({ length: names.length * rows }, (_, index) => index + 1));
    });
  });

  describe('no SQL statement changes or removes a stored row', () => {
    it.each([...TAMPERING, ...ENGINE_TAMPERING[engine]])(
      '%s is refused, every row stays as it was, and appends go on',
      async (_name, statement) => {
        const log = new AuditLog(await temp.open('tamper.db'));
        for (const correlationId of ['c-1', 'c-2', 'c-3']) await log.append(entry({ correlationId }));
        // A connection of its own, as a hand-typed statement would have.
        const sql = await temp.open('tamper.db');
        const before = await everyRow(sql);

        await expect(sql.run(statement)).rejects.toThrow(/append-only/);
        expect(await everyRow(sql)).toEqual(before);
        expect((await log.append(entry({ correlationId: 'c-4' }))).id).toBe(4);
        expect(await verifyChain(sql)).toMatchObject({ ok: true, rows: 4 });
      },
    );
  });
});

// On the SQLite half of the matrix only: Postgres starts from SQLite's schema at version 8, chained already.
describe.runIf(ENGINES.includes('sqlite'))('the migration to the hash chain', () => {
  const temp = useTempDatabases('sqlite');

  it('hashes the rows of an existing database in order, and later appends continue the chain', async () => {
    const path = temp.path('old.db');
    const old = new Sqlite(path);
    await migrate(old, MIGRATIONS.slice(0, 1));
    // Written as the first version wrote rows: ids from AUTOINCREMENT, no hash.
    const insert = old.prepare(`INSERT INTO audit_events (${COLUMNS}, params) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    old.transaction(() => {
      for (let i = 1; i <= 2500; i++) {
        const at = `2026-10-01T00:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000Z`;
        insert.run(at, 'U1', 'command', 'agent.list', 'succeeded', `old-${i}`, i % 2 ? '{"n":1}' : null);
      }
    })();
    const legacy = old.prepare('SELECT * FROM audit_events ORDER BY id').all();
    old.close();

    const db = await openDatabase(path);
    const sql = temp.track(sqliteEngine(db));

    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    expect(await verifyChain(sql)).toMatchObject({ ok: true, rows: 2500 });
    const rows = await everyRow(sql);
    expect(rows.map(({ hash: _, ...columns }) => columns)).toEqual(legacy);
    expect(rows[0]?.hash).toBe(chainHash(GENESIS_HASH, rows[0] as ChainedRow));

    const next = await new AuditLog(sql).append(entry({ correlationId: 'new' }));
    expect(next.id).toBe(2501);
    expect(await verifyChain(sql)).toMatchObject({ ok: true, rows: 2501, last: { id: 2501, hash: next.hash } });
    for (const [, statement] of [...TAMPERING, ...SQLITE_TAMPERING]) {
      await expect(sql.run(statement)).rejects.toThrow(/append-only/);
    }
    expect(await verifyChain(sql)).toMatchObject({ ok: true, rows: 2501 });
  });
});
