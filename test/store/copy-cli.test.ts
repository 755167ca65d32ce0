import Sqlite from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { LATEST_VERSION } from '../../src/store/migrations.js';
import { openEngine, storeOn } from '../../src/store/open-store.js';
import type { Sql, SqlEngine } from '../../src/store/sql.js';
import { fill } from './audit-support.js';
import { manualClock, runCli, useTempDatabases } from './helpers.js';

const copy = (args: string[], env?: Record<string, string>) => runCli('src/store/copy-cli.ts', args, env);

const PASSWORD = 's3cret-pw';

/** A row in every table of the app, written by its own repositories, and audit rows across many insert batches. */
async function writeEveryTable(sql: SqlEngine): Promise<void> {
  const clock = manualClock();
  const store = await storeOn(sql, { now: clock.now });
  await store.audit.append({
    actorId: 'U0123ABC',
    actorName: 'Zoë "ada" O\'Neil',
    teamId: 'T0001',
    channelId: 'C0001',
    source: 'command',
    action: 'number.buy',
    target: '+15550100',
    params: { phoneNumber: '+15550100', agent_token: 'tok-redacted', note: 'line one\nline two ☎' },
    outcome: 'requested',
    correlationId: 'corr-1',
  });
  clock.advance(1000);
  await store.audit.append({
    actorId: 'U0123ABC',
    source: 'button',
    action: 'number.buy',
    outcome: 'failed',
    errorCode: 'conflict',
    errorMessage: 'Number taken',
    correlationId: 'corr-1',
  });
  await store.confirmations.create({
    change: { kind: 'number.buy', number: '+15550100' },
    requestedBy: 'U0123ABC',
    correlationId: 'corr-1',
    context: { channelId: 'C0001', source: 'command' },
  });
  await store.approvals.create({
    correlationId: 'corr-2',
    change: { kind: 'number.release', numberId: 'num-2', number: '+15550101' },
    requester: { userId: 'U0123ABC', source: 'button' },
    ttlMs: 60 * 60 * 1000,
  });
  await store.intents.open({
    correlationId: 'corr-1',
    action: 'number.buy',
    change: { kind: 'number.buy', number: '+15550100' },
    actor: { userId: 'U0123ABC', source: 'button' },
    replyAddress: 'https://hooks.slack.com/actions/T0001/1/abc',
  });
  await store.routes.set({ phoneNumber: '+15550100', agentId: 'agent-1', numberId: 'num-1', updatedBy: 'U0123ABC' });
  await store.routes.set({ phoneNumber: '+15550102', agentId: 'agent-2', updatedBy: 'U0123ABC' });
  await store.facts.rememberNumber('+15550100', ['voice', 'sms']);
  await store.facts.rememberAgent('agent-1', 'en-GB');
  await store.tags.set('+15550100', { labels: ['de', 'team:sales'], owner: 'S0SALES' }, 'U0123ABC');
  await store.digests.add('C0QUIET', { action: 'number.buy', target: '+15550100' }, clock.now());
  await store.transaction((tx) => tx.digests.posted('C0QUIET', [], clock.now()));
  await store.snapshot.replace(
    { numbers: new Map([['+15550100', 'num-1']]), agents: new Map([['agent-1', 'Front desk']]) },
    clock.now(),
  );
  await store.deliveries.firstSeen('delivery-1');
  await store.transaction((tx) => tx.settings.write(new Map([['typedRelease', true]]), 'U0123ABC'));
  await store.openAnnouncements.keep('U0123ABC', {
    channelId: 'C0001',
    messageTs: '1700000000.000100',
    changes: [{ action: 'number.buy', target: '+15550100' }],
    postedAt: clock.now().toISOString(),
  });
  await store.leases.take('background', 'replica-1', 60_000);
  await store.batches.create({
    id: 'batch-1',
    kind: 'routing.map',
    plan: { request: { kind: 'routing.map', agentId: 'agent-1' }, totals: { change: 1, taken: 0, unchanged: 0 } },
    requestedBy: 'U0123ABC',
    actor: { userId: 'U0123ABC', source: 'command' },
    items: [
      {
        change: { kind: 'routing.map', phoneNumber: '+15550102', agentId: 'agent-1', agentName: 'Desk' },
        state: 'pending',
      },
    ],
  });
  await store.steps.claim({
    executionId: 'Fx1',
    workflowExecutionId: 'Wx1',
    callbackId: 'route_numbers',
    userId: 'U1',
  });
  await store.steps.link('Fx1', 'batch-1');
  await fill(sql, 2500, new Date('2027-01-01T00:00:00.000Z'));
  // A read told from the log checkpoints the chain's end it verified.
  await store.audit.verifyToEnd();
}

