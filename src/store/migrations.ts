// The schema, as an ordered list of steps. A released step is never edited: a change is a new step, so every
// database, however old, reaches the same schema. The version lives in `PRAGMA user_version`.
import type { Database } from './db.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'audit log, confirmations, routing records, delivery keys',
    // The CHECK lists repeat AUDIT_SOURCES and AUDIT_OUTCOMES on purpose: a migration is frozen text, and a test
    // checks that the two agree. `action` has no CHECK, so a new action needs no migration.
    sql: `
      CREATE TABLE audit_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        actor_id TEXT NOT NULL,
        actor_name TEXT,
        team_id TEXT,
        channel_id TEXT,
        source TEXT NOT NULL CHECK (source IN ('command', 'button', 'modal', 'home', 'system')),
        action TEXT NOT NULL,
        target TEXT,
        params TEXT CHECK (params IS NULL OR json_valid(params)),
        outcome TEXT NOT NULL
          CHECK (outcome IN ('requested', 'confirmed', 'succeeded', 'failed', 'denied', 'cancelled', 'expired')),
        error_code TEXT,
        error_message TEXT,
        correlation_id TEXT NOT NULL
      );
      CREATE INDEX audit_events_by_correlation ON audit_events (correlation_id);
      CREATE INDEX audit_events_by_time ON audit_events (at);
      CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
      CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;

      CREATE TABLE confirmations (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        params TEXT NOT NULL CHECK (json_valid(params)),
        requested_by TEXT NOT NULL,
        correlation_id TEXT NOT NULL,
        context TEXT NOT NULL CHECK (json_valid(context)),
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'used', 'cancelled'))
      );

      CREATE TABLE routes (
        phone_number TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL,
        number_id TEXT,
        updated_at TEXT NOT NULL,
        updated_by TEXT NOT NULL
      );
      CREATE INDEX routes_by_agent ON routes (agent_id);

      CREATE TABLE delivery_keys (
        key TEXT PRIMARY KEY,
        seen_at TEXT NOT NULL
      );
      CREATE INDEX delivery_keys_by_time ON delivery_keys (seen_at);
    `,
  },
  {
    version: 2,
    name: 'facts learned at buy and create time; indexes for the audit filters',
    // Self-contained: two tables of its own, and indexes on audit_events (which they only read).
    sql: `
      CREATE TABLE number_facts (
        phone_number TEXT PRIMARY KEY,
        capabilities TEXT NOT NULL CHECK (json_valid(capabilities) AND json_type(capabilities) = 'array'),
        learned_at TEXT NOT NULL
      );
      CREATE TABLE agent_facts (
        agent_id TEXT PRIMARY KEY,
        language TEXT NOT NULL,
        learned_at TEXT NOT NULL
      );
      CREATE INDEX audit_events_by_actor ON audit_events (actor_id);
      CREATE INDEX audit_events_by_actor_name ON audit_events (actor_name);
      CREATE INDEX audit_events_by_target ON audit_events (target);
      CREATE INDEX audit_events_by_agent ON audit_events (json_extract(params, '$.agentId'));
      CREATE INDEX audit_events_failed ON audit_events (outcome) WHERE outcome = 'failed';
    `,
  },
];

export class SchemaVersionError extends Error {
  override readonly name = 'SchemaVersionError';
}

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Refuses a database written by newer code: this code would misread it. */
function assertNotNewer(db: Database, version: number, latest: number): void {
  if (version > latest) {
    throw new SchemaVersionError(
      `${db.name} has schema version ${version}, but this code knows versions up to ${latest}: run a newer voice-ops`,
    );
  }
}

/** Applies the pending migrations, each in its own transaction, and returns the versions it applied. */
export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  if (migrations.some((migration, index) => migration.version !== index + 1)) {
    throw new Error('Migrations must be numbered 1, 2, 3… in order');
  }
  const latest = migrations.length;
  const current = schemaVersion(db);
  assertNotNewer(db, current, latest);

  const applied: number[] = [];
  for (const migration of migrations.slice(current)) {
    // IMMEDIATE takes the write lock before re-reading the version, so two processes starting together
    // cannot both apply the same step.
    const ran = db
      .transaction(() => {
        if (schemaVersion(db) >= migration.version) return false;
        db.exec(migration.sql);
        db.pragma(`user_version = ${migration.version}`);
        return true;
      })
      .immediate();
    if (ran) applied.push(migration.version);
  }
  return applied;
}

/** For read-only connections, which cannot migrate: the schema must exist and not be newer than this code. */
export function assertReadableSchema(db: Database): void {
  const version = schemaVersion(db);
  if (version === 0) {
    throw new SchemaVersionError(`${db.name} has no voice-ops schema: start the app once to create it`);
  }
  assertNotNewer(db, version, MIGRATIONS.length);
}
