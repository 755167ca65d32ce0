// The audit log at scale, in this process (nothing else runs meanwhile), on temporary files opened as the app
// opens its database (WAL, synchronous NORMAL): AuditLog.append one row at a time as the app does, then the
// `/voice audit` queries (AuditLog.recent, and a page of changes with its total) over 1,000,000 rows filled with one
// recursive-CTE INSERT.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { auditPage } from '../src/ops/audit.js';
import { KeptList } from '../src/ops/lists.js';
import { AUDIT_PAGE_SIZE, auditMessage } from '../src/slack/views/audit.js';
import { type AuditEntry, AuditLog } from '../src/store/audit.js';
import { AuditChanges } from '../src/store/audit-changes.js';
import { openDatabase } from '../src/store/db.js';
import { sqliteEngine } from '../src/store/sqlite-sql.js';
import { type Distribution, distribution } from './stats.js';

/** Rows appended one after another for a while. */
export interface AppendRate {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
}

export interface AuditResult {
  insert: AppendRate;
  rows: number;
  fillSeconds: number;
  /** AuditLog.recent(n), warm, ms. */
  recent20: Distribution;
  recent200: Distribution;
  /** The newest page of `/voice audit` (20 changes and the total count) with its Block Kit message, warm, ms. */
  auditPageWithView: Distribution;
  /** The first recent(200) after the database was closed and opened again, ms. */
  firstAfterReopen200: number;
  fileBytes: number;
}

const entry = (i: number): AuditEntry => ({
  actorId: 'UADMIN',
  actorName: 'uadmin',
  teamId: 'T1',
  channelId: 'COPS',
  source: 'command',
  action: 'number.buy',
  target: '+14155550123',
  params: { phoneNumber: '+14155550123', region: 'US', agentId: `agent-${i % 100}` },
  outcome: 'requested',
  correlationId: `bench-${i}`,
});

/**
 * AuditLog.append, one row after another for `seconds`, as the app appends: each row one transaction that takes the
 * chain's lock, reads the last hash, hashes and inserts, its parameters redacted and JSON-encoded. bench/engines.ts
 * measures Postgres with it.
 */
export async function appendRate(log: AuditLog, seconds: number): Promise<AppendRate> {
  let rows = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  while (performance.now() < deadline) {
    for (let i = 0; i < 100; i++) await log.append(entry(rows++));
  }
  const elapsed = (performance.now() - started) / 1000;
  return { rows, seconds: elapsed, rowsPerSecond: rows / elapsed };
}

async function timeAsync(runs: number, work: () => Promise<unknown>): Promise<Distribution> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return distribution(times);
}

export async function measureAudit(options: {
  rows: number;
  insertSeconds: number;
  queryRuns: number;
}): Promise<AuditResult> {
  const dir = mkdtempSync(join(tmpdir(), 'voice-ops-bench-audit-'));
  try {
    // Insert rate on SQLite, where the transaction is BEGIN IMMEDIATE: the file's one write lock is the chain's.
    const insertDb = await openDatabase(join(dir, 'insert.db'));
    const insert = await appendRate(new AuditLog(sqliteEngine(insertDb)), options.insertSeconds);
    insertDb.close();

    // A table of `rows` rows, the last few written through AuditLog as the app would. SQL cannot compute SHA-256,
    // so the filled rows carry placeholder hashes of the right shape: nothing measured here verifies the chain.
    const path = join(dir, 'audit.db');
    let db = await openDatabase(path);
    const fillStarted = performance.now();
    db.exec(`
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${options.rows - 100})
      INSERT INTO audit_events (id, hash, at, actor_id, actor_name, team_id, channel_id, source, action, target,
        params, outcome, correlation_id)
      SELECT i, printf('%064x', i), strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || i || ' seconds'), 'UADMIN',
        'uadmin', 'T1', 'COPS',
        'command', 'number.buy', '+14155550123',
        '{"phoneNumber":"+14155550123","region":"US","agentId":"agent-' || (i % 100) || '"}',
        'requested', 'fill-' || i
      FROM n`);
    let log = new AuditLog(sqliteEngine(db));
    for (let i = 0; i < 100; i++) await log.append(entry(i));
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    const rows = (db.prepare('SELECT count(*) AS n FROM audit_events').get() as { n: number }).n;
    // Read once here, so that the read after reopening finds the process's code warm (the row schema compiled on its
    // first use) and measures SQLite's empty cache alone.
    await log.recent(200);
    db.pragma('wal_checkpoint(TRUNCATE)');

    // Cold: a fresh connection (the operating system's cache is warm; SQLite's own is empty).
    db.close();
    db = await openDatabase(path);
    const sql = sqliteEngine(db);
    log = new AuditLog(sql);
    const coldStarted = performance.now();
    await log.recent(200);
    const firstAfterReopen200 = performance.now() - coldStarted;

    await timeAsync(5, () => log.recent(200));
    const recent20 = await timeAsync(options.queryRuns, () => log.recent(20));
    const recent200 = await timeAsync(options.queryRuns, () => log.recent(200));
    const pageDeps = {
      store: { auditChanges: new AuditChanges(sql) },
      lists: { agents: new KeptList(async () => []) },
    };
    const auditPageWithView = await timeAsync(options.queryRuns, async () =>
      auditMessage(await auditPage(pageDeps, { page: 1, size: AUDIT_PAGE_SIZE })),
    );
    const fileBytes =
      (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
    db.close();

    return {
      insert,
      rows,
      fillSeconds,
      recent20,
      recent200,
      auditPageWithView,
      firstAfterReopen200,
      fileBytes,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
