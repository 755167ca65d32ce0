// The audit chain verified from its last checkpoint: a read verifies only the rows after it, on any connection (a
// replica's checkpoint serves another), trusts it only while its row carries the hash it was verified with, and lets
// the event loop turn whenever it has held it for a slice of time; what is rebuilt from the log is read a window at a time, each row it rests on
// checked against its own hash wherever it is. An edit before a checkpoint of a row no answer rests on is found by the
// full verification alone.
import { setImmediate } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/store/audit.js';
import { ChainBroken, verifyChain } from '../../src/store/audit-chain.js';
import { ChainVerifier } from '../../src/store/audit-checkpoints.js';
import type { Sql } from '../../src/store/sql.js';
import { allowAuditEdits, collect, fill, recording } from './audit-support.js';
import { ENGINES, manualClock, useTempDatabases } from './helpers.js';

const FROM = new Date('2026-11-01T09:00:00.000Z');

/** Every tenth row a map of one of ten numbers, the rest reads. */
const mapsAmongReads = (n: number) =>
  n % 10 === 9
    ? {
        action: 'routing.map',
        target: `+1555010000${n % 7}`,
        params: JSON.stringify({ agentId: `agt_${n % 3}` }),
        outcome: 'succeeded',
      }
    : {};

/** How many turns of the event loop pass while `work` runs. */
async function turnsDuring(work: Promise<unknown>): Promise<number> {
  let done = false;
  let turns = 0;
  const finished = work.finally(() => {
    done = true;
  });
  while (!done) {
    await setImmediate();
    turns++;
  }
  await finished;
  return turns;
}

const checkpoints = (sql: Sql) => sql.all<{ id: number }>('SELECT id FROM audit_checkpoints ORDER BY id');

