// A list kept between reads: served while young, shared by concurrent readers, dropped by a change, and never kept
// when the change came while it was being read.
import { describe, expect, it } from 'vitest';
import { KeptList } from '../../src/ops/lists.js';

/** A source whose reads are counted and finish only when told, each with the value the source holds then. */
function source() {
  let value = 0;
  const pending: (() => void)[] = [];
  const state = {
    reads: 0,
    set: (next: number) => {
      value = next;
    },
    finish: () => {
      for (const release of pending.splice(0)) release();
    },
    read: () => {
      state.reads += 1;
      const read = value;
      return new Promise<number>((resolve) => pending.push(() => resolve(read)));
    },
  };
  return state;
}

describe('KeptList', () => {
  it('serves what it read until it is older than its age, then reads again', async () => {
    let now = 0;
    const from = source();
    const list = new KeptList(from.read, { maxAgeMs: 1000, now: () => now });
    const first = list.get();
    from.finish();
    expect(await first).toBe(0);
    from.set(1);
    now = 999;
    expect(await list.get()).toBe(0);
    now = 1000;
    const later = list.get();
    from.finish();
    expect(await later).toBe(1);
    expect(from.reads).toBe(2);
  });

  it('shares one read among readers that arrive while it is under way', async () => {
    const from = source();
    const list = new KeptList(from.read);
    const reads = [list.get(), list.get(), list.get({ fresh: true })];
    from.finish();
    expect(await Promise.all(reads)).toEqual([0, 0, 0]);
    expect(from.reads).toBe(1);
  });

  it('reads afresh when asked, and after an invalidation', async () => {
    const from = source();
    const list = new KeptList(from.read);
    const first = list.get();
    from.finish();
    await first;
    from.set(1);
    const fresh = list.get({ fresh: true });
    from.finish();
    expect(await fresh).toBe(1);
    from.set(2);
    list.invalidate();
    const after = list.get();
    from.finish();
    expect(await after).toBe(2);
    expect(from.reads).toBe(3);
  });

  it('does not keep a read that began before a change: the next reader reads again', async () => {
    const from = source();
    const list = new KeptList(from.read);
    const stale = list.get();
    from.set(1);
    list.invalidate();
    // A reader after the change does not join the read that began before it.
    const fresh = list.get();
    from.finish();
    expect(await stale).toBe(0);
    expect(await fresh).toBe(1);
    const kept = list.get();
    expect(await kept).toBe(1);
    expect(from.reads).toBe(2);
  });

  it('keeps nothing from a failed read', async () => {
    let fail = true;
    const list = new KeptList(async () => {
      if (fail) throw new Error('provider down');
      return 7;
    });
    await expect(list.get()).rejects.toThrow('provider down');
    fail = false;
    expect(await list.get()).toBe(7);
  });
});
