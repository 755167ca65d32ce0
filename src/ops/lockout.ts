// The team must never lock itself out of its settings: a change that would leave no admin is refused, whoever asks.
import type { OpsDeps } from './deps.js';
import { type Failure, fail } from './types.js';

/**
 * The people a list of admins makes admins: the users it names, and the members of its user groups who are not
 * guests (a group gives a guest no role). A group Slack will not list counts for no one.
 */
async function adminsNamed(deps: OpsDeps, admins: readonly string[], teamId: string | undefined): Promise<Set<string>> {
  const people = new Set(admins.filter((id) => !id.startsWith('S')));
  for (const group of admins.filter((id) => id.startsWith('S'))) {
    for (const member of (await deps.access.members(group, teamId)).ids) {
      if (!(await deps.access.isGuest(member))) people.add(member);
    }
  }
  return people;
}

/** Why a list of admins would lock the team out (nobody left, or nobody Slack can vouch for); undefined if not. */
export async function lockoutOf(
  deps: OpsDeps,
  admins: readonly string[],
  by: { teamId?: string },
): Promise<Failure | undefined> {
  if ((await adminsNamed(deps, admins, by.teamId)).size > 0) return undefined;
  return fail(
    'invalid',
    'That would leave no admin, not even you, and nobody could change the settings again. Keep at least one admin ' +
      '(a person, or a user group with members): to step down, add another admin first.',
    { code: 'last_admin', field: 'admins' },
  );
}
