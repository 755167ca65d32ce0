// Who may do what, resolved through user groups, for `/voice access`: each role's people and groups (with the
// groups' members), and for one person their role and what grants it.
import type { Lock, SettingName } from '../settings-schema.js';
import type { Person } from './access.js';
import type { OpsDeps } from './deps.js';
import type { Role } from './types.js';

/** A user, or a user group with its members (or why Slack would not list them). */
export interface Holder {
  id: string;
  members?: string[];
  unreadable?: string;
}

/** A list that grants a role or the right to approve, and where it is given when the configuration locks it. */
export interface Granting {
  holders: Holder[];
  lock?: Lock;
}

export interface AccessOverview {
  admins: Granting;
  operators: Granting;
  /** Empty: anyone with the role a change needs may approve it. */
  approvers: Granting;
}

export interface PersonAccess {
  userId: string;
  role: Role;
  /** The entries of the role's list that name the person: their own id, or user groups they are in. */
  through: string[];
  /** A user group would have granted more, but guests get only what their own id is listed for. */
  cappedAsGuest: boolean;
  /** Whether they may approve changes that wait for a second person (with the role the change needs). */
  approves: boolean;
}

type ListName = Extract<SettingName, 'admins' | 'operators' | 'approvers'>;

async function holdersOf(deps: OpsDeps, ids: readonly string[], teamId: string | undefined): Promise<Holder[]> {
  return Promise.all(
    ids.map(async (id) => {
      if (!id.startsWith('S')) return { id };
      const members = await deps.access.members(id, teamId);
      return { id, members: [...members.ids].sort(), unreadable: members.unreadable };
    }),
  );
}

export async function accessOverview(deps: OpsDeps, teamId: string | undefined): Promise<AccessOverview> {
  const settings = await deps.settings.current();
  const granting = async (name: ListName): Promise<Granting> => ({
    holders: await holdersOf(deps, settings[name], teamId),
    lock: deps.settings.lockedBy(name),
  });
  const [admins, operators, approvers] = await Promise.all([
    granting('admins'),
    granting('operators'),
    granting('approvers'),
  ]);
  return { admins, operators, approvers };
}

/** The entries of a list that name the person. */
async function naming(deps: OpsDeps, person: Person, ids: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const id of ids) {
    if (id === person.userId) found.push(id);
    else if (id.startsWith('S') && (await deps.access.members(id, person.teamId)).ids.has(person.userId))
      found.push(id);
  }
  return found;
}

export async function accessOf(deps: OpsDeps, person: Person): Promise<PersonAccess> {
  const settings = await deps.settings.current();
  const grant = await deps.access.grantOf(person, settings);
  const list = grant.role === 'admin' ? settings.admins : grant.role === 'operator' ? settings.operators : [];
  const through = await naming(deps, person, list);
  const approves =
    grant.role !== 'viewer' &&
    (settings.approvers.length === 0 || (await deps.access.lists(person, settings.approvers)));
  return {
    userId: person.userId,
    role: grant.role,
    through: grant.cappedAsGuest ? through.filter((id) => id === person.userId) : through,
    cappedAsGuest: grant.cappedAsGuest,
    approves,
  };
}
