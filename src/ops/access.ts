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

/** Roles from VOICE_ADMINS and VOICE_OPERATORS: user ids match directly, user groups through their members. */
export class AccessControl {
  readonly #options: AccessOptions;
  readonly #groups = new Map<string, { members: Set<string>; readAt: number }>();

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
    if (cached && now - cached.readAt < (this.#options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS)) return cached.members;
    try {
      const members = new Set(await this.#options.groupMembers(groupId));
      this.#groups.set(groupId, { members, readAt: now });
      return members;
    } catch (error) {
      // Failing closed: an unreadable group grants nothing, and is read again on the next check.
      this.#options.logger?.warn({ err: error, groupId }, 'could not read user group members');
      return new Set();
    }
  }
}

/** The variable an admin must set to grant a role, for the denial message. */
export function variableFor(role: Role): string {
  return role === 'admin' ? 'VOICE_ADMINS' : 'VOICE_OPERATORS';
}
