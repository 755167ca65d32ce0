// Each person's announcement message still open to their next changes: which message, the changes it lists, and
// when it was posted. Kept in the database rather than in one process, so that a restarted process (or another one
// on the same database) rewrites the same message instead of posting a second.
import { z } from 'zod';
import { camelCased, jsonText } from './columns.js';
import type { Sql } from './sql.js';

const row = camelCased(
  z.object({
    channel_id: z.string(),
    message_ts: z.string(),
    /** The changes the message lists, as the announcer gave them (JSON values). */
    changes: z.string().transform((text) => z.array(z.unknown()).parse(JSON.parse(text))),
    posted_at: z.string(),
  }),
);
export type OpenAnnouncement = z.output<typeof row>;

const SELECT = 'SELECT channel_id, message_ts, changes, posted_at FROM open_announcements WHERE actor_id = ?';
const KEEP = `
  INSERT INTO open_announcements (actor_id, channel_id, message_ts, changes, posted_at)
  VALUES (@actorId, @channelId, @messageTs, @changes, @postedAt)
  ON CONFLICT (actor_id) DO UPDATE SET channel_id = excluded.channel_id, message_ts = excluded.message_ts,
    changes = excluded.changes, posted_at = excluded.posted_at`;
const FORGET = 'DELETE FROM open_announcements WHERE actor_id = ?';
const FORGET_POSTED_BY = 'DELETE FROM open_announcements WHERE posted_at <= ?';

export class OpenAnnouncements {
  constructor(private readonly sql: Sql) {}

  async get(actorId: string): Promise<OpenAnnouncement | undefined> {
    const found = await this.sql.get(SELECT, [actorId]);
    return found === undefined ? undefined : row.parse(found);
  }

  /** Keeps (or replaces) the person's open message. */
  async keep(actorId: string, open: OpenAnnouncement): Promise<void> {
    await this.sql.write(KEEP, {
      actorId,
      channelId: open.channelId,
      messageTs: open.messageTs,
      changes: jsonText(open.changes),
      postedAt: open.postedAt,
    });
  }

  async forget(actorId: string): Promise<void> {
    await this.sql.write(FORGET, [actorId]);
  }

  /** Forgets every message posted at or before `time`. */
  async forgetPostedBy(time: Date): Promise<void> {
    await this.sql.write(FORGET_POSTED_BY, [time.toISOString()]);
  }
}
