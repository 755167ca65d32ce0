import { existsSync, readFileSync } from 'node:fs';
import { setImmediate } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type AuditEntry, type AuditEvent, AuditLog, MAX_RECENT, redactParams } from '../../src/store/audit.js';
import { verifyChain } from '../../src/store/audit-chain.js';
import { storeOn } from '../../src/store/open-store.js';
import type { Sql, SqlEngine } from '../../src/store/sql.js';
import { signal } from '../harness/signal.js';
import { collect, fill, planOf, recording, SORTS } from './audit-support.js';
import { ENGINES, manualClock, useTempDatabases } from './helpers.js';

const entry = (overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  actorId: 'U0123ABC',
  source: 'command',
  action: 'number.buy',
  outcome: 'requested',
  correlationId: 'corr-1',
  ...overrides,
});

const SECRETS = ['agent-token-4d3c2b1a', 'api-key-9f8e7d6c', 'hunter2-password'];

/** Appends `count` entries in one transaction (far quicker than one each); `each` may move the clock. */
function appendMany(sql: Sql, now: () => Date, count: number, each: (index: number) => Partial<AuditEntry>) {
  return sql.transaction(async (tx) => {
    const log = new AuditLog(tx, { now });
    for (let i = 1; i <= count; i++) await log.append(entry(each(i)));
  });
}

/**
 * Until `append` waits on the chain's lock, or ends: on Postgres the server shows it waiting; on SQLite it waits for
 * the transaction at the connection, in this process, before any statement.
 */
async function heldBack(sql: Sql, append: Promise<unknown>): Promise<void> {
  let ended = false;
  const end = () => {
    ended = true;
  };
  append.then(end, end);
  if (sql.dialect.name === 'sqlite') return setImmediate();
  const waiting =
    "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";
  while (!ended && (await sql.get<{ n: number }>(waiting))?.n === 0) await setImmediate();
}

