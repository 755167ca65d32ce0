import { describe, expect, it } from 'vitest';
import { DeliveryKeys } from '../../src/store/dedupe.js';
import { manualClock, useTempDatabases } from './helpers.js';

const temp = useTempDatabases();
const TTL_MS = 60 * 60 * 1000;

function deliveryKeys() {
  const clock = manualClock();
  const db = temp.open();
  return { db, clock, keys: new DeliveryKeys(db, { now: clock.now }) };
}

describe('DeliveryKeys', () => {
  it('says true to the first caller with a key and false to every repeat', () => {
    const { keys } = deliveryKeys();
    expect(keys.firstSeen('event:Ev01')).toBe(true);
    expect(keys.firstSeen('event:Ev01')).toBe(false);
    expect(keys.firstSeen('event:Ev01')).toBe(false);
    expect(keys.firstSeen('event:Ev02')).toBe(true);
  });

  it('remembers a key for the ttl (one hour by default), then treats it as new', () => {
    const { keys, clock } = deliveryKeys();
    keys.firstSeen('action:1');
    clock.advance(TTL_MS - 1);
    expect(keys.firstSeen('action:1')).toBe(false);
    clock.advance(1);
    expect(keys.firstSeen('action:1')).toBe(true);
    expect(keys.firstSeen('action:1')).toBe(false);
  });

  it('prunes expired keys as it goes, so the table does not grow without end', () => {
    const { keys, clock, db } = deliveryKeys();
    const count = () => db.prepare<[], { n: number }>('SELECT count(*) AS n FROM delivery_keys').get()?.n;
    for (let i = 0; i < 50; i++) keys.firstSeen(`old:${i}`);
    expect(count()).toBe(50);

    clock.advance(TTL_MS + 1);
    keys.firstSeen('new:1');
    expect(count()).toBe(1);
  });

  it('is shared by every connection to the same file', () => {
    const clock = manualClock();
    const one = new DeliveryKeys(temp.open('shared.db'), { now: clock.now });
    const two = new DeliveryKeys(temp.open('shared.db'), { now: clock.now });
    expect(one.firstSeen('k')).toBe(true);
    expect(two.firstSeen('k')).toBe(false);
  });
});
