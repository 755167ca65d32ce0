// How long the reconciler waits before it sends a change whose outcome is still unknown again: from the settling time,
// twice as long after each try the provider did not answer, up to a ceiling; a change settled starts afresh.
import { expect, it } from 'vitest';
import { BACK_OFF_CEILING_MS, BackOff } from '../../src/reconcile/back-off.js';

const at = (ms: number) => new Date(Date.UTC(2026, 11, 7) + ms);

it('tries a change at once, then after a wait that doubles with each unanswered try, up to the ceiling', () => {
  const backOff = new BackOff(20_000);
  expect(backOff.due('c1', at(0))).toBe(true);
  let now = 0;
  const waits: number[] = [];
  for (let tries = 0; tries < 7; tries++) {
    backOff.failed('c1', at(now));
    let wait = 0;
    while (!backOff.due('c1', at(now + wait))) wait += 1_000;
    expect(backOff.due('c1', at(now + wait - 1)), 'not a moment before its wait is over').toBe(false);
    waits.push(wait);
    now += wait;
  }
  expect(waits).toEqual([
    20_000,
    40_000,
    80_000,
    160_000,
    BACK_OFF_CEILING_MS,
    BACK_OFF_CEILING_MS,
    BACK_OFF_CEILING_MS,
  ]);
  // Each change waits on its own.
  expect(backOff.due('c2', at(now))).toBe(true);
});

it('forgets a change once it is settled: tried at once if it is ever open again', () => {
  const backOff = new BackOff(20_000);
  backOff.failed('c1', at(0));
  backOff.failed('c1', at(20_000));
  backOff.settled('c1');
  expect(backOff.due('c1', at(20_001))).toBe(true);
  backOff.failed('c1', at(20_001));
  expect(backOff.due('c1', at(40_000))).toBe(false);
  expect(backOff.due('c1', at(40_001))).toBe(true);
});