describe.each(ENGINES)('on %s', (engine) => {
  const temp = useTempDatabases(engine);

  async function auditLog() {
    const clock = manualClock();
    const sql = await temp.open();
    return { sql, clock, log: new AuditLog(sql, { now: clock.now }) };
  }

  describe('AuditLog.append', () => {
    it('stores every field and returns the stored row, timed by the clock in UTC', async () => {
      const { log } = await auditLog();
      const full: AuditEntry = {
        actorId: 'U0123ABC',
        actorName: 'ada',
        teamId: 'T0001',
        channelId: 'C0001',
        source: 'button',
        action: 'number.buy',
        target: '+15550100',
        params: { region: 'US', nested: { count: 2 } },
        outcome: 'failed',
        errorCode: 'conflict',
        errorMessage: 'The number is no longer available.',
        correlationId: 'corr-9',
      };

      const stored = await log.append(full);

      expect(stored).toEqual({
        ...full,
        id: 1,
        at: '2026-11-01T09:00:00.000Z',
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(await log.recent(1)).toEqual([stored]);
    });

    it('reads absent optional fields back as absent, not as null', async () => {
      const { log } = await auditLog();
      const stored = await log.append(entry());
      expect(stored.actorName).toBeUndefined();
      expect(stored.params).toBeUndefined();
      expect(stored.errorMessage).toBeUndefined();
    });

    it('truncates a very long target and error message', async () => {
      const { log } = await auditLog();
      const stored = await log.append(entry({ target: 't'.repeat(10_000), errorMessage: 'e'.repeat(10_000) }));
      expect(stored.target).toBe(`${'t'.repeat(500)}…[truncated 9500 characters]`);
      expect(stored.errorMessage).toBe(`${'e'.repeat(500)}…[truncated 9500 characters]`);
    });

    it('stores U+0000 and lone surrogates as U+FFFD, in columns and in params, and returns what it stored', async () => {
      const { log } = await auditLog();
      const stored = await log.append(
        entry({ actorName: 'a\u0000b', target: '\ud800', params: { 'k\u0000': ['x\udfff', { y: '\u0000' }] } }),
      );

      expect(stored).toMatchObject({
        actorName: 'a\uFFFDb',
        target: '\uFFFD',
        params: { 'k\uFFFD': ['x\uFFFD', { y: '\uFFFD' }] },
      });
      expect(await log.recent(1)).toEqual([stored]);
    });

    it('chains the appends of concurrent callers on one connection: each takes the next id', async () => {
      const { sql, log } = await auditLog();

      const stored = await Promise.all(
        Array.from({ length: 40 }, (_, i) => log.append(entry({ correlationId: `c-${i}` }))),
      );

      expect(stored.map((event) => event.id).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      expect(await verifyChain(sql)).toMatchObject({ ok: true, rows: 40 });
    });

    it('leaves no row when the transaction it joined rolls back, and the chain goes on from the last kept row', async () => {
      const { sql, log, clock } = await auditLog();
      await log.append(entry({ correlationId: 'kept' }));

      const failing = sql.transaction(async (tx) => {
        await new AuditLog(tx, { now: clock.now }).append(entry({ correlationId: 'rolled back' }));
        throw new Error('the change failed');
      });

      await expect(failing).rejects.toThrow('the change failed');
      expect((await log.append(entry({ correlationId: 'next' }))).id).toBe(2);
      expect((await log.recent(10)).map((event) => event.correlationId)).toEqual(['next', 'kept']);
      expect(await verifyChain(sql)).toMatchObject({ ok: true, rows: 2 });
    });
    it('in a transaction, reads the chain end once, and holds it against appends elsewhere until it ends', async () => {
      const { sql, log, clock } = await auditLog();
      await log.append(entry({ correlationId: 'before' }));
      const { sql: recorded, reads } = recording(sql);
      const taken = signal();
      const go = signal();

      const inside = recorded.transaction(async (tx) => {
        const held = new AuditLog(tx, { now: clock.now, inTransaction: true });
        held.takeChainEnd();
        await tx.get('SELECT 1'); // answered once the lock sent ahead of it is granted
        taken.fire();
        await go.reached;
        await Promise.all([held.append(entry({ correlationId: 'a' })), held.append(entry({ correlationId: 'b' }))]);
        await held.append(entry({ correlationId: 'c' }));
      });
      await taken.reached;
      // Another caller appends meanwhile: it must wait for the transaction, which chains to the end it took.
      const elsewhere = log.append(entry({ correlationId: 'elsewhere' }));
      await heldBack(sql, elsewhere);
      go.fire();
      await Promise.all([inside, elsewhere]);

      const stored = (await log.recent(10)).reverse();
      expect(stored.map((event) => event.correlationId)).toEqual(['before', 'a', 'b', 'c', 'elsewhere']);
      expect(await verifyChain(sql)).toMatchObject({ ok: true, rows: 5 });
      expect(reads.filter((read) => /ORDER BY id DESC LIMIT 1/.test(read.text))).toHaveLength(1);
    });

    it("follows on from the end it took in a store's transaction, the log bound to it by the store", async () => {
      const sql = await temp.open();
      const { sql: recorded, reads } = recording(sql);
      const engine: SqlEngine = {
        ...recorded,
        label: sql.label,
        opened: sql.opened,
        checkWritable: () => sql.checkWritable(),
        holdLiveness: () => sql.holdLiveness(),
        close: () => sql.close(),
      };
      const store = await storeOn(engine);

      await store.transaction(async (store) => {
        await store.audit.append(entry({ correlationId: 'first' }));
        await store.audit.append(entry({ correlationId: 'second' }));
      });

      expect(reads.filter((read) => /ORDER BY id DESC LIMIT 1/.test(read.text))).toHaveLength(1);
      expect((await store.audit.recent(5)).map((event) => event.correlationId)).toEqual(['second', 'first']);
      expect(await verifyChain(sql)).toMatchObject({ ok: true, rows: 2 });
    });

    it('takes no end outside a transaction, where each append takes its own', async () => {
      const { sql, log } = await auditLog();
      const { sql: recorded, reads } = recording(sql);
      const unbound = new AuditLog(recorded);

      unbound.takeChainEnd();
      await log.append(entry({ correlationId: 'elsewhere' }));
      const stored = await unbound.append(entry({ correlationId: 'after' }));

      expect(stored.id).toBe(2);
      expect(reads.filter((read) => /ORDER BY id DESC LIMIT 1/.test(read.text))).toHaveLength(1);
      expect(await verifyChain(sql)).toMatchObject({ ok: true, rows: 2 });
    });
  });

  describe('AuditLog reads', () => {
    it('recent: newest first, clamped to 1…200', async () => {
      const { sql, log, clock } = await auditLog();
      await appendMany(sql, clock.now, 250, (i) => ({ correlationId: `c-${i}` }));

      expect((await log.recent(3)).map((event) => event.correlationId)).toEqual(['c-250', 'c-249', 'c-248']);
      expect(await log.recent(1000)).toHaveLength(MAX_RECENT);
      expect((await log.recent(1000)).at(-1)?.correlationId).toBe('c-51');
      expect(await log.recent(0)).toHaveLength(1);
      expect(await log.recent(-5)).toHaveLength(1);
      expect(await log.recent(Number.NaN)).toHaveLength(1);
      expect(await log.recent(2.9)).toHaveLength(2);
    });

    it('lastOutcome: the newest row of a request', async () => {
      const { log } = await auditLog();
      await log.append(entry({ correlationId: 'a', outcome: 'requested' }));
      await log.append(entry({ correlationId: 'b', outcome: 'requested' }));
      await log.append(entry({ correlationId: 'a', outcome: 'succeeded' }));

      expect(await log.lastOutcome('a')).toBe('succeeded');
      expect(await log.lastOutcome('b')).toBe('requested');
      expect(await log.lastOutcome('none')).toBeUndefined();
    });

    it('changesMade: what Voice Ops changed in the window, oldest first, without reads, failures or outside changes', async () => {
      const { log, clock } = await auditLog();
      const at = async (iso: string, overrides: Partial<AuditEntry>) => {
        clock.set(iso);
        await log.append(entry({ outcome: 'succeeded', ...overrides }));
      };
      await at('2026-11-01T08:59:59.999Z', { target: '+1before' });
      await at('2026-11-01T09:00:00.000Z', { action: 'number.buy', target: '+1bought' });
      await at('2026-11-01T09:30:00.000Z', { action: 'agent.list' });
      await at('2026-11-01T09:40:00.000Z', { action: 'number.release', target: '+1failed', outcome: 'failed' });
      await at('2026-11-01T09:50:00.000Z', { action: 'number.release', target: '+1outside', source: 'provider' });
      await at('2026-11-01T09:55:00.000Z', { action: 'routing.map', target: '+1mapped', source: 'system' });
      await at('2026-11-01T10:00:00.000Z', { target: '+1after' });

      expect(await log.changesMade('2026-11-01T09:00:00.000Z', '2026-11-01T10:00:00.000Z')).toEqual([
        { action: 'number.buy', target: '+1bought' },
        { action: 'routing.map', target: '+1mapped' },
      ]);
    });

    it('since: from inclusive, until exclusive, oldest first', async () => {
      const { log, clock } = await auditLog();
      for (const name of ['day1', 'day2', 'day3', 'day4']) {
        await log.append(entry({ correlationId: name }));
        clock.advance(24 * 60 * 60 * 1000);
      }
      const names = async (events: AsyncIterable<AuditEvent>) =>
        (await collect(events)).map((event) => event.correlationId);

      expect(await names(log.since(new Date('2026-11-02T09:00:00.000Z')))).toEqual(['day2', 'day3', 'day4']);
      expect(await names(log.since(new Date('2026-11-02T09:00:00.001Z')))).toEqual(['day3', 'day4']);
      expect(await names(log.since(new Date('2026-11-02'), new Date('2026-11-04T09:00:00.000Z')))).toEqual([
        'day2',
        'day3',
      ]);
      expect(await names(log.since(new Date('2027-01-01')))).toEqual([]);
    });

    it('since: in time order, ties (and a clock that went back) in id order, a page of at most 1000 rows at a time', async () => {
      const { sql, clock } = await auditLog();
      // 1500 rows in one millisecond, so that a page ends among rows of the same time; then one 10 seconds earlier,
      // as another replica's clock may write it; then 999 more, each a millisecond later.
      await appendMany(sql, clock.now, 2500, (i) => {
        if (i === 1501) clock.advance(-10_000);
        if (i === 1502) clock.advance(10_000);
        if (i > 1501) clock.advance(1);
        return { correlationId: `c-${i}` };
      });
      const { sql: recorded, reads } = recording(sql);
      const log = new AuditLog(recorded);

      const ids = (await collect(log.since(new Date(0)))).map((event) => event.id);

      expect(ids).toEqual([
        1501,
        ...Array.from({ length: 1500 }, (_, i) => i + 1),
        ...Array.from({ length: 999 }, (_, i) => i + 1502),
      ]);
      expect(reads.map((read) => read.rows)).toEqual([1000, 1000, 500]);

      reads.length = 0;
      const bounded = await collect(
        log.since(new Date('2026-11-01T09:00:00.000Z'), new Date('2026-11-01T09:00:00.500Z')),
      );
      expect(bounded.map((event) => event.id)).toEqual([
        ...Array.from({ length: 1500 }, (_, i) => i + 1),
        ...Array.from({ length: 499 }, (_, i) => i + 1502),
      ]);
      expect(reads.map((read) => read.rows)).toEqual([1000, 999]);
    });

    it('since: holds nothing between pages, so that appends go on and the database closes mid-export', async () => {
      const { sql, log } = await auditLog();
      for (let i = 1; i <= 5; i++) await log.append(entry({ correlationId: `c-${i}` }));

      const stream = log.since(new Date(0));
      expect((await stream.next()).value?.correlationId).toBe('c-1');
      expect((await log.append(entry({ correlationId: 'c-6' }))).id).toBe(6);
      await stream.return(undefined);
      await expect(sql.close()).resolves.toBeUndefined();
    });
  });

  describe('secrets never reach the database', () => {
    it('stores redacted parameters only, in every row', async () => {
      const { sql, log } = await auditLog();
      await log.append(entry({ action: 'agent.create', params: { name: 'Sales', agent_token: SECRETS[0] } }));
      await log.append(entry({ params: { request: { headers: [{ API_KEY: SECRETS[1] }] } } }));
      await log.append(entry({ params: { users: [{ login: 'ada', Password: SECRETS[2] }] } }));

      const rows = JSON.stringify(await sql.all('SELECT * FROM audit_events'));
      expect(rows).toContain('Sales');
      expect(rows.match(/\[redacted\]/g)).toHaveLength(3);
      for (const secret of SECRETS) expect(rows).not.toContain(secret);
    });
  });

  // How fast at 1,000,000 rows is measured by the benchmark; here, that the queries need no scan or sort.
  describe('at scale', () => {
    it('answers recent(), exports and look-ups by correlation id from indexes, without a sort', async () => {
      const sql = await temp.open();
      await fill(sql, 20_000, new Date('2026-11-01T09:00:01.000Z'));
      expect(await verifyChain(sql)).toMatchObject({ ok: true, rows: 20_000 });
      if (engine === 'postgres') await sql.run('ANALYZE audit_events');
      const { sql: recorded, reads } = recording(sql);
      const log = new AuditLog(recorded);

      const latest = await log.recent(MAX_RECENT);
      await log.lastOutcome('c-1');
      const exported = log.since(new Date('2026-11-01T10:00:00.000Z'));
      for (let i = 0; i < 1500; i++) await exported.next();
      await exported.return(undefined);

      expect(latest).toHaveLength(MAX_RECENT);
      expect(latest[0]?.correlationId).toBe('c-20000');
      expect(reads).toHaveLength(4);
      const [recent, lastOutcome, firstPage, nextPage] = await Promise.all(
        reads.map((read) => planOf(sql, read.text, read.params)),
      );
      expect(recent).not.toMatch(SORTS);
      expect(lastOutcome).toMatch(/audit_events_by_correlation/);
      for (const page of [firstPage, nextPage]) {
        expect(page).toMatch(/audit_events_by_time/);
        expect(page).not.toMatch(SORTS);
      }
    });

    it("answers an agent's history from indexes, the agent a route left included, without reading the table", async () => {
      const sql = await temp.open();
      await fill(sql, 20_000, new Date('2026-11-01T09:00:01.000Z'), (n) =>
        n % 1000 === 999
          ? {
              action: 'routing.map',
              target: `+1555010${String(n).padStart(5, '0')}`,
              params: JSON.stringify({ agentId: `agt_${n}`, previousAgentId: 'agt_left' }),
              outcome: 'succeeded',
            }
          : {},
      );
      if (engine === 'postgres') await sql.run('ANALYZE audit_events');
      const { sql: recorded, reads } = recording(sql);

      const left = await new AuditLog(recorded).history({ agentId: 'agt_left' }, undefined, 21);

      expect(left.map((event) => event.id)).toEqual(Array.from({ length: 20 }, (_, i) => 20_000 - i * 1000));
      const [history] = reads;
      const plan = await planOf(sql, history?.text ?? '', history?.params);
      expect(plan).toMatch(/audit_events_by_previous_agent/);
      expect(plan).not.toMatch(/SCAN audit_events(?! USING)|Seq Scan/);
    });
  });
});

describe('redactParams', () => {
  it('hides secret-looking keys in any case and spelling, at any depth, inside arrays too', () => {
    const redacted = redactParams({
      name: 'Support line',
      agent_token: 'tok-1',
      AGENT_TOKEN: 'tok-2',
      agentToken: 'tok-3',
      apiKey: 'key-1',
      'X-Api-Key': 'key-2',
      headers: { Authorization: 'Bearer abc' },
      users: [{ id: 'U1', Password: 'pw-1' }, [{ client_secret: 'sec-1' }]],
      deep: { a: { b: { c: { token: 'tok-4', keep: 'yes' } } } },
    });

    expect(redacted).toEqual({
      name: 'Support line',
      agent_token: '[redacted]',
      AGENT_TOKEN: '[redacted]',
      agentToken: '[redacted]',
      apiKey: '[redacted]',
      'X-Api-Key': '[redacted]',
      headers: { Authorization: '[redacted]' },
      users: [{ id: 'U1', Password: '[redacted]' }, [{ client_secret: '[redacted]' }]],
      deep: { a: { b: { c: { token: '[redacted]', keep: 'yes' } } } },
    });
  });

  it('hides a secret key whatever its value holds, objects included', () => {
    expect(redactParams({ secret: { nested: 'x' }, token: null, password: ['a'] })).toEqual({
      secret: '[redacted]',
      token: '[redacted]',
      password: '[redacted]',
    });
  });

  it('keeps ordinary values, and stores what JSON would (dates as ISO text, bigints as text)', () => {
    const input = { phoneNumber: '+15550100', count: 3, ok: true, none: null, when: new Date(0), big: 12n };
    expect(redactParams(input)).toEqual({
      phoneNumber: '+15550100',
      count: 3,
      ok: true,
      none: null,
      when: '1970-01-01T00:00:00.000Z',
      big: '12',
    });
  });

  it('truncates long strings at any depth and leaves the input untouched', () => {
    const long = 'x'.repeat(2000);
    const input = { list: [{ note: long }] };

    expect(redactParams(input)).toEqual({ list: [{ note: `${'x'.repeat(500)}…[truncated 1500 characters]` }] });
    expect(input.list[0]?.note).toBe(long);
  });

  it('stops at a cycle instead of recursing forever', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(JSON.stringify(redactParams(cyclic))).toContain('[too deep]');
  });
});

// On the SQLite half of the matrix only: what a file holds.
describe.runIf(ENGINES.includes('sqlite'))('secrets never reach the database file', () => {
  const temp = useTempDatabases('sqlite');

  it('keeps nothing of a secret in the SQLite file or its WAL', async () => {
    const path = temp.path();
    const sql = await temp.open();
    const log = new AuditLog(sql);

    await log.append(entry({ action: 'agent.create', params: { name: 'Sales', agent_token: SECRETS[0] } }));
    await log.append(entry({ params: { request: { headers: [{ API_KEY: SECRETS[1] }] } } }));
    await log.append(entry({ params: { users: [{ login: 'ada', Password: SECRETS[2] }] } }));
    await sql.close();

    const files = [path, `${path}-wal`].filter(existsSync).map((file) => readFileSync(file).toString('latin1'));
    expect(files.join('')).toContain('Sales'); // the reading works: stored text is plainly visible
    for (const secret of SECRETS) expect(files.join('')).not.toContain(secret);
  });
});
