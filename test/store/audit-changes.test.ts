// The audit log's filters on a real database, on each engine: who a change is by, typed as people type names, which
// agent it was about, and which changes did not go through; each answered from the index made for it.
import { describe, expect, it } from 'vitest';
import { type AuditEntry, AuditLog } from '../../src/store/audit.js';
import { AuditChanges, type AuditFilter } from '../../src/store/audit-changes.js';
import type { Sql } from '../../src/store/sql.js';
import { planOf } from './audit-support.js';
import { ENGINES, useTempDatabases } from './helpers.js';

describe.each(ENGINES)('on %s', (engine) => {
  const temp = useTempDatabases(engine);

  /** One change a row: its correlation id names it. */
  async function logWith(changes: Partial<AuditEntry>[]): Promise<AuditChanges> {
    const sql = await temp.open();
    const log = new AuditLog(sql);
    for (const [index, change] of changes.entries()) {
      await log.append({
        actorId: 'U0ALICE',
        source: 'command',
        action: 'number.buy',
        outcome: 'succeeded',
        correlationId: `c${index}`,
        ...change,
      });
    }
    return new AuditChanges(sql);
  }

  const found = async (changes: AuditChanges, filter: AuditFilter) =>
    (await changes.page(filter, undefined, 20)).trails.map((trail) => trail.correlationId);

  describe('the audit filters', () => {
    it('finds changes with a failed, rejected or denied step under `failed`, and counts them alike', async () => {
      const changes = await logWith([
        { outcome: 'succeeded' },
        { outcome: 'failed' },
        { outcome: 'rejected' },
        { action: 'access.denied', outcome: 'denied' },
        { outcome: 'cancelled' },
      ]);
      expect(await found(changes, { failed: true })).toEqual(['c3', 'c2', 'c1']);
      expect(await changes.count({ failed: true }, 100)).toBe(3);
      expect(await changes.count({}, 100)).toBe(5);
      expect(await changes.count({}, 2)).toBe(2);
    });

    it.each([
      ['vera', ['c0']],
      ['VERA', ['c0']],
      ['Vera.Viewer', ['c2']],
      ['Vera Viewer', ['c2', 'c0']],
      ['vera   viewer', ['c2', 'c0']],
      // Only A–Z fold, as SQLite's NOCASE folds them: the same on both engines.
      ['ÉVA', ['c3']],
      ['éva', []],
    ])(
      'finds a person by the name %s in any case, as the audit recorded it or as the handle of a full name',
      async (name, ids) => {
        const changes = await logWith([
          { actorName: 'vera' },
          { actorName: 'omar' },
          { actorName: 'vera.viewer' },
          { actorName: 'Éva' },
        ]);
        expect(await found(changes, { actorName: name })).toEqual(ids);
      },
    );

    it('finds a change about an agent by its target or by the agent a map routed to', async () => {
      const changes = await logWith([
        { action: 'agent.create', target: 'agt_1' },
        { action: 'routing.map', target: '+14155550100', params: { agentId: 'agt_1' } },
        { action: 'routing.map', target: '+14155550101', params: { agentId: 'agt_2' } },
      ]);
      expect(await found(changes, { agentId: 'agt_1' })).toEqual(['c1', 'c0']);
      expect(await found(changes, { agentId: 'agt_2', target: '+14155550101' })).toEqual(['c2']);
    });

    it('shows a change once, at its newest matching row, with all its rows, a page at a time both ways', async () => {
      const changes = await logWith([
        { correlationId: 'a', outcome: 'requested' },
        { correlationId: 'b', outcome: 'requested' },
        { correlationId: 'a', outcome: 'succeeded' },
        { correlationId: 'c', outcome: 'failed' },
        { correlationId: 'd', outcome: 'succeeded' },
      ]);

      const first = await changes.page({}, undefined, 2);
      expect(first.trails.map((trail) => [trail.correlationId, trail.position])).toEqual([
        ['d', 5],
        ['c', 4],
      ]);
      expect(first).toMatchObject({ newer: false, older: true });
      const next = await changes.page({}, { before: 4 }, 2);
      expect(next.trails.map((trail) => trail.correlationId)).toEqual(['a', 'b']);
      expect(next.trails[0]?.events.map((event) => event.outcome)).toEqual(['requested', 'succeeded']);
      expect(next).toMatchObject({ newer: true, older: false });
      const back = await changes.page({}, { after: 3 }, 2);
      expect(back.trails.map((trail) => trail.correlationId)).toEqual(['d', 'c']);
      expect(back).toMatchObject({ newer: false, older: true });
    });

    it('matches typed text as the audit stored it, U+0000 included', async () => {
      const changes = await logWith([{ target: 'a\u0000b' }, { target: 'ab' }]);
      expect(await found(changes, { target: 'a\u0000b' })).toEqual(['c0']);
    });
  });

  it('writes the filters on names and agents as their indexes are built, so that they are answered from them', async () => {
    const sql = await temp.open();
    const { caseless, jsonField } = sql.dialect;
    // A few rows make a scan cheapest: on Postgres, scans are ruled out, so that only an index the query fits is left.
    const plan = (where: string) =>
      withoutScans(sql, (tx) => planOf(tx, `SELECT id FROM audit_events e WHERE ${where}`, ['vera', 'agt_1']));

    expect(await plan(`${caseless('e.actor_name')} IN (?, ?)`)).toMatch(/audit_events_by_actor_name/);
    expect(await plan(`${jsonField('e.params', 'agentId')} IN (?, ?)`)).toMatch(/audit_events_by_agent/);
  });
});

function withoutScans<T>(sql: Sql, work: (sql: Sql) => Promise<T>): Promise<T> {
  if (sql.dialect.name === 'sqlite') return work(sql);
  return sql.transaction(async (tx) => {
    await tx.run('SET LOCAL enable_seqscan = off');
    return work(tx);
  });
}
