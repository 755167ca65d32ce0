// What a change of the settings must not do, checked when asked and again when made (an approval may come days
// later): touch a locked setting, leave no admin, or ask for approvals no one could give or with nowhere to ask.
import { approvalsChannelOf, type SettingName, type Settings, settingsSchema } from '../settings-schema.js';
import type { OpsDeps } from './deps.js';
import { lockoutOf, unapprovableOf } from './lockout.js';
import type { SettingChange } from './settings-words.js';
import { type Failure, fail } from './types.js';

/** The settings as they would be with these changes made; undefined when the changes do not read as settings. */
export function settingsAfter(now: Settings, changes: readonly SettingChange[]): Settings | undefined {
  const changed = Object.fromEntries(changes.map(({ name, after }) => [name, after ?? undefined]));
  const parsed = settingsSchema.safeParse({ ...now, ...changed });
  return parsed.success ? parsed.data : undefined;
}

/** The settings that say who may approve what: a change of any of them may leave a rule no one could satisfy. */
const WHO_APPROVES: readonly SettingName[] = ['admins', 'operators', 'approvers', 'requireApproval'];

export async function refuseSettingsChange(
  deps: OpsDeps,
  by: { teamId?: string },
  now: Settings,
  changes: readonly SettingChange[],
): Promise<Failure | undefined> {
  const locked = refuseLocked(deps, changes);
  if (locked) return locked;
  const after = settingsAfter(now, changes);
  if (!after) return fail('invalid', 'That change does not read as settings: nothing was changed.');
  if (changes.some(({ name }) => name === 'admins')) {
    const lockout = await lockoutOf(deps, after.admins, by);
    if (lockout) return lockout;
  }
  if (changes.some(({ name }) => WHO_APPROVES.includes(name))) {
    const unapprovable = await unapprovableOf(deps, after, by);
    if (unapprovable) return unapprovable;
  }
  if (after.requireApproval.length > 0 && !approvalsChannelOf(after)) {
    return fail(
      'invalid',
      'Changes that wait for an approver need a channel to ask in: set the approvals channel or the ' +
        'announcements channel first.',
      { field: 'requireApproval' },
    );
  }
  return undefined;
}

/** A locked setting is changed where it is given, never in Slack: the refusal says where. */
function refuseLocked(deps: OpsDeps, changes: readonly SettingChange[]): Failure | undefined {
  for (const { name } of changes) {
    const lock = deps.settings.lockedBy(name);
    if (lock) {
      return fail(
        'denied',
        `${name} is set by ${lock.key} in ${lock.where}, so it cannot be changed in Slack: whoever runs Voice Ops ` +
          'can change it there.',
        { code: 'locked', field: name },
      );
    }
  }
  return undefined;
}
