// takingTurns: at most so many turns out at once; the rest wait, and get theirs in the order they asked.
import { describe, expect, it } from 'vitest';
import { takingTurns } from '../../src/ops/turns.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('takingTurns', () => {
  it('gives out at most `size` turns, the next to whoever asked first as each is given back, once each', async () => {
    const turn = takingTurns(2);
    const got: number[] = [];
    const giveBacks = new Map<number, () => void>();
    for (const asker of [0, 1, 2, 3]) {
      void turn().then((giveBack) => {
        got.push(asker);
        giveBacks.set(asker, giveBack);
      });
    }
    await settle();
    expect(got).toEqual([0, 1]);

    giveBacks.get(1)?.();
    giveBacks.get(1)?.(); // given back twice: still one turn
    await settle();
    expect(got).toEqual([0, 1, 2]);

    giveBacks.get(0)?.();
    await settle();
    expect(got).toEqual([0, 1, 2, 3]);

    giveBacks.get(2)?.();
    giveBacks.get(3)?.();
    const late = await turn();
    const another = await turn();
    expect([typeof late, typeof another]).toEqual(['function', 'function']);
    let third = false;
    void turn().then(() => {
      third = true;
    });
    await settle();
    expect(third, 'both turns are out again').toBe(false);
    late();
    await settle();
    expect(third).toBe(true);
  });
});
