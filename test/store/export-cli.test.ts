import { spawn } from 'node:child_process';
import { once } from 'node:events';
import Sqlite from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { type AuditEntry, AuditLog } from '../../src/store/audit.js';
import { CHAINED_COLUMNS, type ChainedRow, chainHash } from '../../src/store/audit-chain.js';
import { manualClock, useTempDatabases } from './helpers.js';

const temp = useTempDatabases();

async function runAudit(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/store/export-cli.ts', ...args], {
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = await once(child, 'close');
  return { code, stdout, stderr };
}

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

let dbPath: string;
/** Each row's hash, by id. */
let hashes: string[];

beforeEach(() => {
  dbPath = temp.path('audit.db');
  hashes = [];
  const clock = manualClock();
  const log = new AuditLog(temp.open('audit.db'), { now: clock.now });
  const at = (iso: string, entry: Partial<AuditEntry>) => {
    clock.set(iso);
    const stored = log.append({ ...base, ...entry });
    hashes[stored.id] = stored.hash;
  };
  at('2026-10-31T23:59:59.999Z', { action: 'agent.list', outcome: 'succeeded', correlationId: 'before' });
  at('2026-11-01T00:00:00.000Z', {
    actorName: '=HYPERLINK("http://evil")',
    target: '+15550100',
    params: { phoneNumber: '+15550100', agent_token: 'tok-must-not-leak' },
  });
  at('2026-11-15T12:00:00.000Z', {
    source: 'button',
    target: '+15550100',
    outcome: 'failed',
    errorCode: 'conflict',
    errorMessage: 'Number taken, "sorry"\nTry another',
  });
  at('2026-12-01T00:00:00.000Z', { action: 'routing.map', outcome: 'succeeded', correlationId: 'december' });
});

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

describe('npm run audit', () => {
  it('exports CSV from --since on: header, quoting, neutralised formulas, redacted params', async () => {
    const result = await runAudit(['--db', dbPath, '--since', '2026-11-01', '--format', 'csv']);

    expect(result).toEqual({ code: 0, stderr: '', stdout: HEADER + row2() + row3() + row4() });
  });

  it('stops before --until, and takes ISO timestamps with a zone', async () => {
    const result = await runAudit([
      '--db',
      dbPath,
      '--since',
      '2026-11-01T01:00:00+01:00',
      '--until',
      '2026-12-01',
      '--format',
      'csv',
    ]);

    expect(result).toEqual({ code: 0, stderr: '', stdout: HEADER + row2() + row3() });
  });

  it('exports JSON lines, one complete object per event', async () => {
    const result = await runAudit(['--db', dbPath, '--since', '2026-11-02', '--format', 'jsonl']);

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

  it('finds the database through DATABASE_PATH when --db is absent', async () => {
    const result = await runAudit(['--since', '2026-12-01', '--format', 'csv'], { DATABASE_PATH: dbPath });

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
      stderr: `audit: no database at ${missing} (pass --db PATH or set DATABASE_PATH)\n`,
    });
  });
});

/** What someone holding the file can do: drop the triggers and rewrite rows with any SQL. */
function tamper(sql: (db: Sqlite.Database) => void): void {
  const db = new Sqlite(dbPath);
  try {
    db.exec('DROP TRIGGER audit_events_no_update; DROP TRIGGER audit_events_no_delete');
    db.exec('DROP TRIGGER audit_events_append_only');
    sql(db);
  } finally {
    db.close();
  }
}

describe('npm run audit -- --verify', () => {
  it('recomputes every hash of an intact log: the count, the last hash, exit code 0', async () => {
    const result = await runAudit(['--verify', '--db', dbPath]);

    expect(result).toEqual({ code: 0, stderr: '', stdout: `4 rows verified\nlast row 4, hash ${hashes[4]}\n` });
  });

  it('finds a row edited with the triggers dropped, and names it', async () => {
    tamper((db) => db.exec("UPDATE audit_events SET outcome = 'succeeded', error_code = NULL WHERE id = 3"));

    const result = await runAudit(['--verify', '--db', dbPath]);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      'Chain broken at row 3: its content and the hash of the row before it do not give its hash: it was changed ' +
        'after being written, or it was inserted or moved here. 2 rows verified before it.\n',
    );
  });

  it('finds a deleted row', async () => {
    tamper((db) => db.exec('DELETE FROM audit_events WHERE id = 2'));

    const result = await runAudit(['--verify', '--db', dbPath]);

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^Chain broken at row 3: row 2 is missing before it: deleted after being written\./);
  });

  it('finds two rows swapped', async () => {
    tamper((db) =>
      db.exec('UPDATE audit_events SET id = -id WHERE id IN (2, 3); UPDATE audit_events SET id = 5 + id WHERE id < 0'),
    );

    const result = await runAudit(['--verify', '--db', dbPath]);

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^Chain broken at row 2: its content and the hash of the row before it do not give/);
  });

  it('finds a row slipped into the past, even with a hash that chains it to the row before', async () => {
    tamper((db) => {
      for (const id of [4, 3]) db.prepare('UPDATE audit_events SET id = id + 1 WHERE id = ?').run(id);
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
      db.prepare(`INSERT INTO audit_events (${columns}) VALUES (${columns.map((column) => `@${column}`)})`).run({
        ...forged,
        hash: chainHash(hashes[2] as string, forged),
      });
    });

    const result = await runAudit(['--verify', '--db', dbPath]);

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^Chain broken at row 4: .* 3 rows verified before it\.\n$/);
  });

  it('refuses export options beside --verify, with exit code 2', async () => {
    const result = await runAudit(['--verify', '--db', dbPath, '--format', 'csv']);

    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'audit: --verify takes only --db, not --format (see --help)\n',
    });
  });
});
