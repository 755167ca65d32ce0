// Who a list of the settings (admins, approvers) names that Slack vouches for now: people and the members of user
// groups, each an active member of the app's workspace or org who is not a guest. What a refusal says of the rest.
import type { Standing } from './access.js';
import type { OpsDeps } from './deps.js';

type NotMember = Exclude<Standing, 'member' | 'unreadable'>;

/** Why someone does not count, as one person and as the members of a group. */
const WHY: Record<NotMember, { one: string; many: string }> = {
  outsider: { one: 'from another organization', many: 'people from another organization' },
  deactivated: { one: 'deactivated', many: 'deactivated users' },
  bot: { one: 'a bot', many: 'bots' },
  guest: { one: 'a guest', many: 'guests' },
  unknown: { one: 'not a user Slack knows', many: 'ids Slack does not know' },
};

export interface Counted {
  /** People who count, found until there were enough. */
  people: Set<string>;
  /** What was named and counts for no one, each with why: `U123 (a guest)`. */
  notCounted: string[];
  /** Ids Slack could not be asked about (an error, a timeout): neither counted nor ruled out. */
  unasked: string[];
}

export interface CountOptions {
  /** Stop once this many people count: Slack is asked no more than a decision needs. */
  enough: number;
  /** Teams whose user groups are read (an org-wide token needs the requester's). */
  teamId?: string;
  /** A further condition on a member (holding a role), with why someone who fails it does not count. */
  also?: { holds: (userId: string) => Promise<boolean>; lacks: { one: string; many: string } };
}

/** The people `ids` names who count, asking Slack afresh about each (and about each group's members). */
export async function whoCounts(deps: OpsDeps, ids: readonly string[], options: CountOptions): Promise<Counted> {
  const found: Counted = { people: new Set(), notCounted: [], unasked: [] };
  const asked = new Map<string, Standing | 'lacks'>();
  const standingOf = async (userId: string) => {
    let standing = asked.get(userId) ?? (await deps.access.standing(userId));
    if (standing === 'member' && options.also && !(await options.also.holds(userId))) standing = 'lacks';
    asked.set(userId, standing);
    return standing;
  };
  const whyOf = (standing: NotMember | 'lacks') => (standing === 'lacks' ? options.also?.lacks : WHY[standing]);
  const enough = () => found.people.size >= options.enough;

  for (const id of ids) {
    if (enough()) break;
    if (!id.startsWith('S')) {
      const standing = await standingOf(id);
      if (standing === 'member') found.people.add(id);
      else if (standing === 'unreadable') found.unasked.push(id);
      else found.notCounted.push(`${id} (${whyOf(standing)?.one})`);
      continue;
    }
    const members = await deps.access.members(id, options.teamId, { fresh: true });
    if (members.failed) {
      found.unasked.push(id);
      continue;
    }
    if (members.ids.size === 0) {
      found.notCounted.push(`${id} (an empty user group)`);
      continue;
    }
    const reasons = new Set<string>();
    let [counts, unasked] = [false, false];
    for (const member of members.ids) {
      if (enough()) break;
      const standing = await standingOf(member);
      if (standing === 'member') {
        found.people.add(member);
        counts = true;
      } else if (standing === 'unreadable') unasked = true;
      else reasons.add(whyOf(standing)?.many ?? '');
    }
    if (counts) continue;
    if (unasked) found.unasked.push(id);
    else {
      found.notCounted.push(`${id} (a user group of ${[...reasons].join(' and ')})`);
    }
  }
  return found;
}
