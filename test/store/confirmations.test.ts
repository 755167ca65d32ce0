import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { type ClaimResult, Confirmations } from '../../src/store/confirmations.js';
import { ENGINES, manualClock, useTempDatabases } from './helpers.js';

const TTL_MS = 10 * 60 * 1000;

const request = {
  change: { kind: 'number.buy' as const, number: '+15550100' },
  requestedBy: 'U_ADA',
  correlationId: 'corr-1',
  context: { channelId: 'C0001', teamId: 'T0001', source: 'command' },
};

const statusOf = (result: ClaimResult) => result.status;

describe.each(ENGINES)('on %s', (engine) => {
  const temp = useTempDatabases(engine);

  async function confirmations() {
    const clock = manualClock();
    return { clock, store: new Confirmations(await temp.open(), { now: clock.now }) };
  }

  describe('Confirmations.create', () => {
    it('keeps text that Postgres refuses in JSON (a lone surrogate, U+0000) as U+FFFD, on either engine', async () => {
      const { store } = await confirmations();
      const change = { kind: 'agent.delete' as const, agentName: '\ud800 <!channel>', agentId: 'a\u0000b\udfff' };
      const created = await store.create({ ...request, change });
      const expected = { kind: 'agent.delete', agentName: '\ufffd <!channel>', agentId: 'a\ufffdb\ufffd' };
      expect(created.change).toEqual(expected);
      expect((await store.get(created.id))?.change).toEqual(expected);
    });

    it('stores the pending action with a random single-use id and a ten-minute expiry', async () => {
      const { store } = await confirmations();
      const created = await store.create(request);

      expect(created).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        change: request.change,
        requestedBy: 'U_ADA',
        correlationId: 'corr-1',
        createdAt: '2026-11-01T09:00:00.000Z',
        expiresAt: '2026-11-01T09:10:00.000Z',
        state: 'pending',
        context: request.context,
      });
      expect(await store.get(created.id)).toEqual(created);
      expect((await store.create(request)).id).not.toBe(created.id);
    });

    it('defaults the context to an empty object and honours a custom ttl', async () => {
      const clock = manualClock();
      const store = new Confirmations(await temp.open(), { now: clock.now, ttlMs: 30_000 });
      const created = await store.create({ change: request.change, requestedBy: 'U_ADA', correlationId: 'c' });
      expect(created.context).toEqual({});
      expect(created.expiresAt).toBe('2026-11-01T09:00:30.000Z');
    });
  });

  describe('Confirmations.claim', () => {
    it('claims once for the requester; every later claim is already_used', async () => {
      const { store } = await confirmations();
      const { id } = await store.create(request);

      const first = await store.claim(id, 'U_ADA');
      expect(first).toEqual({ status: 'claimed', confirmation: expect.objectContaining({ id, state: 'used' }) });
      expect(statusOf(await store.claim(id, 'U_ADA'))).toBe('already_used');
      expect((await store.get(id))?.state).toBe('used');
    });

    it('refuses another user, and the requester can still claim it afterwards', async () => {
      const { store } = await confirmations();
      const { id } = await store.create(request);

      const stranger = await store.claim(id, 'U_MALLORY');
      expect(stranger).toEqual({ status: 'wrong_user', confirmation: expect.objectContaining({ state: 'pending' }) });
      expect(statusOf(await store.claim(id, 'U_ADA'))).toBe('claimed');
    });

    it('is claimable until the expiry and expired from that instant on; the row stays to say so', async () => {
      const { store, clock } = await confirmations();
      const late = await store.create(request);
      const inTime = await store.create(request);

      clock.advance(TTL_MS - 1);
      expect(statusOf(await store.claim(inTime.id, 'U_ADA'))).toBe('claimed');
      clock.advance(1);
      const result = await store.claim(late.id, 'U_ADA');
      expect(result).toEqual({ status: 'expired', confirmation: expect.objectContaining({ state: 'pending' }) });
      clock.advance(24 * 60 * 60 * 1000);
      expect(statusOf(await store.claim(late.id, 'U_ADA'))).toBe('expired');
    });

    it('answers not_found for ids it never issued', async () => {
      const { store } = await confirmations();
      await store.create(request);
      for (const junk of ['', 'nope', "' OR 1=1 --", randomUUID(), 'x'.repeat(5000)]) {
        expect(await store.claim(junk, 'U_ADA')).toEqual({ status: 'not_found' });
        expect(await store.cancel(junk, 'U_ADA')).toEqual({ status: 'not_found' });
        expect(await store.get(junk)).toBeUndefined();
      }
    });

    it('lets exactly one of two connections to the same database claim an id', async () => {
      const one = new Confirmations(await temp.open('shared.db'));
      const two = new Confirmations(await temp.open('shared.db'));
      const { id } = await one.create(request);

      const results = [await two.claim(id, 'U_ADA'), await one.claim(id, 'U_ADA')].map(statusOf);
      expect(results).toEqual(['claimed', 'already_used']);
      expect((await one.get(id))?.state).toBe('used');
    });

    it('lets exactly one of many concurrent claims on one database claim an id', async () => {
      const { store } = await confirmations();
      const { id } = await store.create(request);

      const statuses = await Promise.all(
        Array.from({ length: 8 }, async () => statusOf(await store.claim(id, 'U_ADA'))),
      );
      expect(statuses.sort()).toEqual([...Array(7).fill('already_used'), 'claimed']);
    });

    it('lets exactly one of several processes racing on the same id claim it', async () => {
      const target = await temp.target('race.db');
      const database = target.kind === 'sqlite' ? target.path : target.url;
      const { id } = await new Confirmations(await temp.open('race.db')).create(request);

      const racers = Array.from({ length: 6 }, () =>
        spawn(process.execPath, ['--import', 'tsx', 'test/store/fixtures/claim-race.ts', database, id, 'U_ADA'], {
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
    it('moves a pending confirmation to cancelled, after which neither claim nor cancel succeeds', async () => {
      const { store } = await confirmations();
      const { id } = await store.create(request);

      expect(await store.cancel(id, 'U_ADA')).toEqual({
        status: 'claimed',
        confirmation: expect.objectContaining({ id, state: 'cancelled' }),
      });
      expect(statusOf(await store.claim(id, 'U_ADA'))).toBe('cancelled');
      expect(statusOf(await store.cancel(id, 'U_ADA'))).toBe('cancelled');
    });

    it('applies the same checks as claim: user, use and expiry', async () => {
      const { store, clock } = await confirmations();
      const mine = await store.create(request);
      const used = await store.create(request);
      await store.claim(used.id, 'U_ADA');

      expect(statusOf(await store.cancel(mine.id, 'U_MALLORY'))).toBe('wrong_user');
      expect(statusOf(await store.cancel(used.id, 'U_ADA'))).toBe('already_used');
      clock.advance(TTL_MS);
      expect(statusOf(await store.cancel(mine.id, 'U_ADA'))).toBe('expired');
      expect((await store.get(mine.id))?.state).toBe('pending');
    });
  });
});
