// Until when a change's leases hold by its own process's clocks: the deadline every request of the change is checked
// against before it is sent (ops/locks.ts, fence.ts), read here on clocks the test moves.
import { describe, expect, it } from 'vitest';
import { LeaseDeadline } from '../../src/ops/locks.js';

const HOLDS_MS = 1_500;

function clocks() {
  const now = { monotonic: 1_000, wall: 1_700_000_000_000 };
  return {
    now,
    clocks: { monotonic: () => now.monotonic, wall: () => now.wall },
    /** Time passing, as both clocks see it. */
    pass(ms: number) {
      now.monotonic += ms;
      now.wall += ms;
    },
  };
}

describe('a lease deadline', () => {
  it('holds nothing before its first take', () => {
    const { clocks: read } = clocks();
    expect(new LeaseDeadline(HOLDS_MS, read).holds()).toBe(false);
  });

  it('holds from the moment its take was asked for, not answered, until just before the deadline', () => {
    const time = clocks();
    const deadline = new LeaseDeadline(HOLDS_MS, time.clocks);
    const asked = deadline.ask();
    time.pass(200); // the take's round trip
    deadline.taken(asked);
    time.pass(HOLDS_MS - 200 - 1);
    expect(deadline.holds()).toBe(true);
    time.pass(1);
    expect(deadline.holds()).toBe(false);
  });

  it('moves on with each renewal answered while it holds, counted from when the renewal was asked for', () => {
    const time = clocks();
    const deadline = new LeaseDeadline(HOLDS_MS, time.clocks);
    deadline.taken(deadline.ask());
    time.pass(1_000);
    const renewal = deadline.ask();
    time.pass(400);
    deadline.renewed(renewal);
    time.pass(HOLDS_MS - 400 - 1);
    expect(deadline.holds()).toBe(true);
    time.pass(1);
    expect(deadline.holds()).toBe(false);
  });

  it('is not revived by a renewal answered after it passed: the others may have seen the leases lapse', () => {
    const time = clocks();
    const deadline = new LeaseDeadline(HOLDS_MS, time.clocks);
    deadline.taken(deadline.ask());
    time.pass(HOLDS_MS - 100);
    const renewal = deadline.ask();
    // The process is paused with the renewal on its way; the database renews the leases once it goes on.
    time.pass(30_000);
    deadline.renewed(renewal);
    expect(deadline.holds()).toBe(false);
    deadline.renewed(deadline.ask());
    expect(deadline.holds()).toBe(false);
  });

  it('is not moved back by an older renewal answered after a newer one', () => {
    const time = clocks();
    const deadline = new LeaseDeadline(HOLDS_MS, time.clocks);
    deadline.taken(deadline.ask());
    const older = deadline.ask();
    time.pass(500);
    deadline.renewed(deadline.ask());
    deadline.renewed(older);
    time.pass(HOLDS_MS - 1);
    expect(deadline.holds()).toBe(true);
  });

  it('passes when the wall clock moved on while the monotonic clock stood still, as over a host suspend', () => {
    const time = clocks();
    const deadline = new LeaseDeadline(HOLDS_MS, time.clocks);
    deadline.taken(deadline.ask());
    time.now.wall += 60_000;
    expect(deadline.holds()).toBe(false);
  });

  it('is not lengthened by a wall clock stepped back: the monotonic clock still counts', () => {
    const time = clocks();
    const deadline = new LeaseDeadline(HOLDS_MS, time.clocks);
    deadline.taken(deadline.ask());
    time.now.wall -= 60_000;
    time.now.monotonic += HOLDS_MS;
    expect(deadline.holds()).toBe(false);
  });
});
