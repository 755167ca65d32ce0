// The changes each quiet subscription is to read in its next daily digest, and when its channel was last posted one.
// Kept in the database, so that whichever replica holds the background lease posts the digest, once.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { jsonText } from './columns.js';
import type { Sql } from './sql.js';

/** A line as written: its JSON is read by whoever posts it, which skips one that no longer reads. */
const lineRow = z.object({ id: z.string(), at: z.string(), line: z.string() });
export type DigestLine = z.output<typeof lineRow>;

const ADD = 'INSERT INTO digest_lines (id, channel, at, line) VALUES (?, ?, ?, ?)';
const LINES = 'SELECT id, at, line FROM digest_lines WHERE channel = ? ORDER BY at, id';
const FORGET = 'DELETE FROM digest_lines WHERE id = ?';
const MARK = `
  INSERT INTO digests (channel, posted_at) VALUES (?, ?)
  ON CONFLICT (channel) DO UPDATE SET posted_at = excluded.posted_at`;
// A second claimer waits on the first one's row, then finds it no longer due: it changes nothing.
const CLAIM = `
  INSERT INTO digests (channel, posted_at) VALUES (?, ?)
  ON CONFLICT (channel) DO UPDATE SET posted_at = excluded.posted_at WHERE digests.posted_at < ?`;
const FORGET_CHANNEL = 'DELETE FROM digest_lines WHERE channel = ?';

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

  /**
   * Claims `channel`'s digest when it has lines and was last posted before `due`: marks it posted at `at` and takes
   * its lines, which are then posted once, by whoever claimed them. None when another replica claimed it first, or
   * nothing waits. Run it in one transaction.
   */
  async claim(channel: string, due: Date, at: Date): Promise<DigestLine[]> {
    const lines = await this.lines(channel);
    if (lines.length === 0) return [];
    if ((await this.sql.run(CLAIM, [channel, at.toISOString(), due.toISOString()])) === 0) return [];
    for (const { id } of lines) await this.sql.write(FORGET, [id]);
    return lines;
  }

  /** A channel no longer quiet: its waiting lines would be stale news by its next digest. */
  async forget(channel: string): Promise<void> {
    await this.sql.write(FORGET_CHANNEL, [channel]);
  }

  /** After a digest is posted: its lines are gone, and the channel's time kept. Run it in one transaction. */
  async posted(channel: string, lines: readonly DigestLine[], at: Date): Promise<void> {
    for (const { id } of lines) await this.sql.write(FORGET, [id]);
    await this.sql.write(MARK, [channel, at.toISOString()]);
  }
}
