// Batches on both engines: a plan is started once, by its requester, before it expires; an item starts only while its
// batch runs, so a stop keeps the rest from starting; 1,000 items are stored and read back in order.
import { describe, expect, it } from 'vitest';
import { Batches } from '../../src/store/batches.js';
import { ENGINES, manualClock, useTempDatabases } from './helpers.js';

const TTL_MS = 600_000;

describe.each(ENGINES)('Batches on %s', (engine) => {
  const temp = useTempDatabases(engine);

  async function newBatch(items = 3) {
    const clock = manualClock();
    const batches = new Batches(await temp.open(), { now: clock.now, ttlMs: TTL_MS });
    const batch = await batches.create({
      id: 'b1',
      kind: 'routing.map',
      plan: {
        request: { kind: 'routing.map', agentId: 'agt_1' },
        agent: { id: 'agt_1', name: 'Desk' },
        totals: { change: items - 1, taken: 0, unchanged: 1 },
      },
      requestedBy: 'U1',
      actor: { userId: 'U1', source: 'command' },
      items: Array.from({ length: items }, (_, index) => ({
        change: {
          kind: 'routing.map' as const,
          phoneNumber: `+1555010${String(index).padStart(4, '0')}`,
          agentId: 'agt_1',
          agentName: 'Desk',
        },
        state: index === 0 ? ('unchanged' as const) : ('pending' as const),
      })),
    });
    return { clock, batches, batch };
  }

  it('stores the plan and its items in order, with their counts', async () => {
    const { batches, batch } = await newBatch(1000);
    expect(batch).toMatchObject({
      id: 'b1',
      state: 'planned',
      total: 1000,
      requestedBy: 'U1',
      plan: { agent: { id: 'agt_1', name: 'Desk' } },
    });
    const page = await batches.items('b1', { offset: 995, limit: 10 });
    expect(page.map((item) => item.seq)).toEqual([996, 997, 998, 999, 1000]);
    expect(page[0]?.change).toEqual({
      kind: 'routing.map',
      phoneNumber: '+15550100995',
      agentId: 'agt_1',
      agentName: 'Desk',
    });
    expect(await batches.counts('b1')).toMatchObject({ pending: 999, unchanged: 1, running: 0 });
  });

  it('reads the batches of several ids in one read, leaving out the ids it has none of', async () => {
    const { batches, batch } = await newBatch(2);
    expect(await batches.getMany(['b1', 'nope'])).toEqual([batch]);
    expect(await batches.getMany([])).toEqual([]);
  });

  it('starts once, for its requester only, and never once expired', async () => {
    const { batches } = await newBatch();
    expect(await batches.start('b1', 'U2')).toBeUndefined();
    const [first, second] = await Promise.all([batches.start('b1', 'U1'), batches.start('b1', 'U1')]);
    expect([first?.state, second?.state].sort()).toEqual(['running', undefined].sort());
  });

  it('is never started once expired', async () => {
    const { batches, clock } = await newBatch();
    clock.advance(TTL_MS);
    expect(await batches.start('b1', 'U1')).toBeUndefined();
    expect((await batches.get('b1'))?.state).toBe('planned');
  });

  it('starts an item only while its batch runs: after a stop, the rest are cancelled instead', async () => {
    const { batches } = await newBatch(4);
    expect(await batches.startItem('b1', 2)).toBe(false); // still planned
    await batches.start('b1', 'U1');
    expect(await batches.startItem('b1', 2)).toBe(true);
    expect(await batches.startItem('b1', 2)).toBe(false); // once
    await batches.finishItem('b1', 2, 'failed', 'provider said no');
    expect(await batches.move('b1', ['running'], 'stopping')).toMatchObject({ state: 'stopping' });
    expect(await batches.startItem('b1', 3)).toBe(false);
    expect((await batches.cancelPending('b1')).map((item) => item.seq)).toEqual([3, 4]);
    expect(await batches.counts('b1')).toMatchObject({ failed: 1, cancelled: 2, unchanged: 1, pending: 0 });
    expect((await batches.itemsIn('b1', ['failed']))[0]).toMatchObject({ seq: 2, error: 'provider said no' });
  });

  it('moves between states only from the ones named, and lists the batches under way', async () => {
    const { batches } = await newBatch();
    expect(await batches.move('b1', ['running'], 'finished')).toBeUndefined();
    expect(await batches.underWay()).toEqual([]);
    await batches.start('b1', 'U1');
    expect((await batches.underWay()).map((batch) => batch.id)).toEqual(['b1']);
    expect(await batches.move('b1', ['running', 'stopping'], 'interrupted')).toMatchObject({ state: 'interrupted' });
    expect(await batches.underWay()).toEqual([]);
  });
});
