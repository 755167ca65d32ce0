// A transaction the server ends as a deadlock's victim is run once more from the start, so that two transactions
// that met in opposite order both go through, each written once. (SQLite's single writer cannot deadlock.)
import { describe, expect, it } from 'vitest';
import { TEST_ENGINE, useTempDatabases } from './helpers.js';

const temp = useTempDatabases();

function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe.skipIf(TEST_ENGINE !== 'postgres')('a deadlock, on Postgres', () => {
  it('is replayed once: both transactions commit, each of their writes once', async () => {
    const sql = await temp.open();
    const [firstHolds, secondHolds] = [gate(), gate()];
    const attempts = { one: 0, two: 0 };
    const crossing = (name: 'one' | 'two', mine: string, theirs: string, held: () => void, theyHold: Promise<void>) =>
      sql.transaction(async (tx) => {
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
      });

    const done = await Promise.all([
      crossing('one', 'a', 'b', firstHolds.open, secondHolds.opened),
      crossing('two', 'b', 'a', secondHolds.open, firstHolds.opened),
    ]);

    expect(done).toEqual(['one', 'two']);
    // One of them was the victim, and ran twice.
    expect(attempts.one + attempts.two).toBe(3);
    const rows = await sql.all<{ name: string }>("SELECT name FROM leases WHERE name IN ('one', 'two') ORDER BY name");
    expect(rows.map((row) => row.name)).toEqual(['one', 'two']);
  });
});
