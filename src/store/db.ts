// Opens the app's SQLite database and brings its schema up to date.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Sqlite from 'better-sqlite3';
import { assertReadableSchema, migrate } from './migrations.js';

export type Database = Sqlite.Database;

const IN_MEMORY = ':memory:';

export function openDatabase(path: string): Database {
  if (path !== IN_MEMORY) mkdirSync(dirname(path), { recursive: true });
  const db = new Sqlite(path);
  try {
    // WAL lets a reader (the audit export) run while the app writes; with WAL, NORMAL sync cannot corrupt
    // the database and only risks the last commits on power loss.
    if (path !== IN_MEMORY) db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = NORMAL');
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** For tools that only read (the audit export): never creates, writes or migrates. */
export function openDatabaseReadOnly(path: string): Database {
  const db = new Sqlite(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    assertReadableSchema(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Whether the database takes writes now. A write rolled back proves nothing (SQLite writes at commit), so this
 * commits one that changes nothing: the schema version, set to itself.
 */
export function checkWritable(db: Database): { ok: true } | { ok: false; reason: string } {
  try {
    db.pragma(`user_version = ${Number(db.pragma('user_version', { simple: true }))}`);
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