/** The app's tables, as the file's schema lists them (and as the copy names them): every one but SQLite's own. */
async function tablesOf(sql: Sql): Promise<string[]> {
  const rows = await sql.all<{ name: string }>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
  );
  return rows.map((row) => row.name);
}

/** Every row of each table, as sorted JSON with sorted keys: equal on both engines when the rows are equal. */
async function contents(sql: Sql, tables: string[]): Promise<Record<string, string[]>> {
  const entries = await Promise.all(
    tables.map(async (table) => {
      const rows = await sql.all<Record<string, unknown>>(`SELECT * FROM ${table}`);
      const sorted = rows.map((row) =>
        JSON.stringify(Object.entries(row).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      );
      return [table, sorted.sort()] as const;
    }),
  );
  return Object.fromEntries(entries);
}

const auditIdsAndHashes = (sql: Sql) =>
  sql.all<{ id: number; hash: string }>('SELECT id, hash FROM audit_events ORDER BY id');

const rowsText = (count: number) => `${count} row${count === 1 ? '' : 's'}`;

describe.runIf(process.env.TEST_DATABASE_ENGINE === 'postgres')('npm run db:copy', () => {
  const temp = useTempDatabases('postgres');
  /** The SQLite file to copy. */
  let from: string;
  /** The empty Postgres database to copy into. */
  let to: string;
  /** How the copy names the target in what it prints. */
  let label: string;

  /** Opens the file as the app does, lets `work` write to it, and closes it, as an app stopped before the copy. */
  async function onFile(work: (sql: SqlEngine) => Promise<unknown>): Promise<void> {
    const sql = await openEngine({ kind: 'sqlite', path: from });
    try {
      await work(sql);
    } finally {
      await sql.close();
    }
  }

  /** Reads the file while `read` runs, without keeping it open for the copy. */
  async function readSource<T>(read: (sql: SqlEngine) => Promise<T>): Promise<T> {
    let value: T | undefined;
    await onFile(async (sql) => {
      value = await read(sql);
    });
    return value as T;
  }

  beforeEach(async () => {
    from = temp.path('voice-ops.db');
    const target = await temp.target('target');
    if (target.kind !== 'postgres') throw new Error('a Postgres target was expected');
    to = target.url;
    const url = new URL(to);
    label = `the Postgres database "${url.pathname.slice(1)}" on ${url.host}`;
  });

  describe('a file the app wrote, into an empty database', () => {
    beforeEach(() => onFile(writeEveryTable));

    it('copies every table row for row, says how many rows each had, and verifies the copy', async () => {
      const tables = await readSource(tablesOf);
      const expected = await readSource((sql) => contents(sql, tables));

      const result = await copy(['--from', from, '--to', to]);

      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const target = await temp.open('target');
      expect(await contents(target, tables)).toEqual(expected);
      // The fixture covers the whole schema: a table it left empty would prove nothing about its copy.
      for (const table of tables) expect(expected[table], table).not.toHaveLength(0);
      const counts = tables.map((table) => expected[table]?.length ?? 0);
      const total = counts.reduce((sum, count) => sum + count, 0);
      const last = (await auditIdsAndHashes(target)).at(-1);
      expect(result.stdout).toBe(
        [
          ...tables.map((table, index) => `${table}: ${rowsText(counts[index] ?? 0)}`),
          `Copied ${total} rows in ${tables.length} tables from ${from} to ${label}.`,
          `Verified: every table has as many rows as in ${from}, and the audit chain verifies on Postgres ` +
            `(${last?.id} rows, last row ${last?.id}, hash ${last?.hash}).`,
          '',
        ].join('\n'),
      );
    });

    it("keeps the audit log's ids and hashes, so that `npm run audit -- --verify` verifies it on Postgres", async () => {
      const audit = await readSource(auditIdsAndHashes);

      expect((await copy(['--from', from, '--to', to])).code).toBe(0);

      expect(await auditIdsAndHashes(await temp.open('target'))).toEqual(audit);
      const last = audit.at(-1);
      expect(await runCli('src/store/export-cli.ts', ['--verify'], { DATABASE_URL: to })).toEqual({
        code: 0,
        stderr: '',
        stdout: `${audit.length} rows verified\nlast row ${last?.id}, hash ${last?.hash}\n`,
      });
    });

    it('takes the target from DATABASE_URL when --to is left out', async () => {
      const result = await copy(['--from', from], { DATABASE_URL: to });

      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain(`from ${from} to ${label}.\n`);
    });

    it('refuses a second copy into the database it filled, and changes nothing there', async () => {
      expect((await copy(['--from', from, '--to', to])).code).toBe(0);
      const tables = await readSource(tablesOf);
      const target = await temp.open('target');
      const before = await contents(target, tables);

      const result = await copy(['--from', from, '--to', to]);

      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr:
          `db:copy: ${label} already holds the app's data (in ${tables.join(', ')}): the copy goes only into an ` +
          'empty database, so nothing was copied\n',
      });
      expect(await contents(target, tables)).toEqual(before);
    });

    it('refuses a database the app has written one row to', async () => {
      const target = await temp.open('target');
      await (await storeOn(target)).leases.take('background', 'replica-1', 60_000);

      const result = await copy(['--from', from, '--to', to]);

      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `db:copy: ${label} already holds the app's data (in leases): the copy goes only into an empty database, so ` +
          'nothing was copied\n',
      );
      expect(await target.get('SELECT COUNT(*) AS count FROM audit_events')).toEqual({ count: 0 });
    });

    it('copies all or nothing: a row Postgres refuses leaves every table empty', async () => {
      // Valid JSON to SQLite; Postgres's jsonb has no U+0000. confirmations is copied after audit_events.
      await onFile((sql) =>
        sql.run(
          `INSERT INTO confirmations (id, kind, params, requested_by, correlation_id, context, created_at, expires_at)
           VALUES ('c-nul', 'number.buy', '{"note":"\\u0000"}', 'U0123ABC', 'corr-9', '{}', '2026-11-01', '2026-11-02')`,
        ),
      );
      const tables = await readSource(tablesOf);

      const result = await copy(['--from', from, '--to', to]);

      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^db:copy: cannot copy confirmations into .+ \(.*\): nothing was copied\n$/);
      const target = await temp.open('target');
      expect(Object.values(await contents(target, tables)).flat()).toEqual([]);
    });

    it('refuses a table that Postgres lacks, copying nothing', async () => {
      await onFile(async (sql) => {
        await sql.run('CREATE TABLE notes (body TEXT)');
        await sql.run("INSERT INTO notes VALUES ('hello')");
      });

      const result = await copy(['--from', from, '--to', to]);

      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `db:copy: ${from} has a table notes that ${label} lacks: nothing was copied\n`,
      });
      expect(await (await temp.open('target')).get('SELECT COUNT(*) AS count FROM audit_events')).toEqual({ count: 0 });
    });
  });

  it('asks for a file at an older schema to be migrated by the app first, on the file', async () => {
    await onFile(async () => {});
    const file = new Sqlite(from);
    file.pragma(`user_version = ${LATEST_VERSION - 1}`);
    file.close();

    const result = await copy(['--from', from, '--to', to]);

    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `db:copy: ${from} has schema version ${LATEST_VERSION - 1}, older than this code's ${LATEST_VERSION}: start ` +
        `the app once on it (DATABASE_PATH=${from}, DATABASE_URL unset) to migrate it, then copy again\n`,
    });
  });

  it('says so when there is no file', async () => {
    const result = await copy(['--from', from, '--to', to]);

    expect(result).toEqual({ code: 1, stdout: '', stderr: `db:copy: there is no database at ${from}\n` });
  });

  it('says in one line that it cannot reach the server, naming host and database, never the password', async () => {
    await onFile(async () => {});

    const result = await copy(['--from', from, '--to', `postgresql://voice:${PASSWORD}@127.0.0.1:1/voice_ops`]);

    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(
        /^db:copy: cannot reach the Postgres database "voice_ops" on 127\.0\.0\.1:1 \(.*ECONNREFUSED.*\): check --to \(or DATABASE_URL\) and that the server takes connections\n$/,
      ),
    });
    expect(result.stderr).not.toContain(PASSWORD);
  });

  it('prints its usage for --help', async () => {
    const result = await copy(['--help']);

    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^Usage: npm run db:copy -- --from PATH \[--to postgres:/);
  });

  it.each([
    { args: [], message: '--from is required: the SQLite database file to copy; --to is required when' },
    { args: ['--from', 'x.db'], message: '--to is required when DATABASE_URL is not set' },
    { args: ['--from', 'x.db', '--to', `mysql://root:${PASSWORD}@db/voice`], message: '--to must be a postgres://' },
    { args: ['--from', 'x.db', `postgres://voice:${PASSWORD}@db/voice`], message: 'takes only options: --from PATH' },
    { args: ['--from', 'x.db', '--bogus'], message: "Unknown option '--bogus'" },
  ])('refuses $args with its usage and exit code 2, never echoing a password', async ({ args, message }) => {
    const result = await copy(args);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^db:copy: .+\n\nUsage: npm run db:copy /);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain(PASSWORD);
  });

  it('refuses a DATABASE_URL that is not a Postgres URL with exit code 2, never echoing it', async () => {
    const result = await copy(['--from', 'x.db'], { DATABASE_URL: `mysql://root:${PASSWORD}@db/voice` });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('DATABASE_URL must be a postgres:// or postgresql:// URL');
    expect(result.stderr).not.toContain(PASSWORD);
  });
});
