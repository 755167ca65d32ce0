// People as Slack's users.info describes them, for what a payload does not say: whether someone is a guest
// (`is_restricted`, `is_ultra_restricted`), which org a person from another workspace belongs to
// (`enterprise_user.enterprise_id`), and their time zone (`tz`, `tz_offset`), in which the times they type are read.
// Read while a user waits, so kept for as long as group memberships are.
import { z } from 'zod';
import type { Logger } from '../log.js';
import { ReadCache, type TimeZone, timeZone } from '../ops/api.js';
import type { WebClient } from './clients.js';

const userInfo = z.object({
  user: z.object({
    team_id: z.string().optional(),
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
  /** Their time zone, when Slack gives one. */
  zone?: TimeZone;
}

export class People {
  readonly #profiles: ReadCache<Profile | undefined>;

  constructor(client: WebClient, options: { ttlMs: number; now: () => number; logger: Logger }) {
    this.#profiles = new ReadCache({
      ...options,
      what: 'a user profile',
      read: async (userId) => {
        const { user } = userInfo.parse(await client.users.info({ user: userId }));
        return {
          teamId: user.team_id,
          enterpriseId: user.enterprise_user?.enterprise_id,
          guest: user.is_restricted === true || user.is_ultra_restricted === true,
          zone: timeZone.safeParse({ name: user.tz, offsetSeconds: user.tz_offset }).data,
        };
      },
      unreadable: () => undefined,
    });
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
