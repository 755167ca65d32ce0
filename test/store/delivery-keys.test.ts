import { describe, expect, it } from 'vitest';
import { DeliveryKeys } from '../../src/store/delivery-keys.js';
import type { Sql } from '../../src/store/sql.js';
import { ENGINES, manualClock, useTempDatabases } from './helpers.js';

const TTL_MS = 60 * 60 * 1000;

const neverPruned = () => ({ lastAt: Number.NEGATIVE_INFINITY });

async function keyCount(sql: Sql): Promise<number | undefined> {
  return (await sql.get<{ n: number }>('SELECT count(*) AS n FROM delivery_keys'))?.n;
}

describe.each(ENGINES)('DeliveryKeys on %s', (engine) => {
  const temp = useTempDatabases(engine);

  async function deliveryKeys() {
    const clock = manualClock();
    const sql = await temp.open();
    return { sql, clock, keys: new DeliveryKeys(sql, { now: clock.now, pruning: neverPruned() }) };
  }

  it("says true to the first caller with a key, with the settings' version found, and false to every repeat", async () => {
    const { keys, sql } = await deliveryKeys();
    expect(await keys.firstSeen('event:Ev00')).toEqual({ first: true, settingsVersion: 0 });
    await sql.run('INSERT INTO settings_version (id, version) VALUES (1, 1)');
    expect(await keys.firstSeen('event:Ev03')).toEqual({ first: true, settingsVersion: 1 });
    expect((await keys.firstSeen('event:Ev01')).first).toBe(true);
    expect((await keys.firstSeen('event:Ev01')).first).toBe(false);
    expect((await keys.firstSeen('event:Ev01')).first).toBe(false);
    expect((await keys.firstSeen('event:Ev02')).first).toBe(true);
  });

  it('answers keys that arrive together alike: a key given twice is new for its first caller only', async () => {
    const { keys } = await deliveryKeys();
    await keys.firstSeen('event:Ev00');
    const answers = await Promise.all(
      ['event:Ev01', 'event:Ev00', 'event:Ev01', 'event:Ev02'].map((key) => keys.firstSeen(key)),
    );
    expect(answers.map((answer) => answer.first)).toEqual([true, false, false, true]);
  });

  it('remembers a key for the ttl (one hour by default), then treats it as new', async () => {
    const { keys, clock } = await deliveryKeys();
    await keys.firstSeen('action:1');
    clock.advance(TTL_MS - 1);
    expect((await keys.firstSeen('action:1')).first).toBe(false);
    clock.advance(1);
    expect((await keys.firstSeen('action:1')).first).toBe(true);
    expect((await keys.firstSeen('action:1')).first).toBe(false);
  });

  it('prunes expired keys as it goes, so the table does not grow without end', async () => {
    const { keys, clock, sql } = await deliveryKeys();
    for (let i = 0; i < 50; i++) await keys.firstSeen(`old:${i}`);
    expect(await keyCount(sql)).toBe(50);

    clock.advance(TTL_MS + 1);
    await keys.firstSeen('new:1');
    expect(await keyCount(sql)).toBe(1);
  });

  it('prunes once per ttl across the bindings that share its state, not once per binding', async () => {
    const clock = manualClock();
    const sql = await temp.open();
    const pruning = neverPruned();
    const one = new DeliveryKeys(sql, { now: clock.now, pruning });
    const two = new DeliveryKeys(sql, { now: clock.now, pruning });
    await one.firstSeen('old'); // prunes (nothing yet)
    clock.advance(TTL_MS / 2);
    await one.firstSeen('middle');
    clock.advance(TTL_MS * 0.7);
    await one.firstSeen('x'); // prunes 'old'
    clock.advance(TTL_MS * 0.4);
    // 'middle' has expired, but the last pruning was less than a ttl ago, whichever binding made it.
    expect((await two.firstSeen('y')).first).toBe(true);
    expect(await keyCount(sql)).toBe(3);
    expect((await two.firstSeen('middle')).first).toBe(true);
  });

  it('is shared by every connection to the same database', async () => {
    const clock = manualClock();
    const one = new DeliveryKeys(await temp.open('shared.db'), { now: clock.now, pruning: neverPruned() });
    const two = new DeliveryKeys(await temp.open('shared.db'), { now: clock.now, pruning: neverPruned() });
    expect((await one.firstSeen('k')).first).toBe(true);
    expect((await two.firstSeen('k')).first).toBe(false);
  });
});
