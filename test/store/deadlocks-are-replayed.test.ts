// A replayable transaction (one whose work changes nothing outside the database) that the server ends as a
// deadlock's victim is run once more from its start, so that two transactions that met in opposite order both go
// through, each written once; one that is not replayable fails, and is told as busy. (SQLite's single writer cannot
// deadlock.)
import { describe, expect, it } from 'vitest';
import { databaseFault } from '../../src/store/faults.js';
import type { SqlEngine } from '../../src/store/sql.js';
import { TEST_ENGINE, useTempDatabases } from './helpers.js';

const temp = useTempDatabases();

function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** Two transactions that each write a row, lock one key, then wait for the other's key: a deadlock. */
function crossing(sql: SqlEngine, replayable: boolean) {
  const [firstHolds, secondHolds] = [gate(), gate()];
  const attempts = { one: 0, two: 0 };
  const cross = (name: 'one' | 'two', mine: string, theirs: string, held: () => void, theyHold: Promise<void>) =>
    sql.transaction(
      async (tx) => {
        attempts[name] += 1;
        await tx.write("INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, '2100-01-01T00:00:00.000Z')", [
          name,
          name,
        ]);
        await tx.lock(mine);
        await tx.get('SELECT 1'); // the lock is granted once a statement after it answers
        held();
        await theyHold;
        await tx.lock(theirs);
        await tx.get('SELECT 1');
        return name;
      },
      { replayable },
    );
  const settled = Promise.allSettled([
    cross('one', 'a', 'b', firstHolds.open, secondHolds.opened),
    cross('two', 'b', 'a', secondHolds.open, firstHolds.opened),
  ]);
  return { settled, attempts };
}

const rowsOf = async (sql: SqlEngine) =>
  (await sql.all<{ name: string }>("SELECT name FROM leases WHERE name IN ('one', 'two') ORDER BY name")).map(
    (row) => row.name,
  );

describe.skipIf(TEST_ENGINE !== 'postgres')('a deadlock, on Postgres', () => {
  it('is replayed once when the work is replayable: both transactions commit, each of their writes once', async () => {
    const sql = await temp.open();
    const { settled, attempts } = crossing(sql, true);
    const done = await settled;
    expect(done.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : outcome.reason))).toEqual([
      'one',
      'two',
    ]);
    // One of them was the victim, and ran twice.
    expect(attempts.one + attempts.two).toBe(3);
    expect(await rowsOf(sql)).toEqual(['one', 'two']);
  });

  it('fails the victim when the work is not replayable: told as busy, nothing of it kept', async () => {
    const sql = await temp.open();
    const { settled, attempts } = crossing(sql, false);
    const done = await settled;
    const failed = done.filter((outcome) => outcome.status === 'rejected');
    expect(failed).toHaveLength(1);
    expect(databaseFault((failed[0] as PromiseRejectedResult).reason)).toBe('busy');
    expect(attempts.one + attempts.two).toBe(2);
    expect(await rowsOf(sql)).toHaveLength(1);
  });
});
