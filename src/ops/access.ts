import { z } from 'zod';
import type { Logger } from '../log.js';
import { ReadCache } from './read-cache.js';
import type { Role } from './types.js';

/** Whom a role is asked for: the user, and the workspace their user groups live in (an org-wide token needs it). */
export interface Person {
  userId: string;
  teamId?: string;
}

/** Why reading a group or a profile failed, in a sentence for the person refused. */
export class UnreadableInSlack extends Error {
  override readonly name = 'UnreadableInSlack';
}

/**
 * What Slack says of a person named in the settings: only a `member` (active, not a guest, of the app's workspace or
 * org) counts as an admin or an approver. `unreadable`: Slack could not be asked (an error, a timeout).
 */
export type Standing = 'member' | 'outsider' | 'deactivated' | 'bot' | 'guest' | 'unknown' | 'unreadable';

/** The lists that grant roles: user ids, and user groups whose members hold the role. */
export interface RoleLists {
  admins: readonly string[];
  operators: readonly string[];
}

export interface AccessOptions {
  /** Members of a Slack user group (`S…`) of a workspace; in the app, `usergroups.users.list`. */
  groupMembers: (groupId: string, teamId: string | undefined) => Promise<string[]>;
  /** Single- or multi-channel; someone whose profile cannot be read must count as one. */
  isGuest: (userId: string) => Promise<boolean>;
  /** What Slack says of a person now (users.info, read afresh); in the app, against the app's own identity. */
  standing: (userId: string) => Promise<Standing>;
  /** How long group memberships are trusted before they are read again. */
  cacheTtlMs?: number;
  now?: () => number;
  logger?: Logger;
}

/** A role and what held it back: a guest's group listing, or a group Slack would not let the app read. */
export interface Grant {
  role: Role;
  /** A user group would have granted more, but guests get only what their own user id is listed for. */
  cappedAsGuest: boolean;
  /** Why a group could not be read just now, when Slack said (a sentence). */
  unreadable?: string;
}

/** How long group memberships (and who is a guest) are trusted by default: a removal takes effect within it. */
export const MEMBERSHIP_TTL_MS = 5 * 60_000;

// A group's members are kept per workspace: an org-wide token reads a group in the requester's workspace.
const groupKey = z.tuple([z.string().nullable(), z.string()]);

export interface Members {
  ids: Set<string>;
  /** Slack could not be asked, or would not say: the group grants nothing for now. */
  failed?: true;
  /** Why Slack would not say, when it said (a sentence for the person refused). */
  unreadable?: string;
}

/** Guests never get a role through a group: an admin who lists a group rarely means its guests. */
export class AccessControl {
  readonly #options: AccessOptions;
  readonly #groups: ReadCache<Members>;

  constructor(options: AccessOptions) {
    this.#options = options;
    this.#groups = new ReadCache<Members>({
      ttlMs: options.cacheTtlMs ?? MEMBERSHIP_TTL_MS,
      now: options.now ?? Date.now,
      logger: options.logger,
      what: 'user group members',
      read: async (key) => {
        const [teamId, groupId] = groupKey.parse(JSON.parse(key));
        return { ids: new Set(await options.groupMembers(groupId, teamId ?? undefined)) };
      },
      unreadable: (error) => ({
        ids: new Set(),
        failed: true,
        unreadable: error instanceof UnreadableInSlack ? error.message : undefined,
      }),
    });
  }

  async grantOf(person: Person, lists: RoleLists): Promise<Grant> {
    const direct = directRole(person.userId, lists);
    if (direct === 'admin') return { role: direct, cappedAsGuest: false };
    const byGroup = await this.#groupRole(person, direct, lists);
    if (!byGroup.role) return { role: direct, cappedAsGuest: false, unreadable: byGroup.unreadable };
    if (await this.#options.isGuest(person.userId)) return { role: direct, cappedAsGuest: true };
    return { role: byGroup.role, cappedAsGuest: false };
  }

  async roleOf(person: Person, lists: RoleLists): Promise<Role> {
    return (await this.grantOf(person, lists)).role;
  }

  /** Whether a list names the person: by user id, or through one of its user groups unless they are a guest. */
  async lists(person: Person, ids: readonly string[]): Promise<boolean> {
    if (ids.includes(person.userId)) return true;
    for (const groupId of ids.filter((id) => id.startsWith('S'))) {
      if ((await this.members(groupId, person.teamId)).ids.has(person.userId)) {
        return !(await this.#options.isGuest(person.userId));
      }
    }
    return false;
  }

  /** What Slack says of a person now: whether they may count as an admin or an approver. */
  standing(userId: string): Promise<Standing> {
    return this.#options.standing(userId);
  }

  /** `fresh` for a check that must not trust a membership that may have ended minutes ago. */
  members(groupId: string, teamId: string | undefined, options: { fresh?: boolean } = {}): Promise<Members> {
    return this.#groups.get(JSON.stringify([teamId, groupId]), options);
  }

  /** The highest role above `direct` that one of the person's user groups grants, or why a group could not say. */
  async #groupRole(
    person: Person,
    direct: Role,
    { admins, operators }: RoleLists,
  ): Promise<{ role?: Role; unreadable?: string }> {
    const lists: [readonly string[], Role][] =
      direct === 'operator'
        ? [[admins, 'admin']]
        : [
            [admins, 'admin'],
            [operators, 'operator'],
          ];
    let unreadable: string | undefined;
    for (const [ids, role] of lists) {
      for (const groupId of ids.filter((id) => id.startsWith('S'))) {
        const members = await this.members(groupId, person.teamId);
        if (members.ids.has(person.userId)) return { role };
        unreadable ??= members.unreadable;
      }
    }
    return { unreadable };
  }
}

function directRole(userId: string, { admins, operators }: RoleLists): Role {
  if (admins.includes(userId)) return 'admin';
  return operators.includes(userId) ? 'operator' : 'viewer';
}
