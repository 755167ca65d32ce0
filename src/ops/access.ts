import { z } from 'zod';
import type { Logger } from '../log.js';
import { ReadCache } from './read-cache.js';
import { type Role, roleIncludes } from './types.js';

/** Whom a role is asked for: the user, and the workspace their user groups live in (an org-wide token needs it). */
export interface Person {
  userId: string;
  teamId?: string;
}

/** Why reading a group or a profile failed, in a sentence for the person refused. */
export class UnreadableInSlack extends Error {
  override readonly name = 'UnreadableInSlack';
}

export interface AccessOptions {
  admins: string[];
  operators: string[];
  /** Members of a Slack user group (`S…`) of a workspace; in the app, `usergroups.users.list`. */
  groupMembers: (groupId: string, teamId: string | undefined) => Promise<string[]>;
  /**
   * Whether a user is a guest (single- or multi-channel); in the app, `users.info`, kept as group memberships are.
   * Someone whose profile cannot be read must count as one.
   */
  isGuest: (userId: string) => Promise<boolean>;
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

interface Members {
  ids: Set<string>;
  unreadable?: string;
}

/**
 * Roles from VOICE_ADMINS and VOICE_OPERATORS: user ids match directly, user groups through their members. Guests
 * get a role through a group never: an admin who lists a group rarely means its guests.
 */
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
        unreadable: error instanceof UnreadableInSlack ? error.message : undefined,
      }),
    });
  }

  async grantOf(person: Person): Promise<Grant> {
    const direct = this.#directRole(person.userId);
    if (direct === 'admin') return { role: direct, cappedAsGuest: false };
    const byGroup = await this.#groupRole(person, direct);
    if (!byGroup.role) return { role: direct, cappedAsGuest: false, unreadable: byGroup.unreadable };
    if (await this.#options.isGuest(person.userId)) return { role: direct, cappedAsGuest: true };
    return { role: byGroup.role, cappedAsGuest: false };
  }

  async roleOf(person: Person): Promise<Role> {
    return (await this.grantOf(person)).role;
  }

  async has(person: Person, needed: Role): Promise<boolean> {
    return needed === 'viewer' || roleIncludes(await this.roleOf(person), needed);
  }

  #directRole(userId: string): Role {
    const { admins, operators } = this.#options;
    if (admins.includes(userId)) return 'admin';
    return operators.includes(userId) ? 'operator' : 'viewer';
  }

  /** The highest role above `direct` that one of the person's user groups grants, or why a group could not say. */
  async #groupRole(person: Person, direct: Role): Promise<{ role?: Role; unreadable?: string }> {
    const { admins, operators } = this.#options;
    const lists: [string[], Role][] =
      direct === 'operator'
        ? [[admins, 'admin']]
        : [
            [admins, 'admin'],
            [operators, 'operator'],
          ];
    let unreadable: string | undefined;
    for (const [ids, role] of lists) {
      for (const groupId of ids.filter((id) => id.startsWith('S'))) {
        const members = await this.#groups.get(JSON.stringify([person.teamId, groupId]));
        if (members.ids.has(person.userId)) return { role };
        unreadable ??= members.unreadable;
      }
    }
    return { unreadable };
  }
}

/** The variable an admin must set to grant a role, for the denial message. */
export function variableFor(role: Role): string {
  return role === 'admin' ? 'VOICE_ADMINS' : 'VOICE_OPERATORS';
}
