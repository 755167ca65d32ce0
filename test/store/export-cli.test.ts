import { beforeEach, describe, expect, it } from 'vitest';
import { type AuditEntry, AuditLog } from '../../src/store/audit.js';
import { CHAINED_COLUMNS, type ChainedRow, chainHash } from '../../src/store/audit-chain.js';
import { LATEST_VERSION } from '../../src/store/migrations.js';
import type { Sql } from '../../src/store/sql.js';
import { allowAuditEdits, fill } from './audit-support.js';
import { ENGINES, manualClock, runCli, useTempDatabases } from './helpers.js';

const runAudit = (args: string[], env?: Record<string, string>) => runCli('src/store/export-cli.ts', args, env);

const base: AuditEntry = {
  actorId: 'U0123ABC',
  actorName: 'ada',
  teamId: 'T0001',
  channelId: 'C0001',
  source: 'command',
  action: 'number.buy',
  outcome: 'requested',
  correlationId: 'corr-1',
};

/** Each row's hash, by id. */
let hashes: string[];

/** Four rows around November 2026, each row's hash kept in `hashes`. */
async function writeLog(sql: Sql): Promise<void> {
  hashes = [];
  const clock = manualClock();
  const log = new AuditLog(sql, { now: clock.now });
  const at = async (iso: string, entry: Partial<AuditEntry>) => {
    clock.set(iso);
    const stored = await log.append({ ...base, ...entry });
    hashes[stored.id] = stored.hash;
  };
  await at('2026-10-31T23:59:59.999Z', { action: 'agent.list', outcome: 'succeeded', correlationId: 'before' });
  await at('2026-11-01T00:00:00.000Z', {
    actorName: '=HYPERLINK("http://evil")',
    target: '+15550100',
    params: { phoneNumber: '+15550100', agent_token: 'tok-must-not-leak' },
  });
  await at('2026-11-15T12:00:00.000Z', {
    source: 'button',
    target: '+15550100',
    outcome: 'failed',
    errorCode: 'conflict',
    errorMessage: 'Number taken, "sorry"\nTry another',
  });
  await at('2026-12-01T00:00:00.000Z', { action: 'routing.map', outcome: 'succeeded', correlationId: 'december' });
}

const HEADER =
  'id,at,actorId,actorName,teamId,channelId,source,action,target,outcome,errorCode,errorMessage,correlationId,params,' +
  'hash\r\n';
const row2 = () =>
  '2,2026-11-01T00:00:00.000Z,U0123ABC,"\'=HYPERLINK(""http://evil"")",T0001,C0001,command,number.buy,\'+15550100,' +
  `requested,,,corr-1,"{""phoneNumber"":""+15550100"",""agent_token"":""[redacted]""}",${hashes[2]}\r\n`;
const row3 = () =>
  "3,2026-11-15T12:00:00.000Z,U0123ABC,ada,T0001,C0001,button,number.buy,'+15550100,failed,conflict," +
  `"Number taken, ""sorry""\nTry another",corr-1,,${hashes[3]}\r\n`;
const row4 = () =>
  `4,2026-12-01T00:00:00.000Z,U0123ABC,ada,T0001,C0001,command,routing.map,,succeeded,,,december,,${hashes[4]}\r\n`;

