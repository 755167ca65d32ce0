import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { beforeEach, describe, expect, it } from 'vitest';
import { type AuditEntry, AuditLog } from '../../src/store/audit.js';
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

beforeEach(() => {
  dbPath = temp.path('audit.db');
  const clock = manualClock();
  const log = new AuditLog(temp.open('audit.db'), { now: clock.now });
  const at = (iso: string, entry: Partial<AuditEntry>) => {
    clock.set(iso);
    log.append({ ...base, ...entry });
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
  'id,at,actorId,actorName,teamId,channelId,source,action,target,outcome,errorCode,errorMessage,correlationId,params\r\n';
const ROW_2 =
  '2,2026-11-01T00:00:00.000Z,U0123ABC,"\'=HYPERLINK(""http://evil"")",T0001,C0001,command,number.buy,\'+15550100,' +
  'requested,,,corr-1,"{""phoneNumber"":""+15550100"",""agent_token"":""[redacted]""}"\r\n';
const ROW_3 =
  "3,2026-11-15T12:00:00.000Z,U0123ABC,ada,T0001,C0001,button,number.buy,'+15550100,failed,conflict," +
  '"Number taken, ""sorry""\nTry another",corr-1,\r\n';
const ROW_4 = '4,2026-12-01T00:00:00.000Z,U0123ABC,ada,T0001,C0001,command,routing.map,,succeeded,,,december,\r\n';

describe('npm run audit', () => {
  it('exports CSV from --since on: header, quoting, neutralised formulas, redacted params', async () => {
    const result = await runAudit(['--db', dbPath, '--since', '2026-11-01', '--format', 'csv']);

    expect(result).toEqual({ code: 0, stderr: '', stdout: HEADER + ROW_2 + ROW_3 + ROW_4 });
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

    expect(result).toEqual({ code: 0, stderr: '', stdout: HEADER + ROW_2 + ROW_3 });
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
      },
      expect.objectContaining({ id: 4, correlationId: 'december', params: null }),
    ]);
  });

  it('finds the database through DATABASE_PATH when --db is absent', async () => {
    const result = await runAudit(['--since', '2026-12-01', '--format', 'csv'], { DATABASE_PATH: dbPath });

    expect(result).toEqual({ code: 0, stderr: '', stdout: HEADER + ROW_4 });
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
