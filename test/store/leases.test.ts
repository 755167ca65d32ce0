// Leases on both engines: one holder at a time until the lease expires or is released, whoever asks.
import { describe, expect, it } from 'vitest';
import { Leases } from '../../src/store/leases.js';
import { ENGINES, manualClock, useTempDatabases } from './helpers.js';

const TTL_MS = 30_000;

describe.each(ENGINES)('Leases on %s', (engine) => {
  const temp = useTempDatabases(engine);

  async function newLeases() {
    const clock = manualClock();
    return { clock, leases: new Leases(await temp.open(), { now: clock.now }) };
  }

  it('takes a free lease and says who holds it; nobody holds a lease never taken', async () => {
    const { leases } = await newLeases();
    expect(await leases.holder('reconciler')).toBeUndefined();
    expect(await leases.take('reconciler', 'replica-a', TTL_MS)).toBe(true);
    expect(await leases.holder('reconciler')).toBe('replica-a');
    expect(await leases.holder('number:+15550100')).toBeUndefined();
  });

  it('refuses another holder while the lease is held, and lets its holder renew it', async () => {
    const { leases, clock } = await newLeases();
    await leases.take('reconciler', 'replica-a', TTL_MS);
    clock.advance(TTL_MS - 1);
    expect(await leases.take('reconciler', 'replica-b', TTL_MS)).toBe(false);
    expect(await leases.take('reconciler', 'replica-a', TTL_MS)).toBe(true);

    // Renewed: still held a full ttl after the renewal, past the first expiry.
    clock.advance(TTL_MS - 1);
    expect(await leases.take('reconciler', 'replica-b', TTL_MS)).toBe(false);
    expect(await leases.holder('reconciler')).toBe('replica-a');
  });

  it('lets another holder take over from the moment the lease expires, and no longer says the old one holds it', async () => {
    const { leases, clock } = await newLeases();
    await leases.take('reconciler', 'replica-a', TTL_MS);
    clock.advance(TTL_MS);
    expect(await leases.holder('reconciler')).toBeUndefined();
    expect(await leases.take('reconciler', 'replica-b', TTL_MS)).toBe(true);
    expect(await leases.holder('reconciler')).toBe('replica-b');
    expect(await leases.take('reconciler', 'replica-a', TTL_MS)).toBe(false);
  });

  it('still names the holder of a lease that lapsed less than the time asked ago, and nobody after it', async () => {
    const { leases, clock } = await newLeases();
    const settleMs = 1_000;
    await leases.take('change:c1', 'c1 attempt', TTL_MS);
    clock.advance(TTL_MS + settleMs - 1);
    expect(await leases.holder('change:c1')).toBeUndefined();
    expect(await leases.holder('change:c1', settleMs)).toBe('c1 attempt');
    clock.advance(1);
    expect(await leases.holder('change:c1', settleMs)).toBeUndefined();
  });

  it('frees a lease its holder releases, and ignores a release by anyone else', async () => {
    const { leases } = await newLeases();
    await leases.take('number:+15550100', 'change-1', TTL_MS);
    await leases.release('number:+15550100', 'change-2');
    expect(await leases.holder('number:+15550100')).toBe('change-1');
    expect(await leases.take('number:+15550100', 'change-2', TTL_MS)).toBe(false);

    await leases.release('number:+15550100', 'change-1');
    expect(await leases.holder('number:+15550100')).toBeUndefined();
    expect(await leases.take('number:+15550100', 'change-2', TTL_MS)).toBe(true);
  });

  it('keeps leases of different names apart', async () => {
    const { leases } = await newLeases();
    expect(await leases.take('number:+15550100', 'change-1', TTL_MS)).toBe(true);
    expect(await leases.take('number:+15550200', 'change-2', TTL_MS)).toBe(true);
    expect(await leases.holder('number:+15550100')).toBe('change-1');
    expect(await leases.holder('number:+15550200')).toBe('change-2');
  });

  it('takes several leases in one call only when every one is free, and none of them otherwise', async () => {
    const { clock, leases } = await newLeases();
    const names = ['change:c1', 'lock:number:+15550100', 'lock:agent:agt_1'];
    expect(await leases.take(names, 'c1', TTL_MS)).toBe(true);
    for (const name of names) expect(await leases.holder(name)).toBe('c1');
    // Renewed by the same holder, a name listed twice counted once.
    clock.advance(TTL_MS - 1);
    expect(await leases.take([...names, 'change:c1'], 'c1', TTL_MS)).toBe(true);
    clock.advance(TTL_MS - 1);
    expect(await leases.holder('lock:agent:agt_1')).toBe('c1');

    // One of them is held: false, and none of the free ones taken; the release changes nothing of the first holder's.
    expect(await leases.take(['change:c2', 'lock:number:+15550200', 'lock:agent:agt_1'], 'c2', TTL_MS)).toBe(false);
    expect(await leases.holder('lock:number:+15550200')).toBeUndefined();
    expect(await leases.holder('change:c2')).toBeUndefined();
    await leases.release(['change:c2', 'lock:number:+15550200', 'lock:agent:agt_1'], 'c2');
    expect(await leases.holder('lock:agent:agt_1')).toBe('c1');
    // Once it has expired, it is free again: all of them are taken.
    clock.advance(TTL_MS);
    expect(await leases.take(['change:c2', 'lock:number:+15550200', 'lock:agent:agt_1'], 'c2', TTL_MS)).toBe(true);
    expect(await leases.holder('lock:agent:agt_1')).toBe('c2');
    await leases.release(['change:c2', 'lock:number:+15550200', 'lock:agent:agt_1'], 'c2');

    await leases.release(names, 'c1');
    for (const name of names) expect(await leases.holder(name)).toBeUndefined();
  });

  it('gives a contested lease to exactly one of many holders asking at once, across connections', async () => {
    const clock = manualClock();
    const one = new Leases(await temp.open('shared.db'), { now: clock.now });
    const two = new Leases(await temp.open('shared.db'), { now: clock.now });
    const holders = Array.from({ length: 8 }, (_, i) => `replica-${i}`);

    const taken = await Promise.all(holders.map((holder, i) => (i % 2 ? one : two).take('reconciler', holder, TTL_MS)));
    expect(taken.filter(Boolean)).toHaveLength(1);
    expect(await one.holder('reconciler')).toBe(holders[taken.indexOf(true)]);
  });
});
