// Permissions follow the owner: a number or an agent a team (a Slack user group) owns is changed only by that team's
// members who hold the operator role, and by admins; what nobody owns, by any operator. Asked at the request, again
// at the Confirm, at an approval and at a batch's start, so that an owner changed in between refuses the change.
import type { Settings } from '../settings-schema.js';
import type { StoredChange } from '../store/records.js';
import type { Tags } from '../store/tags.js';
import { type Attempt, deny } from './audit-rows.js';
import type { OpsDeps } from './deps.js';
import { givenTo, targetOf } from './kinds/index.js';
import type { Phrase } from './phrase.js';
import { type Actor, type Failure, fail } from './types.js';

/** Whether a person may change what has these tags: a predicate over a plan's items, read once per plan. */
export type Reach = (tags: Tags | undefined) => Promise<boolean>;

/** What this person may change: everything (an admin), or what nobody owns and what their teams own. */
export async function reachOf(deps: OpsDeps, settings: Settings, actor: Actor): Promise<Reach> {
  if ((await deps.access.roleOf(actor, settings)) === 'admin') return async () => true;
  const member = new Map<string, boolean>();
  return async (tags) => {
    const owner = tags?.owner;
    if (owner === undefined) return true;
    const known = member.get(owner) ?? (await deps.access.lists(actor, [owner]));
    member.set(owner, known);
    return known;
  };
}

/** The numbers and agents among `touched` that a team owns and this person may not change, with their owners. */
export async function outOfReach(
  deps: OpsDeps,
  settings: Settings,
  actor: Actor,
  touched: readonly string[],
  /** Their tags, when the caller read them already. */
  read?: ReadonlyMap<string, Tags>,
): Promise<{ subject: string; owner: string }[]> {
  if (touched.length === 0) return [];
  const tags = read ?? (await deps.store.tags.of(touched));
  if (![...tags.values()].some((found) => found.owner !== undefined)) return [];
  const reach = await reachOf(deps, settings, actor);
  const refused: { subject: string; owner: string }[] = [];
  for (const subject of touched) {
    const found = tags.get(subject);
    if (found?.owner !== undefined && !(await reach(found))) refused.push({ subject, owner: found.owner });
  }
  return refused;
}

/** A refusal that names who owns the thing and who may change it; audited. */
export async function refuseOutsideReach(
  deps: OpsDeps,
  settings: Settings,
  actor: Actor,
  touched: readonly string[],
  attempt: Attempt,
): Promise<Failure | undefined> {
  const [first] = await outOfReach(deps, settings, actor, touched);
  if (!first) return undefined;
  const failure = ownedElsewhere(first);
  return deny(deps, actor, attempt, failure, { rule: 'owner', owner: first.owner, subject: first.subject });
}

/** "+1… is owned by @sales: only its members with the operator role, and admins, may change it." */
export function ownedElsewhere({ subject, owner }: { subject: string; owner: string }): Failure {
  const rest =
    ': only its members with the operator role, and admins, may change it. An admin can give it to your team.';
  const said: Phrase = [`${subject} is owned by `, { member: owner }, rest];
  return fail('denied', `${subject} is owned by the user group ${owner}${rest}`, { said, code: 'owner' });
}

/** Whether a change gives its target to a team this person is not in, which only an admin may: why not, if so. */
export async function givenAway(
  deps: OpsDeps,
  settings: Settings,
  actor: Actor,
  change: StoredChange,
): Promise<Failure | undefined> {
  const team = givenTo(change);
  if (team === undefined || (await (await reachOf(deps, settings, actor))({ labels: [], owner: team })))
    return undefined;
  const rest = ' is a team you are not in: give it to your own team, or to nobody. An admin can give it to any team.';
  const said: Phrase = [{ member: team }, rest];
  return fail('denied', `The user group ${team}${rest}`, { said, code: 'owner' });
}

/** The same, refused at a request or a Confirm, and audited. */
export async function refuseGivingAway(
  deps: OpsDeps,
  settings: Settings,
  actor: Actor,
  change: StoredChange,
  attempt: Attempt,
): Promise<Failure | undefined> {
  const failure = await givenAway(deps, settings, actor, change);
  if (!failure) return undefined;
  return deny(deps, actor, attempt, failure, { rule: 'owner', givenTo: givenTo(change), subject: targetOf(change) });
}
