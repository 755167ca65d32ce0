// The audit log's filters on a real SQLite file: who a change is by, typed as people type names, and which changes
// did not go through.
import { describe, expect, it } from 'vitest';
import { type AuditEntry, AuditLog } from '../../src/store/audit.js';
import { AuditChanges, type AuditFilter } from '../../src/store/audit-changes.js';
import { useTempDatabases } from './helpers.js';

const temp = useTempDatabases();

/** One change a row: its correlation id names it. */
function logWith(changes: Partial<AuditEntry>[]): AuditChanges {
  const db = temp.open();
  const log = new AuditLog(db);
  for (const [index, change] of changes.entries()) {
    log.append({
      actorId: 'U0ALICE',
      source: 'command',
      action: 'number.buy',
      outcome: 'succeeded',
      correlationId: `c${index}`,
      ...change,
    });
  }
  return new AuditChanges(db);
}

const found = (changes: AuditChanges, filter: AuditFilter) =>
  changes.page(filter, undefined, 20).trails.map((trail) => trail.correlationId);

describe('the audit filters', () => {
  it('finds changes with a failed, rejected or denied step under `failed`, and counts them alike', () => {
    const changes = logWith([
      { outcome: 'succeeded' },
      { outcome: 'failed' },
      { outcome: 'rejected' },
      { action: 'access.denied', outcome: 'denied' },
      { outcome: 'cancelled' },
    ]);
    expect(found(changes, { failed: true })).toEqual(['c3', 'c2', 'c1']);
    expect(changes.count({ failed: true }, 100)).toBe(3);
  });

  it.each([
    ['vera', ['c0']],
    ['VERA', ['c0']],
    ['Vera.Viewer', ['c2']],
    ['Vera Viewer', ['c2', 'c0']],
    ['vera   viewer', ['c2', 'c0']],
  ])(
    'finds a person by the name %s in any case, as the audit recorded it or as the handle of a full name',
    (name, ids) => {
      const changes = logWith([{ actorName: 'vera' }, { actorName: 'omar' }, { actorName: 'vera.viewer' }]);
      expect(found(changes, { actorName: name })).toEqual(ids);
    },
  );
});
