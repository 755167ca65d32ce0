// The schema on Postgres: it starts at SQLite's version 8 in one migration (skipping SQLite's table rebuilds), then
// takes the SHARED_MIGRATIONS, through the same runner (migrator.ts). The version lives in `voice_ops_schema`.
import type pg from 'pg';
import { inDialect, SHARED_MIGRATIONS, SQLITE_HISTORY_VERSION, type SqlMigration } from './migrations.js';
import { type MigrationTarget, runMigrations } from './migrator.js';

/**
 * SQLite's schema at version 8, in Postgres's dialect, as released: frozen text like every migration, so its CHECK lists
 * are the audit sources and outcomes of that release, written out (a later outcome is a new migration). Text is
 * `COLLATE "C"`: it compares byte by byte, as SQLite's does, so ISO times and ids order the same on both engines
 * whatever the database's locale. JSON columns are checked by a cast to jsonb, arrays by their type.
 */
export const POSTGRES_BASELINE = `
  CREATE TABLE audit_events (
    id BIGINT PRIMARY KEY,
    at TEXT COLLATE "C" NOT NULL,
    actor_id TEXT COLLATE "C" NOT NULL,
    actor_name TEXT COLLATE "C",
    team_id TEXT COLLATE "C",
    channel_id TEXT COLLATE "C",
    source TEXT COLLATE "C" NOT NULL CHECK (source IN ('command', 'button', 'modal', 'home', 'system', 'provider')),
    action TEXT COLLATE "C" NOT NULL,
    target TEXT COLLATE "C",
    params TEXT COLLATE "C" CHECK (params IS NULL OR params::jsonb IS NOT NULL),
    outcome TEXT COLLATE "C" NOT NULL CHECK (outcome IN ('requested', 'confirmed', 'succeeded', 'failed', 'denied', 'cancelled', 'expired', 'rejected', 'awaiting_approval', 'approved')),
    error_code TEXT COLLATE "C",
    error_message TEXT COLLATE "C",
    correlation_id TEXT COLLATE "C" NOT NULL,
    hash TEXT COLLATE "C"
  );
  CREATE INDEX audit_events_by_correlation ON audit_events (correlation_id);
  CREATE INDEX audit_events_by_time ON audit_events (at, id);
  CREATE INDEX audit_events_by_actor ON audit_events (actor_id);
  CREATE INDEX audit_events_by_actor_name ON audit_events (lower(actor_name));
  CREATE INDEX audit_events_by_target ON audit_events (target);
  CREATE INDEX audit_events_by_agent ON audit_events ((params::jsonb ->> 'agentId'));
  CREATE INDEX audit_events_unsuccessful ON audit_events (outcome) WHERE outcome IN ('failed', 'rejected', 'denied');

  -- As SQLite's triggers: no update, no delete, no truncate, and an insert takes exactly the next id with a hash.
  CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP <> 'INSERT' THEN
      RAISE EXCEPTION 'audit_events is append-only';
    END IF;
    IF NEW.id IS DISTINCT FROM (SELECT coalesce(max(id), 0) + 1 FROM audit_events)
      OR coalesce(length(NEW.hash), 0) <> 64 THEN
      RAISE EXCEPTION 'audit_events is append-only: a row takes the next id and carries its hash';
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER audit_events_append_only BEFORE INSERT OR UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
  CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();

  CREATE TABLE confirmations (
    id TEXT COLLATE "C" PRIMARY KEY,
    kind TEXT COLLATE "C" NOT NULL,
    params TEXT COLLATE "C" NOT NULL CHECK (params IS NULL OR params::jsonb IS NOT NULL),
    requested_by TEXT COLLATE "C" NOT NULL,
    correlation_id TEXT COLLATE "C" NOT NULL,
    context TEXT COLLATE "C" NOT NULL CHECK (context IS NULL OR context::jsonb IS NOT NULL),
    created_at TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C" NOT NULL,
    state TEXT COLLATE "C" NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'used', 'cancelled'))
  );

  CREATE TABLE routes (
    phone_number TEXT COLLATE "C" PRIMARY KEY,
    agent_id TEXT COLLATE "C" NOT NULL,
    number_id TEXT COLLATE "C",
    updated_at TEXT COLLATE "C" NOT NULL,
    updated_by TEXT COLLATE "C" NOT NULL
  );
  CREATE INDEX routes_by_agent ON routes (agent_id);

  CREATE TABLE delivery_keys (
    key TEXT COLLATE "C" PRIMARY KEY,
    seen_at TEXT COLLATE "C" NOT NULL
  );
  CREATE INDEX delivery_keys_by_time ON delivery_keys (seen_at);

  CREATE TABLE intents (
    correlation_id TEXT COLLATE "C" PRIMARY KEY,
    action TEXT COLLATE "C" NOT NULL,
    change TEXT COLLATE "C" NOT NULL CHECK (change IS NULL OR change::jsonb IS NOT NULL),
    actor TEXT COLLATE "C" NOT NULL CHECK (actor IS NULL OR actor::jsonb IS NOT NULL),
    reply_address TEXT COLLATE "C",
    opened_at TEXT COLLATE "C" NOT NULL,
    closed_at TEXT COLLATE "C",
    outcome TEXT COLLATE "C" CHECK (outcome IS NULL OR outcome IN ('succeeded', 'failed'))
  );
  CREATE INDEX intents_by_opening ON intents (opened_at);
  CREATE INDEX intents_by_closing ON intents (closed_at);

  CREATE TABLE provider_snapshot (
    kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('number', 'agent')),
    key TEXT COLLATE "C" NOT NULL,
    detail TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (kind, key)
  );
  CREATE TABLE provider_snapshot_taken (
    at TEXT COLLATE "C" NOT NULL
  );

  CREATE TABLE approvals (
    id TEXT COLLATE "C" PRIMARY KEY,
    correlation_id TEXT COLLATE "C" NOT NULL UNIQUE,
    change TEXT COLLATE "C" NOT NULL CHECK (change IS NULL OR change::jsonb IS NOT NULL),
    requester TEXT COLLATE "C" NOT NULL CHECK (requester IS NULL OR requester::jsonb IS NOT NULL),
    created_at TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C" NOT NULL,
    state TEXT COLLATE "C" NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'rejected', 'expired')),
    decided_by TEXT COLLATE "C",
    decided_at TEXT COLLATE "C",
    channel_id TEXT COLLATE "C",
    message_ts TEXT COLLATE "C"
  );
  CREATE INDEX approvals_by_expiry ON approvals (state, expires_at);

  CREATE TABLE number_facts (
    phone_number TEXT COLLATE "C" PRIMARY KEY,
    capabilities TEXT COLLATE "C" NOT NULL CHECK (jsonb_typeof(capabilities::jsonb) = 'array'),
    learned_at TEXT COLLATE "C" NOT NULL
  );
  CREATE TABLE agent_facts (
    agent_id TEXT COLLATE "C" PRIMARY KEY,
    language TEXT COLLATE "C" NOT NULL,
    learned_at TEXT COLLATE "C" NOT NULL
  );

  CREATE TABLE open_announcements (
    actor_id TEXT COLLATE "C" PRIMARY KEY,
    channel_id TEXT COLLATE "C" NOT NULL,
    message_ts TEXT COLLATE "C" NOT NULL,
    changes TEXT COLLATE "C" NOT NULL CHECK (jsonb_typeof(changes::jsonb) = 'array'),
    posted_at TEXT COLLATE "C" NOT NULL
  );
  CREATE INDEX open_announcements_by_post ON open_announcements (posted_at);
`;