describe.each(ENGINES)('on %s', (engine) => {
  const temp = useTempDatabases(engine);

  async function filled(rows: number) {
    const sql = await temp.open('log');
    await fill(sql, rows, FROM, mapsAmongReads);
    return { sql, log: new AuditLog(sql, { now: manualClock().now }) };
  }

  describe('verifyToEnd', () => {
    it('verifies every row once, then only the rows after the checkpoint it wrote, a page at a time', async () => {
      const { sql } = await filled(1200);
      const { sql: recorded, reads } = recording(sql);
      const log = new AuditLog(recorded, { now: manualClock().now });

      const first = await log.verifyToEnd();
      expect(first).toMatchObject({ rows: 1200, from: { id: 0 }, end: { id: 1200 } });
      // Pages of at most 250 rows, each read on its own.
      expect(Math.max(...reads.map((read) => read.rows))).toBeLessThanOrEqual(250);
      expect(reads.filter((read) => read.text.includes('ORDER BY id LIMIT')).length).toBeGreaterThanOrEqual(1200 / 250);
      expect(await checkpoints(sql)).toEqual([{ id: 1200 }]);

      reads.length = 0;
      expect(await log.verifyToEnd()).toMatchObject({ rows: 0, from: first.end, end: first.end });
      await fill(sql, 30, FROM);
      const third = await log.verifyToEnd();
      expect(third).toMatchObject({ rows: 30, from: first.end, end: { id: 1230 } });
      // No read went back before the checkpoint: the rows read are the checkpoint's, the end's and the 30 after.
      const chainRows = reads.filter((read) => read.text.includes('FROM audit_events WHERE id > ?'));
      expect(chainRows.reduce((sum, read) => sum + read.rows, 0)).toBe(30);
      expect(await checkpoints(sql)).toEqual([{ id: 1200 }, { id: 1230 }]);
      expect(await verifyChain(sql)).toMatchObject({ ok: true, rows: 1230, last: third.end });
    });

    it("goes on from a checkpoint another connection wrote, as a replica goes on from another's", async () => {
      const { log } = await filled(600);
      await log.verifyToEnd();
      const other = new AuditLog(await temp.open('log'), { now: manualClock().now });
      expect(await other.verifyToEnd()).toMatchObject({ rows: 0, from: { id: 600 } });
    });

    it('walks once for the reads of one process asked while a walk is under way', async () => {
      const { sql } = await filled(600);
      const verifier = new ChainVerifier(manualClock().now);
      const [first, joined] = await Promise.all([
        new AuditLog(sql, { verifier }).verifyToEnd(),
        new AuditLog(sql, { verifier }).verifyToEnd(),
      ]);
      expect(first).toMatchObject({ rows: 600, end: { id: 600 } });
      expect(joined).toEqual({ ...first, rows: 0 });
      await fill(sql, 5, FROM);
      expect(await new AuditLog(sql, { verifier }).verifyToEnd()).toMatchObject({ rows: 5, from: { id: 600 } });
    });

    it('lets the event loop turn while it verifies, and while it replays, a long log', async () => {
      // Far more rows than one slice of time verifies or replays, on any machine.
      const { log } = await filled(30_000);
      expect(await turnsDuring(log.verifyToEnd())).toBeGreaterThanOrEqual(2);
      expect(await turnsDuring(collect(log.changesUpTo(30_000)))).toBeGreaterThanOrEqual(2);
    });

    it('refuses an edit after the checkpoint, naming its row, and checkpoints nothing past it', async () => {
      const { sql, log } = await filled(500);
      await log.verifyToEnd();
      await fill(sql, 100, FROM);
      await allowAuditEdits(sql);
      await sql.run("UPDATE audit_events SET actor_id = 'UNOBODY' WHERE id = 550");

      await expect(log.verifyToEnd()).rejects.toMatchObject({ id: 550, reason: expect.stringContaining('changed') });
      expect(await checkpoints(sql)).toEqual([{ id: 500 }]);
    });

    it('trusts a checkpoint only while its row carries the hash it was verified with', async () => {
      const { sql, log } = await filled(500);
      await log.verifyToEnd();
      await allowAuditEdits(sql);
      // A chain rewritten through the checkpoint: its row's hash is no longer the one verified.
      await sql.run('UPDATE audit_events SET hash = ? WHERE id = 500', ['f'.repeat(64)]);
      await expect(log.verifyToEnd()).rejects.toMatchObject({
        id: 500,
        reason: expect.stringContaining('not the one'),
      });
      // Cut before it.
      await sql.run('DELETE FROM audit_events WHERE id >= 400');
      await expect(log.verifyToEnd()).rejects.toMatchObject({ id: 500, reason: expect.stringContaining('missing') });
    });

    it('does not see an edit before the checkpoint: the full verification does', async () => {
      const { sql, log } = await filled(500);
      await log.verifyToEnd();
      await allowAuditEdits(sql);
      await sql.run("UPDATE audit_events SET actor_id = 'UNOBODY' WHERE id = 100");

      expect(await log.verifyToEnd()).toMatchObject({ rows: 0 });
      expect(await verifyChain(sql)).toMatchObject({ ok: false, id: 100 });
    });
  });

  describe('changesUpTo', () => {
    it('yields the changes that succeeded up to the end given, a window of ids at a time', async () => {
      const { sql } = await filled(1200);
      const { sql: recorded, reads } = recording(sql);
      const log = new AuditLog(recorded);

      const changes = await collect(log.changesUpTo(1150));
      expect(changes.map((row) => row.id)).toEqual(Array.from({ length: 115 }, (_, i) => i * 10 + 10));
      expect(changes[0]).toMatchObject({ action: 'routing.map', target: '+15550100002', params: { agentId: 'agt_0' } });
      // Per window of 500 ids, its count and its changes (each with the hash before it): never the other rows.
      expect(reads).toHaveLength(6);
      expect(reads.filter((read) => read.text.includes('JOIN')).map((read) => read.rows)).toEqual([50, 50, 15]);
    });

    it("refuses, in a number's history, a line edited before the checkpoint, or whose row before is gone", async () => {
      const { sql, log } = await filled(600);
      await log.verifyToEnd();
      const number = { number: '+15550100002' };
      expect((await log.history(number, undefined, 21)).map((row) => row.id).slice(-2)).toEqual([80, 10]);
      await allowAuditEdits(sql);
      await sql.run(`UPDATE audit_events SET params = '{"agentId":"agt_else"}' WHERE id = 10`);
      await expect(log.history(number, undefined, 21)).rejects.toMatchObject({ id: 10 });
      await expect(log.history(number, 11, 21)).rejects.toMatchObject({ id: 10 });
      await sql.run('UPDATE audit_events SET params = ? WHERE id = 10', [JSON.stringify({ agentId: 'agt_0' })]);
      expect(await log.history(number, 11, 21)).toHaveLength(1);
      await sql.run('DELETE FROM audit_events WHERE id = 79');
      await expect(log.history(number, undefined, 21)).rejects.toMatchObject({
        id: 80,
        reason: expect.stringContaining('row 79 is missing'),
      });
    });

    it('refuses a change edited before any checkpoint, and a row missing anywhere', async () => {
      const { sql, log } = await filled(1200);
      await log.verifyToEnd();
      await allowAuditEdits(sql);
      await sql.run(`UPDATE audit_events SET params = '{"agentId":"agt_else"}' WHERE id = 20`);
      await expect(collect(log.changesUpTo(1200))).rejects.toMatchObject({
        id: 20,
        reason: expect.stringContaining('changed'),
      });

      await sql.run('UPDATE audit_events SET params = ? WHERE id = 20', [JSON.stringify({ agentId: 'agt_1' })]);
      await sql.run('DELETE FROM audit_events WHERE id = 703');
      const missing = collect(log.changesUpTo(1200));
      await expect(missing).rejects.toBeInstanceOf(ChainBroken);
      await expect(missing).rejects.toMatchObject({ id: 704, reason: expect.stringContaining('row 703 is missing') });
    });
  });
});