describe.each(ENGINES)('on %s', (engine) => {
  const temp = useTempDatabases(engine);
  /** How the CLI is pointed at the test's database: --db for a file, DATABASE_URL for Postgres. */
  let where: { args: string[]; env: Record<string, string> };

  beforeEach(async () => {
    const target = await temp.target('audit.db');
    where =
      target.kind === 'sqlite'
        ? { args: ['--db', target.path], env: {} }
        : { args: [], env: { DATABASE_URL: target.url } };
    await writeLog(await temp.open('audit.db'));
  });

  const audit = (args: string[]) => runAudit([...where.args, ...args], where.env);

  /** What someone holding the database can do: turn the triggers off and rewrite rows with any SQL. */
  async function tamper(work: (sql: Sql) => Promise<unknown>): Promise<void> {
    const sql = await temp.open('audit.db');
    await allowAuditEdits(sql);
    await work(sql);
  }

  describe('npm run audit', () => {
    it('exports CSV from --since on: header, quoting, neutralised formulas, redacted params', async () => {
      const result = await audit(['--since', '2026-11-01', '--format', 'csv']);

      expect(result).toEqual({ code: 0, stderr: '', stdout: HEADER + row2() + row3() + row4() });
    });

    it('stops before --until, and takes ISO timestamps with a zone', async () => {
      const result = await audit(['--since', '2026-11-01T01:00:00+01:00', '--until', '2026-12-01', '--format', 'csv']);

      expect(result).toEqual({ code: 0, stderr: '', stdout: HEADER + row2() + row3() });
    });

    it('exports JSON lines, one complete object per event', async () => {
      const result = await audit(['--since', '2026-11-02', '--format', 'jsonl']);

      expect(result.code).toBe(0);
      const lines = result.stdout.split('\n');
      expect(lines.at(-1)).toBe('');
      expect(lines.slice(0, -1).map((line) => JSON.parse(line))).toEqual([
        {
          id: 3,
          at: '2026-11-15T12:00:00.000Z',
          actorId: 'U0123ABC',
          actorName: 'ada',
          teamId: 'T0001',
          channelId: 'C0001',
          source: 'button',
          action: 'number.buy',
          target: '+15550100',
          outcome: 'failed',
          errorCode: 'conflict',
          errorMessage: 'Number taken, "sorry"\nTry another',
          correlationId: 'corr-1',
          params: null,
          hash: hashes[3],
        },
        expect.objectContaining({ id: 4, correlationId: 'december', params: null, hash: hashes[4] }),
      ]);
    });

    it('exports more rows than a page holds, each once, in order, and verifies them all', async () => {
      await fill(await temp.open('audit.db'), 2100, new Date('2027-01-01T00:00:00.000Z'));

      const exported = await audit(['--since', '2027-01-01', '--format', 'jsonl']);
      const verified = await audit(['--verify']);

      expect(exported.code).toBe(0);
      const ids = exported.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).id);
      expect(ids).toEqual(Array.from({ length: 2100 }, (_, i) => i + 5));
      expect(verified).toMatchObject({ code: 0, stdout: expect.stringMatching(/^2104 rows verified\n/) });
    });
  });

  describe('npm run audit -- --verify', () => {
    it('recomputes every hash of an intact log: the count, the last hash, exit code 0', async () => {
      const result = await audit(['--verify']);

      expect(result).toEqual({ code: 0, stderr: '', stdout: `4 rows verified\nlast row 4, hash ${hashes[4]}\n` });
    });

    it('finds a row edited with the triggers off, and names it', async () => {
      await tamper((sql) => sql.run("UPDATE audit_events SET outcome = 'succeeded', error_code = NULL WHERE id = 3"));

      const result = await audit(['--verify']);

      expect(result.code).toBe(1);
      expect(result.stdout).toBe(
        'Chain broken at row 3: its content and the hash of the row before it do not give its hash: it was changed ' +
          'after being written, or it was inserted or moved here. 2 rows verified before it.\n',
      );
    });

    it('finds a deleted row', async () => {
      await tamper((sql) => sql.run('DELETE FROM audit_events WHERE id = 2'));

      const result = await audit(['--verify']);

      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(
        /^Chain broken at row 3: row 2 is missing before it: deleted after being written\./,
      );
    });

    it('finds two rows swapped', async () => {
      await tamper(async (sql) => {
        await sql.run('UPDATE audit_events SET id = -id WHERE id IN (2, 3)');
        await sql.run('UPDATE audit_events SET id = 5 + id WHERE id < 0');
      });

      const result = await audit(['--verify']);

      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(
        /^Chain broken at row 2: its content and the hash of the row before it do not give/,
      );
    });

    it('finds a row moved before the first, to an id below any other', async () => {
      await tamper((sql) => sql.run('UPDATE audit_events SET id = -1 WHERE id = 4'));

      const result = await audit(['--verify']);

      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(
        /^Chain broken at row -1: its content and the hash .* 0 rows verified before it\.\n$/,
      );
    });

    it('finds a row slipped into the past, even with a hash that chains it to the row before', async () => {
      await tamper(async (sql) => {
        for (const id of [4, 3]) await sql.run('UPDATE audit_events SET id = id + 1 WHERE id = ?', [id]);
        const forged: ChainedRow = Object.fromEntries(CHAINED_COLUMNS.map((column) => [column, null])) as ChainedRow;
        Object.assign(forged, {
          id: 3,
          at: '2026-11-10T00:00:00.000Z',
          actor_id: 'U0123ABC',
          source: 'command',
          action: 'number.release',
          outcome: 'succeeded',
          correlation_id: 'forged',
        });
        const columns = [...CHAINED_COLUMNS, 'hash'];
        await sql.run(
          `INSERT INTO audit_events (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
          { ...(forged as Record<string, string | number | null>), hash: chainHash(hashes[2] as string, forged) },
        );
      });

      const result = await audit(['--verify']);

      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^Chain broken at row 4: .* 3 rows verified before it\.\n$/);
    });

    it('refuses export options beside --verify, with exit code 2', async () => {
      const result = await audit(['--verify', '--format', 'csv']);

      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: 'audit: --verify takes only --db, not --format (see --help)\n',
      });
    });
  });
});

// Once per run of the matrix, on its SQLite half: a file's path, and what needs no database at all.
describe.runIf(ENGINES.includes('sqlite'))('npm run audit on a SQLite file', () => {
  const temp = useTempDatabases('sqlite');
  let dbPath: string;

  beforeEach(async () => {
    dbPath = temp.path('audit.db');
    await writeLog(await temp.open('audit.db'));
  });

  it('finds the database through DATABASE_PATH when --db is absent', async () => {
    const result = await runAudit(['--since', '2026-12-01', '--format', 'csv'], { DATABASE_PATH: dbPath });

    expect(result).toEqual({ code: 0, stderr: '', stdout: HEADER + row4() });
  });

  it('reads the file --db names even when DATABASE_URL is set', async () => {
    const result = await runAudit(['--db', dbPath, '--since', '2026-12-01', '--format', 'csv'], {
      DATABASE_URL: 'postgres://voice:s3cret-pw@127.0.0.1:1/voice_ops',
    });

    expect(result).toEqual({ code: 0, stderr: '', stdout: HEADER + row4() });
  });

  it.each([
    {
      problem: 'an impossible date',
      args: ['--since', '2026-13-01', '--format', 'csv'],
      message: '--since must be a date',
    },
    { problem: 'a word for a date', args: ['--since', 'yesterday', '--format', 'csv'], message: 'not "yesterday"' },
    { problem: 'an unknown format', args: ['--since', '2026-11-01', '--format', 'xlsx'], message: '--format must be' },
    { problem: 'no --since', args: ['--format', 'csv'], message: '--since is required' },
    {
      problem: '--until before --since',
      args: ['--since', '2026-11-02', '--until', '2026-11-01', '--format', 'csv'],
      message: '--until must be after --since',
    },
    { problem: 'an unknown option', args: ['--since', '2026-11-01', '--format', 'csv', '-v'], message: "'-v'" },
    { problem: 'a missing value', args: ['--format', 'csv', '--since'], message: "'--since <value>' argument missing" },
  ])('rejects $problem with exit code 2 and one line naming the argument', async ({ args, message }) => {
    const result = await runAudit(['--db', dbPath, ...args]);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).toMatch(/^audit: [^\n]+\n$/); // one line, no stack trace
  });

  it('fails with exit code 1 and a plain message when the database does not exist', async () => {
    const missing = temp.path('missing.db');
    const result = await runAudit(['--db', missing, '--since', '2026-11-01', '--format', 'csv']);

    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `audit: no database at ${missing} (pass --db PATH, or set DATABASE_URL or DATABASE_PATH)\n`,
    });
  });

  it('refuses a DATABASE_URL that is not a Postgres URL with exit code 2, without echoing it', async () => {
    const result = await runAudit(['--verify'], { DATABASE_URL: 'mysql://voice:s3cret-pw@127.0.0.1/voice_ops' });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('DATABASE_URL must be a postgres:// or postgresql:// URL');
    expect(result.stderr).not.toContain('s3cret-pw');
  });

  it('says in one line which server it cannot reach, exit code 1, never with the password', async () => {
    const result = await runAudit(['--verify'], { DATABASE_URL: 'postgresql://voice:s3cret-pw@127.0.0.1:1/voice_ops' });

    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(
        /^audit: cannot reach the Postgres database "voice_ops" on 127\.0\.0\.1:1 \(.*ECONNREFUSED.*\): check DATABASE_URL and that the server takes connections\n$/,
      ),
    });
    expect(result.stderr).not.toContain('s3cret-pw');
  });
});

// On the Postgres half of the matrix: what only a server can answer.
describe.runIf(ENGINES.includes('postgres'))('npm run audit on Postgres', () => {
  const temp = useTempDatabases('postgres');

  async function postgresUrl(): Promise<URL> {
    const target = await temp.target();
    if (target.kind !== 'postgres') throw new Error('a Postgres target was expected');
    return new URL(target.url);
  }

  it('says in one line that the server refused the login, exit code 1, never with the password', async () => {
    const url = await postgresUrl();
    url.username = 'intruder';
    url.password = 's3cret-pw';

    const result = await runAudit(['--verify'], { DATABASE_URL: url.toString() });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      new RegExp(`^audit: cannot reach the Postgres database "[^"]+" on ${url.host} \\(.*intruder.*\\): [^\\n]+\\n$`),
    );
    expect(result.stderr).not.toContain('s3cret-pw');
  });

  it.each([
    { schema: 'none', version: undefined, message: 'has no voice-ops schema: start the app once to create it' },
    {
      schema: 'an older one',
      version: LATEST_VERSION - 1,
      message: `has schema version ${LATEST_VERSION - 1}, older than this code's ${LATEST_VERSION}: start the app once to migrate it`,
    },
    {
      schema: 'a newer one',
      version: LATEST_VERSION + 1,
      message: `has schema version ${LATEST_VERSION + 1}, but this code knows versions up to ${LATEST_VERSION}: run a newer voice-ops`,
    },
  ])('reads only the schema this code knows: refuses $schema with exit code 1', async ({ version, message }) => {
    const url = await postgresUrl();
    if (version !== undefined) {
      await (await temp.open()).run('UPDATE voice_ops_schema SET version = ?', [version]);
    }

    const result = await runAudit(['--verify'], { DATABASE_URL: url.toString() });

    const database = url.pathname.slice(1);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `audit: the Postgres database "${database}" on ${url.host} ${message}\n`,
    });
  });
});
