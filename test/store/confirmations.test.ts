import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { type ClaimResult, Confirmations } from '../../src/store/confirmations.js';
import { manualClock, useTempDatabases } from './helpers.js';

const temp = useTempDatabases();
const TTL_MS = 10 * 60 * 1000;

const request = {
  action: { kind: 'number.buy', params: { phoneNumber: '+15550100', region: 'US' } },
  requestedBy: 'U_ADA',
  correlationId: 'corr-1',
  context: { channelId: 'C0001', teamId: 'T0001', source: 'command' },
};

function confirmations() {
  const clock = manualClock();
  const db = temp.open();
  return { db, clock, store: new Confirmations(db, { now: clock.now }) };
}

const statusOf = (result: ClaimResult) => result.status;

describe('Confirmations.create', () => {
  it('stores the pending action with a random single-use id and a ten-minute expiry', () => {
    const { store } = confirmations();
    const created = store.create(request);

    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      action: request.action,
      requestedBy: 'U_ADA',
      correlationId: 'corr-1',
      createdAt: '2026-11-01T09:00:00.000Z',
      expiresAt: '2026-11-01T09:10:00.000Z',
      state: 'pending',
      context: request.context,
    });
    expect(store.get(created.id)).toEqual(created);
    expect(store.create(request).id).not.toBe(created.id);
  });

  it('defaults the context to an empty object and honours a custom ttl', () => {
    const clock = manualClock();
    const store = new Confirmations(temp.open(), { now: clock.now, ttlMs: 30_000 });
    const created = store.create({ action: request.action, requestedBy: 'U_ADA', correlationId: 'c' });
    expect(created.context).toEqual({});
    expect(created.expiresAt).toBe('2026-11-01T09:00:30.000Z');
  });
});

describe('Confirmations.claim', () => {
  it('claims once for the requester; every later claim is already_used', () => {
    const { store } = confirmations();
    const { id } = store.create(request);

    const first = store.claim(id, 'U_ADA');
    expect(first).toEqual({ status: 'claimed', confirmation: expect.objectContaining({ id, state: 'used' }) });
    expect(statusOf(store.claim(id, 'U_ADA'))).toBe('already_used');
    expect(store.get(id)?.state).toBe('used');
  });

  it('refuses another user, and the requester can still claim it afterwards', () => {
    const { store } = confirmations();
    const { id } = store.create(request);

    const stranger = store.claim(id, 'U_MALLORY');
    expect(stranger).toEqual({ status: 'wrong_user', confirmation: expect.objectContaining({ state: 'pending' }) });
    expect(statusOf(store.claim(id, 'U_ADA'))).toBe('claimed');
  });

  it('is claimable until the expiry and expired from that instant on; the row stays to say so', () => {
    const { store, clock } = confirmations();
    const late = store.create(request);
    const inTime = store.create(request);

    clock.advance(TTL_MS - 1);
    expect(statusOf(store.claim(inTime.id, 'U_ADA'))).toBe('claimed');
    clock.advance(1);
    const result = store.claim(late.id, 'U_ADA');
    expect(result).toEqual({ status: 'expired', confirmation: expect.objectContaining({ state: 'pending' }) });
    clock.advance(24 * 60 * 60 * 1000);
    expect(statusOf(store.claim(late.id, 'U_ADA'))).toBe('expired');
  });

  it('answers not_found for ids it never issued', () => {
    const { store } = confirmations();
    store.create(request);
    for (const junk of ['', 'nope', "' OR 1=1 --", randomUUID(), 'x'.repeat(5000)]) {
      expect(store.claim(junk, 'U_ADA')).toEqual({ status: 'not_found' });
      expect(store.cancel(junk, 'U_ADA')).toEqual({ status: 'not_found' });
      expect(store.get(junk)).toBeUndefined();
    }
  });

  it('lets exactly one of two connections to the same file claim an id', () => {
    const one = new Confirmations(temp.open('shared.db'));
    const two = new Confirmations(temp.open('shared.db'));
    const { id } = one.create(request);

    const results = [two.claim(id, 'U_ADA'), one.claim(id, 'U_ADA')].map(statusOf);
    expect(results).toEqual(['claimed', 'already_used']);
    expect(one.get(id)?.state).toBe('used');
  });

  it('lets exactly one of several processes racing on the same id claim it', async () => {
    const path = temp.path('race.db');
    const { id } = new Confirmations(temp.open('race.db')).create(request);

    const racers = Array.from({ length: 6 }, () =>
      spawn(process.execPath, ['--import', 'tsx', 'test/store/fixtures/claim-race.ts', path, id, 'U_ADA'], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    // Listened for from the start: a racer may exit before its status line has been read.
    const exitCodes = Promise.all(racers.map(async (racer) => (await once(racer, 'exit'))[0]));
    const lines = racers.map((racer) => createInterface({ input: racer.stdout })[Symbol.asyncIterator]());
    const nextLines = () => Promise.all(lines.map(async (line) => (await line.next()).value));

    expect(await nextLines()).toEqual(Array(6).fill('ready'));
    const startAt = Date.now() + 100;
    for (const racer of racers) racer.stdin.end(String(startAt));
    const statuses = (await nextLines()).sort();

    expect(await exitCodes).toEqual(Array(6).fill(0));

    expect(statuses).toEqual([
      'already_used',
      'already_used',
      'already_used',
      'already_used',
      'already_used',
      'claimed',
    ]);
  });
});

describe('Confirmations.cancel', () => {
  it('moves a pending confirmation to cancelled, after which neither claim nor cancel succeeds', () => {
    const { store } = confirmations();
    const { id } = store.create(request);

    expect(store.cancel(id, 'U_ADA')).toEqual({
      status: 'claimed',
      confirmation: expect.objectContaining({ id, state: 'cancelled' }),
    });
    expect(statusOf(store.claim(id, 'U_ADA'))).toBe('cancelled');
    expect(statusOf(store.cancel(id, 'U_ADA'))).toBe('cancelled');
  });

  it('applies the same checks as claim: user, use and expiry', () => {
    const { store, clock } = confirmations();
    const mine = store.create(request);
    const used = store.create(request);
    store.claim(used.id, 'U_ADA');

    expect(statusOf(store.cancel(mine.id, 'U_MALLORY'))).toBe('wrong_user');
    expect(statusOf(store.cancel(used.id, 'U_ADA'))).toBe('already_used');
    clock.advance(TTL_MS);
    expect(statusOf(store.cancel(mine.id, 'U_ADA'))).toBe('expired');
    expect(store.get(mine.id)?.state).toBe('pending');
  });
});
