// The changes each quiet subscription is to read in its next daily digest, and when its channel was last posted one.
// Kept in the database, so that whichever replica holds the background lease posts the digest, once.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { jsonText } from './columns.js';
import type { Sql } from './sql.js';

const lineRow = z.object({
  id: z.string(),
  at: z.string(),
  line: z.string().transform((text): unknown => JSON.parse(text)),
});
export type DigestLine = z.output<typeof lineRow>;

const ADD = 'INSERT INTO digest_lines (id, channel, at, line) VALUES (?, ?, ?, ?)';
const LINES = 'SELECT id, at, line FROM digest_lines WHERE channel = ? ORDER BY at, id';
const POSTED_AT = 'SELECT posted_at FROM digests WHERE channel = ?';
const FORGET = 'DELETE FROM digest_lines WHERE id = ?';
const MARK = `
  INSERT INTO digests (channel, posted_at) VALUES (?, ?)
  ON CONFLICT (channel) DO UPDATE SET posted_at = excluded.posted_at`;

export class Digests {
  constructor(private readonly sql: Sql) {}

  /** A change for `channel`'s next digest, as the announcer is to write it (a JSON value). */
  async add(channel: string, line: unknown, at: Date): Promise<void> {
    await this.sql.write(ADD, [randomUUID(), channel, at.toISOString(), jsonText(line)]);
  }

  /** The changes waiting for `channel`'s digest, oldest first. */
  async lines(channel: string): Promise<DigestLine[]> {
    return (await this.sql.all(LINES, [channel])).map((found) => lineRow.parse(found));
  }

  async postedAt(channel: string): Promise<string | undefined> {
    const found = await this.sql.get<{ posted_at: string }>(POSTED_AT, [channel]);
    return found?.posted_at;
  }

  /** After a digest is posted: its lines are gone, and the channel's time kept. Run it in one transaction. */
  async posted(channel: string, lines: readonly DigestLine[], at: Date): Promise<void> {
    for (const { id } of lines) await this.sql.write(FORGET, [id]);
    await this.sql.write(MARK, [channel, at.toISOString()]);
  }
}
