// The store's one way to a database, on each engine: a transaction's statements, the ones it waits for and the
// writes it does not (which Postgres sends behind each other without waiting for their answers).
import { setTimeout } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type Sql, type SqlEngine, TransactionEnded } from '../../src/store/sql.js';
import { signal } from '../harness/signal.js';
import { TEST_ENGINE, useTempDatabases } from './helpers.js';

const TABLE = 'CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)';
const ADD = 'INSERT INTO counters (name, value) VALUES (?, ?)';
const VALUE = 'SELECT value FROM counters WHERE name = ?';
// Statements of this test's own database waiting for a lock (other tests run on databases of their own).
const WAITING =
  "SELECT COUNT(*) AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";

describe(`a transaction's statements on ${TEST_ENGINE}`, () => {
  const databases = useTempDatabases();

  async function withCounters(): Promise<SqlEngine> {
    const sql = await databases.open();
    await sql.run(TABLE);
    return sql;
  }

  it('fails as a whole with the error of a write, however many statements follow it', async () => {
    const sql = await withCounters();
    await sql.run(ADD, ['taken', 1]);

    const attempt = sql.transaction(async (tx) => {
      await tx.write(ADD, ['first', 1]);
      await tx.write(ADD, ['taken', 2]);
      await tx.write(ADD, ['after', 3]);
      return tx.get(VALUE, ['first']);
    });

    // The duplicate's own error, not the "transaction aborted" of the statements sent behind it.
    await expect(attempt).rejects.toThrow(/UNIQUE constraint failed|duplicate key value/);
    expect(await sql.all('SELECT name, value FROM counters')).toEqual([{ name: 'taken', value: 1 }]);
  });

  it('throws the error of a write sent last from its COMMIT, and keeps nothing of the transaction', async () => {
    const sql = await withCounters();
    await sql.run(ADD, ['taken', 1]);

    const attempt = sql.transaction(async (tx) => {
      await tx.write(ADD, ['first', 1]);
      await tx.write(ADD, ['taken', 2]);
    });

    await expect(attempt).rejects.toThrow(/UNIQUE constraint failed|duplicate key value/);
    expect(await sql.get(VALUE, ['first'])).toBeUndefined();
  });

  it('keeps nothing of a transaction whose last write cannot even be built', async () => {
    const sql = await withCounters();

    const attempt = sql.transaction(async (tx) => {
      await tx.write(ADD, ['first', 1]);
      // A named parameter without a value: the server never sees this statement, so it alone cannot abort the rest.
      await tx.write('INSERT INTO counters (name, value) VALUES (@name, @value)', { name: 'second' });
    });

    await expect(attempt).rejects.toThrow(/value/);
    expect(await sql.get(VALUE, ['first'])).toBeUndefined();
  });

  it('refuses a statement asked after its transaction ended, rather than run it outside the transaction', async () => {
    const sql = await withCounters();
    const late: Sql[] = [];

    await sql.transaction(async (tx) => {
      await tx.write(ADD, ['inside', 1]);
      late.push(tx);
    });
    const [ended] = late;
    if (!ended) throw new Error('the transaction did not run');

    await expect(ended.write(ADD, ['late write', 2])).rejects.toThrow(TransactionEnded);
    await expect(ended.run(ADD, ['late run', 3])).rejects.toThrow(TransactionEnded);
    await expect(ended.get(VALUE, ['inside'])).rejects.toThrow(TransactionEnded);
    expect(await sql.all('SELECT name, value FROM counters')).toEqual([{ name: 'inside', value: 1 }]);
  });

  it('runs the statements after a lock under it, though the lock is sent without waiting', async () => {
    const sql = await withCounters();
    await sql.run(ADD, ['hits', 0]);

    // Each reads the counter and writes it back one higher: without the lock, two would read the same value.
    await Promise.all(
      Array.from({ length: 12 }, () =>
        sql.transaction(async (tx) => {
          await tx.lock('hits');
          const row = await tx.get<{ value: number }>(VALUE, ['hits']);
          await tx.write('UPDATE counters SET value = ? WHERE name = ?', [(row?.value ?? 0) + 1, 'hits']);
        }),
      ),
    );

    expect(await sql.get(VALUE, ['hits'])).toEqual({ value: 12 });
  });

  it.runIf(TEST_ENGINE === 'postgres')(
    'fails a transaction whose failed statement nobody waited for, which Postgres rolls back at COMMIT',
    async () => {
      const sql = await withCounters();

      const attempt = sql.transaction(async (tx) => {
        await tx.write(ADD, ['first', 1]);
        // A read sent ahead whose answer is never awaited: Postgres answers the COMMIT after it with ROLLBACK.
        tx.get('SELECT 1 / 0').catch(() => {});
      });

      await expect(attempt).rejects.toThrow(/division by zero/);
      expect(await sql.get(VALUE, ['first'])).toBeUndefined();
    },
  );

  it.runIf(TEST_ENGINE === 'postgres')(
    'throws the error of a read sent ahead, not the abort it caused, from the statements after it',
    async () => {
      const sql = await withCounters();

      const attempt = sql.transaction(async (tx) => {
        tx.get('SELECT 1 / 0').catch(() => {});
        await tx.write(ADD, ['after', 1]);
        return tx.get(VALUE, ['after']);
      });

      await expect(attempt).rejects.toThrow(/division by zero/);
      expect(await sql.get(VALUE, ['after'])).toBeUndefined();
    },
  );

  it.runIf(TEST_ENGINE === 'postgres')('does not wait for the answer of a write (Postgres)', async () => {
    const sql = await withCounters();
    const other = await databases.open();
    await sql.run(ADD, ['held', 0]);
    const steps: string[] = [];
    const held = signal();
    // Another connection holds the row until a statement waits for it.
    const holder = other.transaction(async (tx) => {
      await tx.get('SELECT value FROM counters WHERE name = ? FOR UPDATE', ['held']);
      held.fire();
      while ((await other.get<{ waiting: number }>(WAITING))?.waiting === 0) await setTimeout(10);
      steps.push('released');
    });
    await held.reached;

    await sql.transaction(async (tx) => {
      await tx.write('UPDATE counters SET value = 1 WHERE name = ?', ['held']);
      steps.push('write sent');
      const row = await tx.get<{ value: number }>(VALUE, ['held']);
      steps.push(`read ${row?.value}`);
    });
    await holder;

    // The write returned while the row was still held; the read after it waited for it, and saw it.
    expect(steps).toEqual(['write sent', 'released', 'read 1']);
    expect(await sql.get(VALUE, ['held'])).toEqual({ value: 1 });
  });
});
