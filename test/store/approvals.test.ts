// Requests for a second person's approval on both engines: each is decided once, or expires once.
import { describe, expect, it } from 'vitest';
import { Approvals } from '../../src/store/approvals.js';
import { ENGINES, manualClock, useTempDatabases } from './helpers.js';

const TTL_MS = 60 * 60 * 1000;

const request = (correlationId: string) => ({
  correlationId,
  change: { kind: 'number.buy', number: '+15550100' },
  requester: { userId: 'U_ADA', channelId: 'C0001', source: 'button' as const },
  ttlMs: TTL_MS,
});

describe.each(ENGINES)('Approvals on %s', (engine) => {
  const temp = useTempDatabases(engine);

  async function newApprovals() {
    const clock = manualClock();
    return { clock, approvals: new Approvals(await temp.open(), { now: clock.now }) };
  }

  it('stores a pending request with its expiry, found by id and by change', async () => {
    const { approvals } = await newApprovals();
    const created = await approvals.create(request('corr-1'));

    const { ttlMs: _ttl, ...asked } = request('corr-1');
    expect(created).toEqual({
      id: expect.any(String),
      ...asked,
      createdAt: '2026-11-01T09:00:00.000Z',
      expiresAt: '2026-11-01T10:00:00.000Z',
      state: 'pending',
      decidedBy: undefined,
      decidedAt: undefined,
      channelId: undefined,
      messageTs: undefined,
    });
    expect(await approvals.get(created.id)).toEqual(created);
    expect(await approvals.forChange('corr-1')).toEqual(created);
    expect(await approvals.get('nope')).toBeUndefined();
    expect(await approvals.forChange('corr-2')).toBeUndefined();
  });

  it('is decided once: a later decision, either way, changes nothing', async () => {
    const { approvals, clock } = await newApprovals();
    const { id } = await approvals.create(request('corr-1'));
    clock.advance(60_000);

    expect(await approvals.decide(id, 'approved', 'U_BOB')).toEqual(
      expect.objectContaining({ id, state: 'approved', decidedBy: 'U_BOB', decidedAt: '2026-11-01T09:01:00.000Z' }),
    );
    expect(await approvals.decide(id, 'rejected', 'U_CAROL')).toBeUndefined();
    expect(await approvals.decide(id, 'approved', 'U_BOB')).toBeUndefined();
    expect(await approvals.get(id)).toEqual(expect.objectContaining({ state: 'approved', decidedBy: 'U_BOB' }));
    expect(await approvals.decide('nope', 'approved', 'U_BOB')).toBeUndefined();
  });

  it('gives exactly one of many decisions made at once', async () => {
    const { approvals } = await newApprovals();
    const { id } = await approvals.create(request('corr-1'));
    const approvers = Array.from({ length: 8 }, (_, i) => `U_${i}`);

    const decided = await Promise.all(
      approvers.map((by, i) => approvals.decide(id, i % 2 ? 'approved' : 'rejected', by)),
    );
    const winners = decided.filter((approval) => approval !== undefined);
    expect(winners).toHaveLength(1);
    expect(await approvals.get(id)).toEqual(
      expect.objectContaining({ state: winners[0]?.state, decidedBy: winners[0]?.decidedBy }),
    );
  });

  it('can be decided until its expiry and not from that instant on', async () => {
    const { approvals, clock } = await newApprovals();
    const inTime = await approvals.create(request('corr-1'));
    const late = await approvals.create(request('corr-2'));

    clock.advance(TTL_MS - 1);
    expect((await approvals.decide(inTime.id, 'rejected', 'U_BOB'))?.state).toBe('rejected');
    clock.advance(1);
    expect(await approvals.decide(late.id, 'approved', 'U_BOB')).toBeUndefined();
    expect((await approvals.get(late.id))?.state).toBe('pending');
  });

  it('expires each pending request whose time is up, once, and leaves decided and later ones alone', async () => {
    const { approvals, clock } = await newApprovals();
    const decided = await approvals.create(request('corr-1'));
    const due = await approvals.create(request('corr-2'));
    clock.advance(60_000);
    const later = await approvals.create(request('corr-3'));
    await approvals.decide(decided.id, 'approved', 'U_BOB');

    expect(await approvals.expireDue()).toEqual([]);
    clock.advance(TTL_MS - 60_000);
    expect(await approvals.expireDue()).toEqual([
      expect.objectContaining({ id: due.id, state: 'expired', decidedAt: '2026-11-01T10:00:00.000Z' }),
    ]);
    expect(await approvals.expireDue()).toEqual([]);
    expect((await approvals.get(decided.id))?.state).toBe('approved');
    expect((await approvals.get(later.id))?.state).toBe('pending');

    clock.advance(60_000);
    expect((await approvals.expireDue()).map((approval) => approval.id)).toEqual([later.id]);
    expect(await approvals.expireDue()).toEqual([]);
  });

  it('expires each due request for exactly one of several connections asking at once', async () => {
    const clock = manualClock();
    const one = new Approvals(await temp.open('shared.db'), { now: clock.now });
    const two = new Approvals(await temp.open('shared.db'), { now: clock.now });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await one.create(request(`corr-${i}`))).id);
    clock.advance(TTL_MS);

    const expired = (await Promise.all([one, two, one, two].map((approvals) => approvals.expireDue()))).flat();
    expect(expired.map((approval) => approval.id).sort()).toEqual(ids.sort());
  });

  it('remembers where the request was posted', async () => {
    const { approvals } = await newApprovals();
    const { id } = await approvals.create(request('corr-1'));
    await approvals.posted(id, 'C0002', '1700000000.000100');
    expect(await approvals.get(id)).toEqual(
      expect.objectContaining({ channelId: 'C0002', messageTs: '1700000000.000100' }),
    );
  });
});
