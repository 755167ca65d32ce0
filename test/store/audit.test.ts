import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type AuditEntry, AuditLog, MAX_RECENT, redactParams } from '../../src/store/audit.js';
import { openDatabase } from '../../src/store/db.js';
import { manualClock, useTempDatabases } from './helpers.js';

const temp = useTempDatabases();

const entry = (overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  actorId: 'U0123ABC',
  source: 'command',
  action: 'number.buy',
  outcome: 'requested',
  correlationId: 'corr-1',
  ...overrides,
});

function auditLog() {
  const clock = manualClock();
  const db = temp.open();
  return { db, clock, log: new AuditLog(db, { now: clock.now }) };
}

describe('AuditLog.append', () => {
  it('stores every field and returns the stored row, timed by the clock in UTC', () => {
    const { log } = auditLog();
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

    const stored = log.append(full);

    expect(stored).toEqual({
      ...full,
      id: 1,
      at: '2026-11-01T09:00:00.000Z',
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(log.recent(1)).toEqual([stored]);
  });

  it('reads absent optional fields back as absent, not as null', () => {
    const { log } = auditLog();
    const stored = log.append(entry());
    expect(stored.actorName).toBeUndefined();
    expect(stored.params).toBeUndefined();
    expect(stored.errorMessage).toBeUndefined();
  });

  it('truncates a very long target and error message', () => {
    const { log } = auditLog();
    const stored = log.append(entry({ target: 't'.repeat(10_000), errorMessage: 'e'.repeat(10_000) }));
    expect(stored.target).toBe(`${'t'.repeat(500)}…[truncated 9500 characters]`);
    expect(stored.errorMessage).toBe(`${'e'.repeat(500)}…[truncated 9500 characters]`);
  });
});

describe('AuditLog reads', () => {
  it('recent: newest first, clamped to 1…200', () => {
    const { db, log } = auditLog();
    db.transaction(() => {
      for (let i = 1; i <= 250; i++) log.append(entry({ correlationId: `c-${i}` }));
    })();

    expect(log.recent(3).map((event) => event.correlationId)).toEqual(['c-250', 'c-249', 'c-248']);
    expect(log.recent(1000)).toHaveLength(MAX_RECENT);
    expect(log.recent(1000).at(-1)?.correlationId).toBe('c-51');
    expect(log.recent(0)).toHaveLength(1);
    expect(log.recent(-5)).toHaveLength(1);
    expect(log.recent(Number.NaN)).toHaveLength(1);
    expect(log.recent(2.9)).toHaveLength(2);
  });

  it('since: from inclusive, until exclusive, oldest first', () => {
    const { log, clock } = auditLog();
    for (const name of ['day1', 'day2', 'day3', 'day4']) {
      log.append(entry({ correlationId: name }));
      clock.advance(24 * 60 * 60 * 1000);
    }
    const names = (events: Iterable<{ correlationId: string }>) => [...events].map((event) => event.correlationId);

    expect(names(log.since(new Date('2026-11-02T09:00:00.000Z')))).toEqual(['day2', 'day3', 'day4']);
    expect(names(log.since(new Date('2026-11-02T09:00:00.001Z')))).toEqual(['day3', 'day4']);
    expect(names(log.since(new Date('2026-11-02'), new Date('2026-11-04T09:00:00.000Z')))).toEqual(['day2', 'day3']);
    expect(names(log.since(new Date('2027-01-01')))).toEqual([]);
  });

  it('since: streams row by row, and stopping early releases the connection', () => {
    const { db, log } = auditLog();
    for (let i = 1; i <= 5; i++) log.append(entry({ correlationId: `c-${i}` }));

    const stream = log.since(new Date(0));
    expect(stream.next().value?.correlationId).toBe('c-1');
    expect(() => db.close()).toThrow(/busy/); // the statement is still open mid-stream…
    stream.return?.();
    expect(() => db.close()).not.toThrow(); // …and closed once the consumer stops
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

describe('secrets never reach the database file', () => {
  it('stores redacted parameters only: not in any row, not in the file or its WAL', () => {
    const path = temp.path('secrets.db');
    const db = temp.track(openDatabase(path));
    const log = new AuditLog(db);
    const secrets = ['agent-token-4d3c2b1a', 'api-key-9f8e7d6c', 'hunter2-password'];

    log.append(entry({ action: 'agent.create', params: { name: 'Sales', agent_token: secrets[0] } }));
    log.append(entry({ params: { request: { headers: [{ API_KEY: secrets[1] }] } } }));
    log.append(entry({ params: { users: [{ login: 'ada', Password: secrets[2] }] } }));

    const rows = JSON.stringify(db.prepare('SELECT * FROM audit_events').all());
    expect(rows.match(/\[redacted\]/g)).toHaveLength(3);
    db.close();

    const files = [path, `${path}-wal`].filter(existsSync).map((file) => readFileSync(file).toString('latin1'));
    expect(files.join('')).toContain('Sales'); // the reading works: stored text is plainly visible
    for (const secret of secrets) expect(files.join('')).not.toContain(secret);
  });
});

// How fast at 1,000,000 rows is measured by the benchmark; here, that the queries need no scan or sort.
describe('at scale', () => {
  it('answers recent(), exports and look-ups by correlation id from indexes, without a sort', () => {
    const { db, log, clock } = auditLog();
    db.transaction(() => {
      for (let i = 1; i <= 20000; i++) {
        clock.advance(1000);
        log.append(entry({ action: 'agent.list', outcome: 'succeeded', correlationId: `c-${i}` }));
      }
    })();

    const latest = log.recent(MAX_RECENT);

    expect(latest).toHaveLength(MAX_RECENT);
    expect(latest[0]?.correlationId).toBe('c-20000');

    const plan = (sql: string, ...params: unknown[]) =>
      db
        .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params)
        .map((row) => row.detail)
        .join('; ');
    expect(plan('SELECT * FROM audit_events ORDER BY id DESC LIMIT 200')).not.toMatch(/TEMP B-TREE/);
    expect(plan('SELECT * FROM audit_events WHERE correlation_id = ? ORDER BY id', 'c-1')).toMatch(
      /USING INDEX audit_events_by_correlation/,
    );
    const since = plan(
      'SELECT * FROM audit_events WHERE at >= @from AND (@until IS NULL OR at < @until) ORDER BY at, id',
      { from: '2026-01-02', until: null },
    );
    expect(since).toMatch(/USING INDEX audit_events_by_time/);
    expect(since).not.toMatch(/TEMP B-TREE/);
  });
});
