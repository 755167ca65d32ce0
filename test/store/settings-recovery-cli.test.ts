// `npm run settings -- recover`: the way back from a lockout, run on the host as its own process, on either engine.
// It names an admin and stops settings changes waiting for a second approver, in one transaction audited as the
// host's; it refuses without --confirm, refuses a setting the environment locks, and changes nothing when it refuses.

import { beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/store/audit.js';
import { verifyChain } from '../../src/store/audit-chain.js';
import { SettingsRows } from '../../src/store/settings-rows.js';
import type { SqlEngine } from '../../src/store/sql.js';
import { ENGINES, runCli, useTempDatabases } from './helpers.js';

const runSettings = (args: string[], env?: Record<string, string>) =>
  runCli('src/store/settings-cli.ts', args, { VOICE_POLICY_FILE: '', ...env });

const GONE = 'UGONE';
const NEW_ADMIN = 'UNEWADMIN';

describe.each(ENGINES)('on %s', (engine) => {
  const temp = useTempDatabases(engine);
  let where: { args: string[]; env: Record<string, string> };
  let sql: SqlEngine;

  beforeEach(async () => {
    const target = await temp.target('app.db');
    where =
      target.kind === 'sqlite'
        ? { args: ['--db', target.path], env: {} }
        : { args: [], env: { DATABASE_URL: target.url } };
    sql = await temp.open('app.db');
    // Locked out: the only admin is deactivated, and settings changes wait for an approver who does not exist.
    await sql.transaction((tx) =>
      new SettingsRows(tx).write(
        new Map<string, unknown>([
          ['admins', [GONE]],
          ['requireApproval', ['number.buy', 'settings.change']],
        ]),
        GONE,
      ),
    );
  });

  const stored = async () => Object.fromEntries((await new SettingsRows(sql).read()).values);
  const audited = () => new AuditLog(sql).recent(10);

  it('names a new admin and drops the approval of settings changes, audited as the host', async () => {
    const result = await runSettings(
      ['recover', '--admin', NEW_ADMIN, '--drop-settings-approval', '--confirm', ...where.args],
      where.env,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`admins is now ["${GONE}","${NEW_ADMIN}"]`);
    expect(await stored()).toMatchObject({ admins: [GONE, NEW_ADMIN], requireApproval: ['number.buy'] });

    const [row] = await audited();
    expect(row).toMatchObject({ actorId: 'host', source: 'system', action: 'settings.change', outcome: 'succeeded' });
    expect(row?.params).toMatchObject({
      recovery: true,
      changes: [
        { name: 'admins', before: [GONE], after: [GONE, NEW_ADMIN] },
        { name: 'requireApproval', before: ['number.buy', 'settings.change'], after: ['number.buy'] },
      ],
    });
    expect(await verifyChain(sql)).toMatchObject({ ok: true });

    const again = await runSettings(['recover', '--admin', NEW_ADMIN, '--confirm', ...where.args], where.env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to recover');
    expect(await audited()).toHaveLength(1);
  });

  it('refuses without --confirm, with a bad id, or for a setting the environment locks; nothing changes', async () => {
    const before = await stored();
    const refusals: [string[], Record<string, string>, string][] = [
      [['recover', '--admin', NEW_ADMIN], {}, 'nothing was changed; run it again with --confirm'],
      [['recover', '--confirm'], {}, 'say what to recover'],
      [['recover', '--admin', 'SGROUP', '--confirm'], {}, 'is not a Slack user id'],
      [['recover', '--admin', NEW_ADMIN, '--confirm'], { VOICE_ADMINS: GONE }, 'admins is set by VOICE_ADMINS'],
      [
        ['recover', '--drop-settings-approval', '--confirm'],
        { VOICE_REQUIRE_APPROVAL: 'settings.change' },
        'requireApproval is set by VOICE_REQUIRE_APPROVAL',
      ],
    ];
    for (const [args, env, says] of refusals) {
      const result = await runSettings([...args, ...where.args], { ...where.env, ...env });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(says);
    }
    expect(await stored()).toEqual(before);
    expect(await audited()).toHaveLength(0);
  });
});

describe('on a file that is not there', () => {
  const temp = useTempDatabases('sqlite');
  it('refuses rather than create an empty database the app never reads', async () => {
    const path = temp.path('missing.db');
    const result = await runSettings(['recover', '--admin', NEW_ADMIN, '--confirm', '--db', path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`there is no database at ${path}`);
  });
});
