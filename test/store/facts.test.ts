// What the app learns at buy and create time (capabilities, languages), on both engines, and the migration that keeps
// it, on a real SQLite file: a database of an older schema, with its audit rows, is brought up to date without loss,
// and the audit filters' indexes outlive the rebuilds of the audit table that come before them.
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/store/audit.js';
import { AuditChanges } from '../../src/store/audit-changes.js';
import { openDatabase } from '../../src/store/db.js';
import { LearnedFacts } from '../../src/store/facts.js';
import { MIGRATIONS, migrate, schemaVersion } from '../../src/store/migrations.js';
import { RoutingRecords } from '../../src/store/routes.js';
import { sqliteEngine } from '../../src/store/sqlite-sql.js';
import { ENGINES, useTempDatabases } from './helpers.js';

describe.each(ENGINES)('LearnedFacts on %s', (engine) => {
  const temp = useTempDatabases(engine);

  it('remembers capabilities and languages, reads a page of them at once, and forgets them', async () => {
    const sql = await temp.open();
    const facts = new LearnedFacts(sql);
    // Agents' languages are read with their numbers, by the routing records.
    const languages = async (ids: string[]) =>
      new Map([...(await new RoutingRecords(sql).ofAgents(ids))].map(([id, agent]) => [id, agent.language]));
    await facts.rememberNumber('+14155550100', ['voice', 'sms']);
    await facts.rememberNumber('+14155550101', ['sms']);
    await facts.rememberNumber('+14155550101', []);
    await facts.rememberAgent('agt_1', 'fr-CA');
    expect(await facts.capabilities(['+14155550100', '+14155550101', '+19995550100'])).toEqual(
      new Map([
        ['+14155550100', ['voice', 'sms']],
        ['+14155550101', []],
      ]),
    );
    expect(await languages(['agt_1', 'agt_2'])).toEqual(new Map([['agt_1', 'fr-CA']]));
    expect(await facts.capabilities([])).toEqual(new Map());
    await facts.forgetNumber('+14155550100');
    await facts.forgetAgent('agt_1');
    expect((await facts.capabilities(['+14155550100'])).size).toBe(0);
    expect((await languages(['agt_1'])).size).toBe(0);
  });
});

/** The facts' migration, whose indexes on audit_events come after the rebuilds of that table. */
const FACTS_VERSION = 6;
const LATEST = MIGRATIONS.length;

/** A row as the schema of that version stores it: before the hash chain (version 1) by hand, after it by AuditLog. */
async function oldRow(db: Sqlite.Database, version: number): Promise<void> {
  if (version === 1) {
    db.prepare(
      `INSERT INTO audit_events (at, actor_id, actor_name, source, action, target, params, outcome, correlation_id)
       VALUES ('2025-03-01T12:00:00.000Z', 'U1', 'alice', 'command', 'routing.map', '+14155550100', '{"agentId":"agt_1"}',
       'failed', 'c1')`,
    ).run();
    return;
  }
  await new AuditLog(sqliteEngine(db)).append({
    actorId: 'U1',
    actorName: 'alice',
    source: 'command',
    action: 'routing.map',
    target: '+14155550100',
    params: { agentId: 'agt_1' },
    outcome: 'failed',
    correlationId: 'c1',
  });
}

// A step of SQLite's own history of the schema: Postgres starts from its result (postgres-schema.ts).
describe('the facts migration', () => {
  const temp = useTempDatabases('sqlite');

  it('has its audit indexes made again by every later rebuild of the audit table, which drops them', () => {
    expect(MIGRATIONS[FACTS_VERSION - 1]?.name).toMatch(/^facts learned at buy and create time/);
    const filterIndexes = ['by_actor', 'by_actor_name', 'by_target', 'by_agent', 'unsuccessful'];
    const rebuilds = MIGRATIONS.slice(FACTS_VERSION).filter(
      (later) => 'sql' in later && /audit_events_rebuilt|DROP TABLE audit_events\b/.test(later.sql),
    );
    for (const rebuild of rebuilds) {
      for (const index of filterIndexes) {
        expect('sql' in rebuild && rebuild.sql, rebuild.name).toContain(`CREATE INDEX audit_events_${index} ON`);
      }
    }
  });

  it.each([1, FACTS_VERSION - 1])(
    'brings a database of schema %i up to date, keeping its rows, and the audit filters use its indexes',
    async (version) => {
      const path = temp.path(`schema-${version}.db`);
      const old = new Sqlite(path);
      await migrate(old, MIGRATIONS.slice(0, version));
      await oldRow(old, version);
      old.close();

      const db = await openDatabase(path);
      const changes = new AuditChanges(temp.track(sqliteEngine(db)));
      expect(schemaVersion(db)).toBe(LATEST);
      const filters = [
        { actorId: 'U1' },
        { actorName: 'ALICE' },
        { target: '+14155550100' },
        { agentId: 'agt_1' },
        { failed: true },
      ];
      for (const filter of filters) {
        expect(
          (await changes.page(filter, undefined, 20)).trails.map((trail) => trail.correlationId),
          JSON.stringify(filter),
        ).toEqual(['c1']);
      }
      const plan = (sql: string) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail).join('; ');
      expect(plan("SELECT id FROM audit_events WHERE actor_id = 'U1' ORDER BY id DESC")).toContain(
        'audit_events_by_actor',
      );
      expect(plan("SELECT id FROM audit_events WHERE target = 'x' ORDER BY id DESC")).toContain(
        'audit_events_by_target',
      );
      expect(plan("SELECT id FROM audit_events e WHERE e.outcome IN ('failed', 'rejected', 'denied')")).toContain(
        'audit_events_unsuccessful',
      );
      expect(plan("SELECT id FROM audit_events e WHERE e.actor_name COLLATE NOCASE IN ('a', 'b')")).toContain(
        'audit_events_by_actor_name',
      );
      expect(plan("SELECT id FROM audit_events WHERE json_extract(params, '$.agentId') = 'a'")).toContain(
        'audit_events_by_agent',
      );
    },
  );
});
