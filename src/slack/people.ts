// People as users.info describes them, for what a payload does not say: guest or not, org, time zone. Kept as long as
// group memberships are, since read while a user waits; read afresh for whether someone may be an admin or approver.
import { z } from 'zod';
import type { Logger } from '../log.js';
import { ReadCache, type Standing, type TimeZone, timeZone } from '../ops/api.js';
import { slackErrorCode, type WebClient } from './clients.js';
import type { Identity } from './identity.js';

const userInfo = z.object({
  user: z.object({
    team_id: z.string().optional(),
    deleted: z.boolean().optional(),
    is_bot: z.boolean().optional(),
    is_stranger: z.boolean().optional(),
    is_restricted: z.boolean().optional(),
    is_ultra_restricted: z.boolean().optional(),
    enterprise_user: z.object({ enterprise_id: z.string() }).optional(),
    tz: z.string().optional(),
    tz_offset: z.number().optional(),
  }),
});

export interface Profile {
  teamId?: string;
  enterpriseId?: string;
  /** A single- or multi-channel guest. */
  guest: boolean;
  /** Deactivated. */
  deleted: boolean;
  /** A bot user, which no person answers for. */
  bot: boolean;
  /** Someone from another organization Slack shows the app without a shared channel. */
  stranger: boolean;
  /** Their time zone, when Slack gives one. */
  zone?: TimeZone;
}

/** Of the app's org or workspace: only the profile says so, since shared channels bring in other organizations. */
export function isHome(known: Identity, profile: Profile): boolean {
  if (profile.stranger) return false;
  if (known.enterpriseId !== undefined && profile.enterpriseId === known.enterpriseId) return true;
  return !known.enterpriseInstall && profile.teamId === known.teamId;
}

export class People {
  readonly #client: WebClient;
  readonly #logger: Logger;
  readonly #profiles: ReadCache<Profile | undefined>;

  constructor(client: WebClient, options: { ttlMs: number; now: () => number; logger: Logger }) {
    this.#client = client;
    this.#logger = options.logger;
    this.#profiles = new ReadCache({
      ...options,
      what: 'a user profile',
      read: (userId) => this.#read(userId),
      unreadable: () => undefined,
    });
  }

  async #read(userId: string): Promise<Profile> {
    const { user } = userInfo.parse(await this.#client.users.info({ user: userId }));
    return {
      teamId: user.team_id,
      enterpriseId: user.enterprise_user?.enterprise_id,
      guest: user.is_restricted === true || user.is_ultra_restricted === true,
      deleted: user.deleted === true,
      bot: user.is_bot === true,
      stranger: user.is_stranger === true,
      zone: timeZone.safeParse({ name: user.tz, offsetSeconds: user.tz_offset }).data,
    };
  }

  /** Read afresh, since a deactivation or a departure must count at once. */
  async standing(userId: string, home: Identity | undefined): Promise<Standing> {
    if (!home) return 'unreadable';
    let profile: Profile;
    try {
      profile = await this.#read(userId);
    } catch (error) {
      const code = slackErrorCode(error);
      if (code === 'user_not_found') return 'unknown';
      this.#logger.warn({ code }, 'could not read a user profile: the settings change that needs it is refused');
      return 'unreadable';
    }
    if (profile.deleted) return 'deactivated';
    if (profile.bot) return 'bot';
    if (!isHome(home, profile)) return 'outsider';
    return profile.guest ? 'guest' : 'member';
  }

  /** The profile, or undefined while Slack cannot say. */
  profile(userId: string): Promise<Profile | undefined> {
    return this.#profiles.get(userId);
  }

  /** Their time zone, or undefined when Slack gives none or cannot say: their times are then read in UTC. */
  async zone(userId: string): Promise<TimeZone | undefined> {
    return (await this.profile(userId))?.zone;
  }

  /** Whether someone is a guest; someone whose profile cannot be read is taken for one, so as to grant nothing. */
  async isGuest(userId: string): Promise<boolean> {
    return (await this.profile(userId))?.guest ?? true;
  }
}
