// Opens the app's SQLite database, brings its schema up to date and makes sure the app can write it.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Sqlite from 'better-sqlite3';
import { BACKSTOP_CHECKPOINT_PAGES, WAL_FILE_LIMIT_BYTES } from './checkpoints.js';
import { assertReadableSchema, migrate } from './migrations.js';
import type { DatabaseFault, Writable } from './sql.js';

export type Database = Sqlite.Database;

export const IN_MEMORY = ':memory:';

/** The app's tables in a SQLite file, by name: every table but SQLite's own. */
export const APP_TABLES =
  "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name";

/** The app's database cannot serve it; the message names the path and what to do. */
export class DatabaseUnusable extends Error {
  override readonly name = 'DatabaseUnusable';
  constructor(
    readonly kind: 'cannot_open' | 'read_only',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Opens the database for writing, brings its schema up to date, and proves that it can be written. */
export async function openDatabase(path: string): Promise<Database> {
  let db: Database;
  try {
    if (path !== IN_MEMORY) mkdirSync(dirname(path), { recursive: true });
    db = new Sqlite(path);
  } catch (error) {
    throw unusable(path, error);
  }
  try {
    // WAL lets a reader (the audit export) run while the app writes; with WAL, NORMAL sync cannot corrupt
    // the database and only risks the last commits on power loss.
    if (path !== IN_MEMORY) db.pragma('journal_mode = WAL');
    // Checkpoints are a worker's (checkpoints.ts); a WAL file they have emptied is cut back when it starts over.
    db.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
    db.pragma(`journal_size_limit = ${WAL_FILE_LIMIT_BYTES}`);
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = NORMAL');
    await migrate(db);
    assertWritable(db);
    return db;
  } catch (error) {
    db.close();
    throw unusable(path, error);
  }
}

/**
 * A read-only file whose schema is up to date opens, migrates and even begins a transaction without complaint, and
 * then fails every write: a write that is rolled back is the only proof that the app can record what it does.
 */
function assertWritable(db: Database): void {
  db.exec('BEGIN');
  try {
    db.exec('CREATE TABLE write_check (x)');
  } finally {
    db.exec('ROLLBACK');
  }
}

/** SQLite's and the file system's refusals, as a sentence naming DATABASE_PATH; anything else is passed on. */
function unusable(path: string, error: unknown): unknown {
  const code = error instanceof Error && 'code' in error ? String(error.code) : '';
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') {
    return new DatabaseUnusable(
      'read_only',
      `The database ${path} cannot be written (the file or its directory is read-only): give the app write access ` +
        'to both, or set DATABASE_PATH to a writable place.',
      { cause: error },
    );
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_PERM' || code === 'EACCES' || code === 'ENOTDIR') {
    return new DatabaseUnusable(
      'cannot_open',
      `The database ${path} cannot be opened or created: set DATABASE_PATH to a file in a directory the app can ` +
        'write.',
      { cause: error },
    );
  }
  return error;
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

/** A write rolled back proves nothing (SQLite writes at commit), so this commits the schema version set to itself. */
export function checkWritable(db: Database): Writable {
  try {
    db.pragma(`user_version = ${Number(db.pragma('user_version', { simple: true }))}`);
    return { ok: true };
  } catch (error) {
    const detail = error instanceof Error ? `${error.message} (${codeOf(error)})` : String(error);
    return { ok: false, state: sqliteFault(error) ?? 'failing', detail };
  }
}

const codeOf = (error: unknown) => (error instanceof Error && 'code' in error ? String(error.code) : '');

/** What a SQLite error says of the database; undefined for an error that is not SQLite's. */
export function sqliteFault(error: unknown): DatabaseFault | undefined {
  const code = codeOf(error);
  if (!code.startsWith('SQLITE_')) return undefined;
  if (code === 'SQLITE_FULL') return 'full';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'busy';
  if (/^SQLITE_(READONLY|IOERR|CANTOPEN|PERM)/.test(code)) return 'not writable';
  return 'failing';
}
