import type { Logger } from '../log.js';
import { type Role, roleIncludes } from './types.js';

export interface AccessOptions {
  admins: string[];
  operators: string[];
  /** Members of a Slack user group (`S…`); in the app, `usergroups.users.list`. */
  groupMembers: (groupId: string) => Promise<string[]>;
  /** How long group memberships are trusted before they are read again. */
  cacheTtlMs?: number;
  now?: () => number;
  logger?: Logger;
}

const DEFAULT_CACHE_TTL_MS = 5 * 60_000;
// While a group cannot be read, it grants nothing for this long before it is tried again: during an outage of
// Slack's group reads, users are answered at once instead of each waiting out the read's timeout.
const UNREADABLE_TTL_MS = 30_000;

/** Roles from VOICE_ADMINS and VOICE_OPERATORS: user ids match directly, user groups through their members. */
export class AccessControl {
  readonly #options: AccessOptions;
  readonly #groups = new Map<string, { members: Set<string>; readAt: number; unreadable?: boolean }>();

  constructor(options: AccessOptions) {
    this.#options = options;
  }

  async roleOf(userId: string): Promise<Role> {
    if (await this.#listed(this.#options.admins, userId)) return 'admin';
    if (await this.#listed(this.#options.operators, userId)) return 'operator';
    return 'viewer';
  }

  async has(userId: string, needed: Role): Promise<boolean> {
    return needed === 'viewer' || roleIncludes(await this.roleOf(userId), needed);
  }

  async #listed(ids: string[], userId: string): Promise<boolean> {
    if (ids.includes(userId)) return true;
    for (const id of ids) {
      if (id.startsWith('S') && (await this.#members(id)).has(userId)) return true;
    }
    return false;
  }

  async #members(groupId: string): Promise<Set<string>> {
    const now = (this.#options.now ?? Date.now)();
    const cached = this.#groups.get(groupId);
    const ttl = cached?.unreadable ? UNREADABLE_TTL_MS : (this.#options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS);
    if (cached && now - cached.readAt < ttl) return cached.members;
    try {
      const members = new Set(await this.#options.groupMembers(groupId));
      if (cached?.unreadable) this.#options.logger?.info({ groupId }, 'user group members can be read again');
      this.#groups.set(groupId, { members, readAt: now });
      return members;
    } catch (error) {
      // Failing closed: an unreadable group grants nothing. Logged once per outage, not once per request.
      if (!cached?.unreadable) {
        this.#options.logger?.warn(
          { err: error, groupId },
          'could not read user group members: the group grants no role until it can be read again',
        );
      }
      const members = new Set<string>();
      this.#groups.set(groupId, { members, readAt: now, unreadable: true });
      return members;
    }
  }
}

/** The variable an admin must set to grant a role, for the denial message. */
export function variableFor(role: Role): string {
  return role === 'admin' ? 'VOICE_ADMINS' : 'VOICE_OPERATORS';
}
