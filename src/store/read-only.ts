// The store opened by a tool that only reads it (`npm run audit`, `npm run settings`): a SQLite file read-only, or a
// Postgres database through two connections at most; either way the schema must be the one this code reads.
import { existsSync } from 'node:fs';
import type { DatabaseTarget } from '../database-target.js';
import { openDatabaseReadOnly } from './db.js';
import { assertNotNewer, LATEST_VERSION, SchemaVersionError } from './migrations.js';
import { postgresSchemaVersion } from './postgres-schema.js';
import { postgresEngine, reasonOf } from './postgres-sql.js';
import type { SqlEngine } from './sql.js';
import { sqliteEngine } from './sqlite-sql.js';

/** The schema must be the one this code reads: the app migrates it, this tool only reads. */
function assertReadable(label: string, version: number): void {
  if (version === 0) throw new SchemaVersionError(`${label} has no voice-ops schema: start the app once to create it`);
  if (version < LATEST_VERSION) {
    throw new SchemaVersionError(
      `${label} has schema version ${version}, older than this code's ${LATEST_VERSION}: start the app once to ` +
        'migrate it',
    );
  }
  assertNotNewer(label, version, LATEST_VERSION);
}

/**
 * Read-only use of a server the app shares: two connections at most, and the app's statement timeout, which each
 * statement of a tool (a page of an export, of a verification) takes a small part of.
 */
async function openPostgres(target: Extract<DatabaseTarget, { kind: 'postgres' }>): Promise<SqlEngine> {
  const engine = postgresEngine(target.url, {
    poolSize: 2,
    statementTimeoutMs: target.statementTimeoutMs,
    onIdleError: () => {},
  });
  try {
    const version = await engine.connected(postgresSchemaVersion).catch((error: unknown) => {
      // The label names the host and database, never the URL, which may carry a password.
      throw new Error(
        `cannot reach ${engine.label} (${reasonOf(error)}): check DATABASE_URL and that the server takes connections`,
      );
    });
    assertReadable(engine.label, version);
    return engine;
  } catch (error) {
    await engine.close();
    throw error;
  }
}

/** The store at `target`, only to be read: a missing SQLite file is not created, and the schema is not migrated. */
export async function openReadOnly(target: DatabaseTarget): Promise<SqlEngine> {
  if (target.kind === 'postgres') return openPostgres(target);
  if (!existsSync(target.path)) {
    throw new Error(`no database at ${target.path} (pass --db PATH, or set DATABASE_URL or DATABASE_PATH)`);
  }
  return sqliteEngine(openDatabaseReadOnly(target.path), target.path);
}
