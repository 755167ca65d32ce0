// Changing the settings: roles, guardrails and channels, asked for by an admin, confirmed, approved where the settings
// ask it of settings changes, audited with before and after, and announced, as any change is. Its work calls no
// provider: the settings are written in the transaction that audits its outcome, so that a change is stored exactly
// when its audit row says it succeeded.
import { z } from 'zod';
import { jsonText } from '../../store/columns.js';
import type { OpsDeps } from '../deps.js';
import { refuseSettingsChange } from '../settings-checks.js';
import { effectsOf, settingChange, takesARole } from '../settings-words.js';
import { fail } from '../types.js';
import { forgetUnquieted } from '../unquieted.js';
import type { Verified, Work } from '../work.js';
import type { ChangeKind } from './kind.js';

const NAME = 'settings.change';
/** What every settings change names as its target, so that `/voice audit settings` finds them all. */
export const SETTINGS_TARGET = 'settings';

const change = z.object({
  kind: z.literal(NAME),
  changes: z.array(settingChange).min(1),
  /** The requester's workspace, where the user groups it names are read again at Confirm. */
  teamId: z.string().optional(),
});
type SettingsChange = z.infer<typeof change>;

const changed = z.object({ action: z.literal(NAME), changes: z.array(settingChange).min(1) });
type Changed = z.infer<typeof changed>;

const sameValue = (a: unknown, b: unknown): boolean => jsonText(a ?? null) === jsonText(b ?? null);

/**
 * Writes the change if the settings still say what it was asked against, and if it still leaves an admin: another
 * admin may have changed them since it was asked, and a user group's members may have changed.
 */
function settingsWork(deps: OpsDeps, record: SettingsChange, by: string): Work {
  return {
    action: NAME,
    target: SETTINGS_TARGET,
    params: { changes: record.changes },
    intent: record,
    lockKeys: [SETTINGS_TARGET],
    run: async () => {
      // Read from the store, not from what this request found: another admin's change may have been made since.
      const now = await deps.settings.current({ fresh: true });
      const moved = record.changes.filter(({ name, before }) => !sameValue(now[name], before));
      if (moved.length > 0) {
        return fail(
          'conflict',
          `The settings changed since this was asked (${moved.map(({ name }) => name).join(', ')}): nothing was ` +
            'changed. Open /voice settings again to see them as they are now.',
        );
      }
      const refused = await refuseSettingsChange(deps, record, now, record.changes);
      if (refused) return refused;
      return {
        ok: true,
        change: { action: NAME, changes: record.changes },
        keep: async (deps) => {
          await deps.store.settings.write(new Map(record.changes.map((c) => [c.name, c.after ?? undefined])), by);
          await forgetUnquieted(deps, record.changes);
        },
      };
    },
  };
}

/** A settings change's work runs no provider call: with its intent still open, its outcome was never written. */
function verifySettings(): Promise<Verified> {
  return Promise.resolve(
    fail(
      'conflict',
      'The settings change was not made: the app stopped before writing it. Ask again with /voice settings.',
    ),
  );
}

export const settingsChange: ChangeKind<SettingsChange, Changed> = {
  name: NAME,
  record: change,
  announced: changed,
  role: 'admin',
  permits: 'change the settings',
  spends: false,
  confirm: {
    verb: 'Apply',
    title: 'Change settings',
    effect: (record) => effectsOf(record.changes),
    destroys: (record) => takesARole(record.changes),
    kept: () => ['The settings were not changed.'],
    gerund: 'changing settings',
  },
  target: () => SETTINGS_TARGET,
  unbound: true,
  subject: () => SETTINGS_TARGET,
  auditParams: (record) => ({ changes: record.changes }),
  takesFromAgent: () => false,
  work: settingsWork,
  verify: verifySettings,
  did: (announced) => ['changed the settings:', { newLine: true }, ...effectsOf(announced.changes)],
  lookUp: () => '/voice audit settings',
  happened: () => ['changed the settings'],
  undo: { never: 'A settings change is walked back by changing the settings again, with /voice settings.' },
};
