// What the app learns at buy and create time (capabilities, languages), and the second migration that keeps it, on
// a real SQLite file: a database of the first schema, with its audit rows, is brought up to date without loss.
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/store/audit.js';
import { AuditChanges } from '../../src/store/audit-changes.js';
import { openDatabase } from '../../src/store/db.js';
import { LearnedFacts } from '../../src/store/facts.js';
import { MIGRATIONS, migrate, schemaVersion } from '../../src/store/migrations.js';
import { useTempDatabases } from './helpers.js';

const temp = useTempDatabases();

describe('LearnedFacts', () => {
  it('remembers capabilities and languages, reads a page of them at once, and forgets them', () => {
    const facts = new LearnedFacts(temp.open());
    facts.rememberNumber('+14155550100', ['voice', 'sms']);
    facts.rememberNumber('+14155550101', ['sms']);
    facts.rememberNumber('+14155550101', []);
    facts.rememberAgent('agt_1', 'fr-CA');
    expect(facts.capabilities(['+14155550100', '+14155550101', '+19995550100'])).toEqual(
      new Map([
        ['+14155550100', ['voice', 'sms']],
        ['+14155550101', []],
      ]),
    );
    expect(facts.languages(['agt_1', 'agt_2'])).toEqual(new Map([['agt_1', 'fr-CA']]));
    facts.forgetNumber('+14155550100');
    facts.forgetAgent('agt_1');
    expect(facts.capabilities(['+14155550100']).size).toBe(0);
    expect(facts.languages(['agt_1']).size).toBe(0);
  });
});

describe('the second migration', () => {
  it('brings a database of the first schema up to date, keeping its rows, and the audit filters use its indexes', () => {
    const path = temp.path('old.db');
    const old = new Sqlite(path);
    migrate(old, MIGRATIONS.slice(0, 1));
    new AuditLog(old).append({
      actorId: 'U1',
      source: 'command',
      action: 'routing.map',
      target: '+14155550100',
      params: { agentId: 'agt_1' },
      outcome: 'failed',
      correlationId: 'c1',
    });
    old.close();

    const db = temp.track(openDatabase(path));
    expect(schemaVersion(db)).toBe(2);
    const changes = new AuditChanges(db);
    for (const filter of [{ actorId: 'U1' }, { target: '+14155550100' }, { agentId: 'agt_1' }, { failed: true }]) {
      expect(
        changes.page(filter, undefined, 20).trails.map((trail) => trail.correlationId),
        JSON.stringify(filter),
      ).toEqual(['c1']);
    }
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail).join('; ');
    expect(plan("SELECT id FROM audit_events WHERE actor_id = 'U1' ORDER BY id DESC")).toContain(
      'audit_events_by_actor',
    );
    expect(plan("SELECT id FROM audit_events WHERE target = 'x' ORDER BY id DESC")).toContain('audit_events_by_target');
    expect(plan("SELECT id FROM audit_events WHERE outcome = 'failed' ORDER BY id DESC")).toContain(
      'audit_events_failed',
    );
    expect(plan("SELECT id FROM audit_events WHERE json_extract(params, '$.agentId') = 'a'")).toContain(
      'audit_events_by_agent',
    );
  });
});
