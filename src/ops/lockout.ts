// The team must never lock itself out of its settings: no admin Slack vouches for, or an approval no one could give,
// is refused. Slack is asked afresh; when it cannot be, the change is refused rather than guessed at.
import type { Settings } from '../settings-schema.js';
import type { OpsDeps } from './deps.js';
import { roleOfKind } from './kinds/roles.js';
import { type Failure, fail, type Role, roleIncludes } from './types.js';
import { type Counted, whoCounts } from './who-counts.js';

const WHO_COUNTS = 'Only an active member of this workspace (or its org) who is not a guest counts.';

/** Why a list of admins would lock the team out (nobody left, or nobody Slack can vouch for); undefined if not. */
export async function lockoutOf(
  deps: OpsDeps,
  admins: readonly string[],
  by: { teamId?: string },
): Promise<Failure | undefined> {
  if (admins.length === 0) {
    return fail(
      'invalid',
      'That would leave no admin, not even you, and nobody could change the settings again. Keep at least one admin ' +
        '(a person, or a user group with members): to step down, add another admin first.',
      { code: 'last_admin', field: 'admins' },
    );
  }
  const found = await whoCounts(deps, admins, { enough: 1, teamId: by.teamId });
  if (found.people.size > 0) return undefined;
  return (
    unasked(found, 'the admins') ??
    fail(
      'invalid',
      `That would leave no admin who counts, and nobody could change the settings again. Not counted: ` +
        `${found.notCounted.join(', ')}. ${WHO_COUNTS} Keep at least one such admin: nothing was changed.`,
      { code: 'last_admin', field: 'admins' },
    )
  );
}

/** A second person's approval needs two people who may approve (the requester never may), each with the role. */
export async function unapprovableOf(
  deps: OpsDeps,
  settings: Settings,
  by: { teamId?: string },
): Promise<Failure | undefined> {
  const checked = new Map<Role, Counted>();
  for (const action of settings.requireApproval) {
    const role = roleOfKind(action);
    let found = checked.get(role);
    if (!found) {
      found = await approversOf(deps, settings, role, by.teamId);
      checked.set(role, found);
    }
    if (found.people.size >= 2) continue;
    const who = settings.approvers.length > 0 ? 'the approvers named' : `people with the ${role} role`;
    return (
      unasked(found, who) ??
      fail(
        'invalid',
        `${action} would wait for a second person's approval, and ${found.people.size === 0 ? 'no one' : 'only one person'} ` +
          `could give it: the requester never approves their own change, so it takes two of ${who}, each with the ` +
          `${role} role.${found.notCounted.length ? ` Not counted: ${found.notCounted.join(', ')}.` : ''} ` +
          `${WHO_COUNTS} Name more approvers, or ask for no approval of ${action}: nothing was changed.`,
        { code: 'unapprovable', field: 'requireApproval' },
      )
    );
  }
  return undefined;
}

/** Who may approve a change needing `role`: the approvers named holding it, else everyone holding it. */
function approversOf(deps: OpsDeps, settings: Settings, role: Role, teamId: string | undefined): Promise<Counted> {
  const holding = role === 'admin' ? settings.admins : [...settings.admins, ...settings.operators];
  if (settings.approvers.length === 0) return whoCounts(deps, holding, { enough: 2, teamId });
  return whoCounts(deps, settings.approvers, {
    enough: 2,
    teamId,
    also: {
      holds: async (userId) => roleIncludes(await deps.access.roleOf({ userId, teamId }, settings), role),
      lacks: { one: `without the ${role} role`, many: `people without the ${role} role` },
    },
  });
}

/** Slack could not be asked about some of those named, and no one else counted: refused, saying so. */
function unasked(found: Counted, who: string): Failure | undefined {
  if (found.unasked.length === 0) return undefined;
  return fail(
    'invalid',
    `Slack could not be asked whether ${who} (${found.unasked.join(', ')}) are active members of this workspace, ` +
      'so the change is refused rather than guessed at: nothing was changed. Try again in a minute.',
    { code: 'slack_unreadable' },
  );
}
