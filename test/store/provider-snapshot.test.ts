// The reconciler's snapshot of the provider on both engines: replaced whole, or not at all.
import { describe, expect, it } from 'vitest';
import { ProviderSnapshot, type ProviderState } from '../../src/store/provider-snapshot.js';
import { ENGINES, useTempDatabases } from './helpers.js';

const state = (numbers: [string, string][], agents: [string, string][]): ProviderState => ({
  numbers: new Map(numbers),
  agents: new Map(agents),
});

describe.each(ENGINES)('ProviderSnapshot on %s', (engine) => {
  const temp = useTempDatabases(engine);

  it('is empty, and taken at no time, before the first snapshot', async () => {
    const snapshot = new ProviderSnapshot(await temp.open());
    expect(await snapshot.takenAt()).toBeUndefined();
    expect(await snapshot.read()).toEqual(state([], []));
  });

  it('reads back what replaced it, and when it was taken; a later snapshot replaces it whole', async () => {
    const snapshot = new ProviderSnapshot(await temp.open());
    const first = state(
      [
        ['+15550100', 'num-1'],
        ['+15550200', 'num-2'],
      ],
      [['agt_1', 'Front desk']],
    );
    await snapshot.replace(first, new Date('2026-11-01T09:00:00.000Z'));
    expect(await snapshot.read()).toEqual(first);
    expect(await snapshot.takenAt()).toBe('2026-11-01T09:00:00.000Z');

    const second = state([['+15550200', 'num-2']], [['agt_2', 'Night line']]);
    await snapshot.replace(second, new Date('2026-11-01T09:05:00.000Z'));
    expect(await snapshot.read()).toEqual(second);
    expect(await snapshot.takenAt()).toBe('2026-11-01T09:05:00.000Z');
  });

  it('keeps the previous snapshot whole when a replacement fails part-way', async () => {
    const snapshot = new ProviderSnapshot(await temp.open());
    const kept = state([['+15550100', 'num-1']], [['agt_1', 'Front desk']]);
    await snapshot.replace(kept, new Date('2026-11-01T09:00:00.000Z'));

    // An agent without a name breaks the NOT NULL on the snapshot's detail, after the numbers went in.
    const broken = state([['+15550300', 'num-3']], [['agt_2', null as unknown as string]]);
    await expect(snapshot.replace(broken, new Date('2026-11-01T09:05:00.000Z'))).rejects.toThrow(/null/i);
    expect(await snapshot.read()).toEqual(kept);
    expect(await snapshot.takenAt()).toBe('2026-11-01T09:00:00.000Z');
  });
});