/** Postgres's migrations: the baseline at version 8, then the migrations both engines take. */
export const POSTGRES_MIGRATIONS: readonly SqlMigration[] = [
  { version: SQLITE_HISTORY_VERSION, name: "SQLite's schema at version 8", sql: POSTGRES_BASELINE },
  ...SHARED_MIGRATIONS.map((migration) => inDialect(migration, 'postgres')),
];

// Any constant will do, as long as it is the app's own: every replica takes the same one.
const MIGRATION_LOCK = 7_346_812_001;

/** The version of the schema, 0 for a database the app has not touched. */
export async function postgresSchemaVersion(client: pg.ClientBase): Promise<number> {
  const table = await client.query<{ present: boolean }>(
    "SELECT to_regclass('voice_ops_schema') IS NOT NULL AS present",
  );
  if (!table.rows[0]?.present) return 0;
  const { rows } = await client.query<{ version: number }>('SELECT version FROM voice_ops_schema');
  return rows[0]?.version ?? 0;
}

/** Replicas starting together queue on one advisory lock, held for the whole run, so each migration runs once. */
function postgresTarget(client: pg.ClientBase, label: string): MigrationTarget<SqlMigration> {
  const query = async (text: string, values?: unknown[]) => {
    await client.query(text, values);
  };
  return {
    label,
    first: SQLITE_HISTORY_VERSION,
    hold: async () => {
      await query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      try {
        await query('CREATE TABLE IF NOT EXISTS voice_ops_schema (version INTEGER NOT NULL)');
      } catch (error) {
        await query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
        throw error;
      }
    },
    release: () => query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]),
    version: () => postgresSchemaVersion(client),
    begin: () => query('BEGIN'),
    apply: (migration) => query(migration.sql),
    record: async (version) => {
      await query('DELETE FROM voice_ops_schema');
      await query('INSERT INTO voice_ops_schema (version) VALUES ($1)', [version]);
    },
    commit: () => query('COMMIT'),
    rollback: () => query('ROLLBACK'),
  };
}

/** Brings the schema up to date, and returns the versions it applied; a database newer than this code is refused. */
export function migratePostgres(
  client: pg.ClientBase,
  label: string,
  migrations: readonly SqlMigration[] = POSTGRES_MIGRATIONS,
): Promise<number[]> {
  return runMigrations(postgresTarget(client, label), migrations);
}
