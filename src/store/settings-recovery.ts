// The way back when no one in Slack can change the settings any more (the only admins left, deactivated; a second
// approver asked of settings changes that no one can give): run on the host, it names an admin and, or, stops settings
// changes waiting for approval. One transaction under the settings' lock, audited as the host's settings change, in
// force at every replica's next request. A setting the environment or the policy file locks stays as it is given.
import { randomUUID } from 'node:crypto';
import { type GivenSettings, type SettingName, type Settings, storedSettings } from '../settings-schema.js';
import { AuditLog } from './audit.js';
import { DatabaseClock } from './database-clock.js';
import { SettingsRows } from './settings-rows.js';
import type { SqlEngine } from './sql.js';

/** Who the audit names for a recovery: the host, not a person of Slack. */
export const HOST = { actorId: 'host', actorName: 'the host (npm run settings -- recover)' } as const;

export interface Recovery {
  /** People (or user groups) to add to the admins. */
  admins: readonly string[];
  /** Settings changes no longer wait for a second approver. */
  dropSettingsApproval: boolean;
}

/** A recovery the configuration does not allow: a setting it asks for is locked where it is given. */
export class RecoveryRefused extends Error {}

interface Change {
  name: SettingName;
  before: unknown;
  after: unknown;
}

/** The changes a recovery makes to these settings; none where they already say so. */
function changesOf(now: Settings, recovery: Recovery): Change[] {
  const changes: Change[] = [];
  const added = recovery.admins.filter((id) => !now.admins.includes(id));
  if (added.length > 0) changes.push({ name: 'admins', before: now.admins, after: [...now.admins, ...added] });
  if (recovery.dropSettingsApproval && now.requireApproval.includes('settings.change')) {
    const after = now.requireApproval.filter((action) => action !== 'settings.change');
    changes.push({ name: 'requireApproval', before: now.requireApproval, after });
  }
  return changes;
}

/** Refused before anything is read when it asks to change a setting the configuration locks. */
function refuseLocked(given: GivenSettings, recovery: Recovery): void {
  const asked: SettingName[] = [
    ...(recovery.admins.length > 0 ? (['admins'] as const) : []),
    ...(recovery.dropSettingsApproval ? (['requireApproval'] as const) : []),
  ];
  for (const name of asked) {
    const lock = given.lockedBy[name];
    if (lock) {
      throw new RecoveryRefused(`${name} is set by ${lock.key} in ${lock.where}: change it there, not here`);
    }
  }
}

/** Makes the recovery; answers the changes made (none when the settings already said so) and the audit row's id. */
export async function recoverSettings(
  engine: SqlEngine,
  given: GivenSettings,
  recovery: Recovery,
): Promise<{ changes: Change[]; auditId?: number }> {
  refuseLocked(given, recovery);
  // Stamped on the database's clock, as every replica stamps its rows.
  const clock = await DatabaseClock.start(engine);
  try {
    return await engine.transaction(async (sql) => {
      await sql.lock('settings');
      const rows = new SettingsRows(sql, { now: clock.now });
      const now = { ...storedSettings((await rows.read()).values), ...given.locked };
      const changes = changesOf(now, recovery);
      if (changes.length === 0) return { changes };
      await rows.write(new Map(changes.map((change) => [change.name, change.after])), HOST.actorId);
      const row = await new AuditLog(sql, { now: clock.now, inTransaction: true }).append({
        ...HOST,
        source: 'system',
        action: 'settings.change',
        target: 'settings',
        params: { changes, recovery: true },
        outcome: 'succeeded',
        correlationId: randomUUID(),
      });
      return { changes, auditId: row.id };
    });
  } finally {
    await clock.stop();
  }
}
