// `npm run settings -- export`: the settings in force, printed as a policy file that the app reads back as the same
// settings, on either engine; its usage, its refusals, and never a database password.
import { writeFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseGivenSettings } from '../../src/config.js';
import { SettingsInForce } from '../../src/ops/api.js';
import { SettingsRows } from '../../src/store/settings-rows.js';
import { ENGINES, runCli, useTempDatabases } from './helpers.js';

const runSettings = (args: string[], env?: Record<string, string>) =>
  runCli('src/store/settings-cli.ts', args, { VOICE_POLICY_FILE: '', ...env });

describe.each(ENGINES)('on %s', (engine) => {
  const temp = useTempDatabases(engine);
  /** How the CLI is pointed at the test's database: --db for a file, DATABASE_URL for Postgres. */
  let where: { args: string[]; env: Record<string, string> };
  let secret: string | undefined;

  beforeEach(async () => {
    const target = await temp.target('settings.db');
    where =
      target.kind === 'sqlite'
        ? { args: ['--db', target.path], env: {} }
        : { args: [], env: { DATABASE_URL: target.url } };
    secret = target.kind === 'postgres' ? new URL(target.url).password || undefined : undefined;
  });

  it('exports the settings in force as a policy file that reads back as the same settings', async () => {
    const sql = await temp.open('settings.db');
    await sql.transaction((tx) =>
      new SettingsRows(tx).write(
        new Map<string, unknown>([
          ['admins', ['U1ADA', 'S2NIGHT']],
          ['operators', ['W3OMAR']],
          ['requireApproval', ['number.buy', 'routing.map']],
          ['buyLimitPerUser', { count: 2, window: 'week' }],
          ['announcementsChannel', 'CANNOUNCE'],
          ['undoHours', 12],
        ]),
        'U1ADA',
      ),
    );
    // What the app would lock here: a policy file's setting, and the environment's over the stored one.
    const policy = temp.path('voice-ops.policy.yml');
    writeFileSync(policy, 'approvalsChannel: CAPPROVE\nbuyLimit: 5/day\n');
    const env = { ...where.env, VOICE_POLICY_FILE: policy, VOICE_UNDO_HOURS: '6' };

    const result = await runSettings(['export', ...where.args], env);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [first] = result.stdout.split('\n');
    expect(first).toMatch(/^# Voice Ops settings, exported from .+ at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /);
    expect(result.stdout).toContain(
      `# Locked when exported: buyLimit (buyLimit in ${policy}), undoHours (VOICE_UNDO_HOURS in the environment), ` +
        `approvalsChannel (approvalsChannel in ${policy}).`,
    );
    expect(result.stdout).toContain('buyLimitPerUser: 2/week\n');

    const inForce = await new SettingsInForce(new SettingsRows(sql), parseGivenSettings(env)).current();
    expect(inForce).toMatchObject({ undoHours: 6, approvalsChannel: 'CAPPROVE', admins: ['U1ADA', 'S2NIGHT'] });
    const exported = temp.path('exported.policy.yml');
    writeFileSync(exported, result.stdout);
    const readBack = parseGivenSettings({ VOICE_POLICY_FILE: exported });
    expect(readBack.locked).toEqual(inForce);
    // Every setting is in the file, a none written as null, and each is locked with the file's name.
    expect(Object.keys(readBack.lockedBy)).toHaveLength(14);
    expect(readBack.lockedBy.buyLimitPerUser).toEqual({ key: 'buyLimitPerUser', where: exported });
    expect('typedRelease' in readBack.locked && readBack.locked.typedRelease).toBe(false);

    // Exported again from the file alone, the same settings come out.
    const again = await runSettings(['export', ...where.args], { ...where.env, VOICE_POLICY_FILE: exported });
    expect(again.stdout.split('\n').filter((line) => !line.startsWith('#'))).toEqual(
      result.stdout.split('\n').filter((line) => !line.startsWith('#')),
    );
    if (secret) expect(result.stdout + again.stdout + again.stderr).not.toContain(secret);
  });

  it('exports the defaults from a store that holds no settings', async () => {
    await temp.open('settings.db');

    const result = await runSettings(['export', ...where.args], where.env);

    expect(result.code).toBe(0);
    const exported = temp.path('exported.policy.yml');
    writeFileSync(exported, result.stdout);
    expect(parseGivenSettings({ VOICE_POLICY_FILE: exported }).locked).toEqual({
      admins: [],
      operators: [],
      approvers: [],
      requireApproval: [],
      approvalTtlHours: 24,
      changeChannels: [],
      typedRelease: false,
      undoHours: 24,
      channelBindings: [],
      subscriptions: [],
    });
    expect(result.stdout).toContain('buyLimit: null\n');
  });
});

// Nothing here reads a database: once is enough.
describe.runIf(ENGINES.includes('sqlite'))('npm run settings', () => {
  it('prints its usage for --help, and exits 2 with it for anything else', async () => {
    const help = await runSettings(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: npm run settings -- export \[--db PATH\]/);

    for (const args of [[], ['import'], ['export', 'now'], ['export', '--verbose']]) {
      const refused = await runSettings(args);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain('Usage: npm run settings -- export');
    }
  });

  it('says what is wrong with the configuration or the database, and never the URL', async () => {
    const malformed = await runSettings(['export'], { VOICE_BUY_LIMIT: 'five' });
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('VOICE_BUY_LIMIT must be a count per day or per week');

    const missing = await runSettings(['export', '--db', '/nowhere/voice-ops.db']);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toContain('no database at /nowhere/voice-ops.db');

    const unreachable = await runSettings(['export'], { DATABASE_URL: 'postgres://ops:hunter2@127.0.0.1:1/voiceops' });
    expect(unreachable).toMatchObject({ code: 1, stdout: '' });
    expect(unreachable.stderr).toContain('cannot reach the Postgres database "voiceops" on 127.0.0.1:1');
    expect(unreachable.stderr).not.toContain('hunter2');
  });
});
