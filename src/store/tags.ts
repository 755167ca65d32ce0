// Labels and an owner on each number and agent. The provider keeps neither, so the app does; they are written in the
// transaction that audits the change setting them, so the audit log alone can rebuild them (routing-as-of.ts).
import { z } from 'zod';
import { camelCased, jsonText, optionalText } from './columns.js';
import type { Dialect, Sql } from './sql.js';

/** A number's or an agent's labels (sorted, lowercase) and its owning team (a Slack user group), if any. */
export interface Tags {
  labels: string[];
  owner?: string;
}

export const NO_TAGS: Tags = { labels: [] };

/** The labels column's JSON, read back. */
export const storedLabels = z.array(z.string());

const tagRow = camelCased(
  z.object({
    subject: z.string(),
    labels: z.string().transform((text) => storedLabels.parse(JSON.parse(text))),
    owner: optionalText,
  }),
);
const tagsOf = (row: z.output<typeof tagRow>): Tags => ({
  labels: row.labels,
  ...(row.owner !== undefined ? { owner: row.owner } : {}),
});

const UPSERT = `
  INSERT INTO tags (subject, labels, owner, updated_at, updated_by) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (subject) DO UPDATE SET
    labels = excluded.labels, owner = excluded.owner, updated_at = excluded.updated_at, updated_by = excluded.updated_by`;
const FORGET = 'DELETE FROM tags WHERE subject = ?';
const ALL = 'SELECT subject, labels, owner FROM tags ORDER BY subject';
const some = (dialect: Dialect) => `SELECT subject, labels, owner FROM tags WHERE subject ${dialect.inJsonArray('?')}`;

export class TagRecords {
  readonly #now: () => Date;
  readonly #some: string;

  constructor(
    private readonly sql: Sql,
    options: { now?: () => Date } = {},
  ) {
    this.#now = options.now ?? (() => new Date());
    this.#some = some(sql.dialect);
  }

  /** The tags of each of these numbers and agents that has any, in one query. */
  async of(subjects: readonly string[]): Promise<Map<string, Tags>> {
    if (subjects.length === 0) return new Map();
    const rows = await this.sql.all(this.#some, [jsonText([...new Set(subjects)])]);
    return new Map(rows.map((found) => tagRow.parse(found)).map((row) => [row.subject, tagsOf(row)]));
  }

  /** Every number and agent that has labels or an owner. */
  async all(): Promise<Map<string, Tags>> {
    const rows = await this.sql.all(ALL);
    return new Map(rows.map((found) => tagRow.parse(found)).map((row) => [row.subject, tagsOf(row)]));
  }

  /** Replaces a subject's tags; none left forgets it. Run it in the transaction that audits the change. */
  async set(subject: string, tags: Tags, by: string): Promise<void> {
    if (tags.labels.length === 0 && tags.owner === undefined) {
      await this.forget(subject);
      return;
    }
    const at = this.#now().toISOString();
    await this.sql.write(UPSERT, [subject, jsonText(tags.labels), tags.owner ?? null, at, by]);
  }

  /** After a number is released or an agent deleted: what comes back later starts bare. */
  async forget(subject: string): Promise<void> {
    await this.sql.write(FORGET, [subject]);
  }
}
