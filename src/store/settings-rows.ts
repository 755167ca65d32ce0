// The settings as kept: one row per setting (its value as JSON, who changed it last and when), and one version that
// every change moves on, so that a replica learns of a change made elsewhere by reading one number.
import { z } from 'zod';
import { jsonText } from './columns.js';
import type { Sql } from './sql.js';

const settingRow = z.object({
  name: z.string(),
  value: z.string().transform((text) => JSON.parse(text) as unknown),
});
const versionRow = z.object({ version: z.coerce.number() });

export interface StoredSettings {
  version: number;
  /** Each stored setting's value by name, as written (the reader checks its shape). */
  values: Map<string, unknown>;
}

// Version 0 until the first change writes its row.
export const SETTINGS_VERSION = 'SELECT COALESCE((SELECT version FROM settings_version WHERE id = 1), 0)';
const VERSION = `${SETTINGS_VERSION} AS version`;
const ROWS = 'SELECT name, value FROM settings';
const WRITE = `
  INSERT INTO settings (name, value, changed_by, changed_at) VALUES (?, ?, ?, ?)
  ON CONFLICT (name) DO UPDATE SET
    value = excluded.value, changed_by = excluded.changed_by, changed_at = excluded.changed_at`;
const REMOVE = 'DELETE FROM settings WHERE name = ?';
const BUMP = `
  INSERT INTO settings_version (id, version) VALUES (1, 1)
  ON CONFLICT (id) DO UPDATE SET version = settings_version.version + 1`;

export class SettingsRows {
  readonly #now: () => Date;

  constructor(
    private readonly sql: Sql,
    options: { now?: () => Date } = {},
  ) {
    this.#now = options.now ?? (() => new Date());
  }

  /** The number every change of the settings moves on: one read tells a replica whether to read them again. */
  async version(): Promise<number> {
    return versionRow.parse(await this.sql.get(VERSION)).version;
  }

  /**
   * Every stored setting and the version they are at least at: the version is read first, so that a change made
   * between the two reads leaves the version behind the rows, and the next check reads them again.
   */
  async read(): Promise<StoredSettings> {
    const version = await this.version();
    const rows = await this.sql.all(ROWS);
    return { version, values: new Map(rows.map((row) => settingRow.parse(row)).map((row) => [row.name, row.value])) };
  }

  /** Writes these settings (undefined: no longer set) and moves the version on. Run it in a transaction. */
  async write(values: ReadonlyMap<string, unknown>, changedBy: string): Promise<void> {
    const at = this.#now().toISOString();
    for (const [name, value] of values) {
      if (value === undefined) await this.sql.write(REMOVE, [name]);
      else await this.sql.write(WRITE, [name, jsonText(value), changedBy, at]);
    }
    await this.sql.write(BUMP);
  }
}
