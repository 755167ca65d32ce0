// Slack posts `app_rate_limited` to the Request URL when a workspace's events to the app pass Slack's hourly limit,
// and drops that minute's events. It has no inner event, so Bolt cannot tell what it is and would leave it
// unanswered (404 after three seconds), and Slack disables event subscriptions whose deliveries keep failing: the
// receiver answers it itself. Slack may send it again for the same minute; one warning a minute says enough.
import { z } from 'zod';
import type { Logger } from '../log.js';

const appRateLimited = z.object({
  type: z.literal('app_rate_limited'),
  team_id: z.string(),
  /** The epoch second of the minute from which events were dropped. */
  minute_rate_limited: z.number().int(),
});

export type AppRateLimited = z.infer<typeof appRateLimited>;

export function parseAppRateLimited(body: unknown): AppRateLimited | undefined {
  const parsed = appRateLimited.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

/** Warns of each workspace's rate-limited minute once; a repeat of the minute last warned of is logged at debug. */
export function rateLimitWarnings(logger: Logger): (notice: AppRateLimited) => void {
  const warnedMinute = new Map<string, number>();
  return (notice) => {
    const fields = {
      teamId: notice.team_id,
      minute: new Date(notice.minute_rate_limited * 1000).toISOString(),
    };
    if (warnedMinute.get(notice.team_id) === notice.minute_rate_limited) {
      logger.debug(fields, 'app_rate_limited again for a minute already warned of');
      return;
    }
    warnedMinute.set(notice.team_id, notice.minute_rate_limited);
    logger.warn(fields, 'Slack is dropping event deliveries to the app: it is rate limited');
  };
}
