// Each person's announcement message still open to their next changes: which message, the changes it lists, and
// when it was posted. Kept in the database rather than in one process, so that a restarted process (or another one
// on the same database) rewrites the same message instead of posting a second.
import { z } from 'zod';
import type { Database } from './db.js';

export interface OpenAnnouncement {
  channelId: string;
  messageTs: string;
  /** The changes the message lists, as the announcer gave them (JSON values). */
  changes: unknown[];
  postedAt: string;
}

const row = z
  .object({ channel_id: z.string(), message_ts: z.string(), changes: z.string(), posted_at: z.string() })
  .transform(
    (r): OpenAnnouncement => ({
      channelId: r.channel_id,
      messageTs: r.message_ts,
      changes: z.array(z.unknown()).parse(JSON.parse(r.changes)),
      postedAt: r.posted_at,
    }),
  );

export class OpenAnnouncements {
  readonly #get;
  readonly #keep;
  readonly #forget;
  readonly #forgetPostedBy;

  constructor(db: Database) {
    this.#get = db.prepare<[string]>(
      'SELECT channel_id, message_ts, changes, posted_at FROM open_announcements WHERE actor_id = ?',
    );
    this.#keep = db.prepare<
      [{ actorId: string; channelId: string; messageTs: string; changes: string; postedAt: string }]
    >(`
      INSERT INTO open_announcements (actor_id, channel_id, message_ts, changes, posted_at)
      VALUES (@actorId, @channelId, @messageTs, @changes, @postedAt)
      ON CONFLICT (actor_id) DO UPDATE SET channel_id = excluded.channel_id, message_ts = excluded.message_ts,
        changes = excluded.changes, posted_at = excluded.posted_at`);
    this.#forget = db.prepare<[string]>('DELETE FROM open_announcements WHERE actor_id = ?');
    this.#forgetPostedBy = db.prepare<[string]>('DELETE FROM open_announcements WHERE posted_at <= ?');
  }

  get(actorId: string): OpenAnnouncement | undefined {
    const found = this.#get.get(actorId);
    return found === undefined ? undefined : row.parse(found);
  }

  keep(actorId: string, open: OpenAnnouncement): void {
    this.#keep.run({ actorId, ...open, changes: JSON.stringify(open.changes) });
  }

  forget(actorId: string): void {
    this.#forget.run(actorId);
  }

  /** Forgets every message posted at or before `time`. */
  forgetPostedBy(time: Date): void {
    this.#forgetPostedBy.run(time.toISOString());
  }
}
