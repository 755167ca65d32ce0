// The schema on Postgres. SQLite's first eight steps (migrations.ts) are released history in SQLite's dialect, with
// table rebuilds that Postgres does not need; a Postgres database starts at their result, version 8, in one step,
// and from then on takes the same steps as SQLite (SHARED_MIGRATIONS). The version lives in `voice_ops_schema`.
import type pg from 'pg';
import { AUDIT_OUTCOMES, AUDIT_SOURCES } from './audit.js';
import { assertNotNewer, LATEST_VERSION, SHARED_MIGRATIONS, SQLITE_HISTORY_VERSION } from './migrations.js';

// Text compares byte by byte, as SQLite's does: ISO times and ids order the same on both engines whatever the
// database's locale.
const TEXT = 'TEXT COLLATE "C"';
const json = (column: string) => `CHECK (${column} IS NULL OR ${column}::jsonb IS NOT NULL)`;
const jsonArray = (column: string) => `CHECK (jsonb_typeof(${column}::jsonb) = 'array')`;
const oneOf = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');

/** SQLite's schema at version 8, in Postgres's dialect. */
const BASELINE = `
  CREATE TABLE audit_events (
    id BIGINT PRIMARY KEY,
    at ${TEXT} NOT NULL,
    actor_id ${TEXT} NOT NULL,
    actor_name ${TEXT},
    team_id ${TEXT},
    channel_id ${TEXT},
    source ${TEXT} NOT NULL CHECK (source IN (${oneOf(AUDIT_SOURCES)})),
    action ${TEXT} NOT NULL,
    target ${TEXT},
    params ${TEXT} ${json('params')},
    outcome ${TEXT} NOT NULL CHECK (outcome IN (${oneOf(AUDIT_OUTCOMES)})),
    error_code ${TEXT},
    error_message ${TEXT},
    correlation_id ${TEXT} NOT NULL,
    hash ${TEXT}
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
    id ${TEXT} PRIMARY KEY,
    kind ${TEXT} NOT NULL,
    params ${TEXT} NOT NULL ${json('params')},
    requested_by ${TEXT} NOT NULL,
    correlation_id ${TEXT} NOT NULL,
    context ${TEXT} NOT NULL ${json('context')},
    created_at ${TEXT} NOT NULL,
    expires_at ${TEXT} NOT NULL,
    state ${TEXT} NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'used', 'cancelled'))
  );

  CREATE TABLE routes (
    phone_number ${TEXT} PRIMARY KEY,
    agent_id ${TEXT} NOT NULL,
    number_id ${TEXT},
    updated_at ${TEXT} NOT NULL,
    updated_by ${TEXT} NOT NULL
  );
  CREATE INDEX routes_by_agent ON routes (agent_id);

  CREATE TABLE delivery_keys (
    key ${TEXT} PRIMARY KEY,
    seen_at ${TEXT} NOT NULL
  );
  CREATE INDEX delivery_keys_by_time ON delivery_keys (seen_at);

  CREATE TABLE intents (
    correlation_id ${TEXT} PRIMARY KEY,
    action ${TEXT} NOT NULL,
    change ${TEXT} NOT NULL ${json('change')},
    actor ${TEXT} NOT NULL ${json('actor')},
    reply_address ${TEXT},
    opened_at ${TEXT} NOT NULL,
    closed_at ${TEXT},
    outcome ${TEXT} CHECK (outcome IS NULL OR outcome IN ('succeeded', 'failed'))
  );
  CREATE INDEX intents_by_opening ON intents (opened_at);
  CREATE INDEX intents_by_closing ON intents (closed_at);

  CREATE TABLE provider_snapshot (
    kind ${TEXT} NOT NULL CHECK (kind IN ('number', 'agent')),
    key ${TEXT} NOT NULL,
    detail ${TEXT} NOT NULL,
    PRIMARY KEY (kind, key)
  );
  CREATE TABLE provider_snapshot_taken (
    at ${TEXT} NOT NULL
  );

  CREATE TABLE approvals (
    id ${TEXT} PRIMARY KEY,
    correlation_id ${TEXT} NOT NULL UNIQUE,
    change ${TEXT} NOT NULL ${json('change')},
    requester ${TEXT} NOT NULL ${json('requester')},
    created_at ${TEXT} NOT NULL,
    expires_at ${TEXT} NOT NULL,
    state ${TEXT} NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'rejected', 'expired')),
    decided_by ${TEXT},
    decided_at ${TEXT},
    channel_id ${TEXT},
    message_ts ${TEXT}
  );
  CREATE INDEX approvals_by_expiry ON approvals (state, expires_at);

  CREATE TABLE number_facts (
    phone_number ${TEXT} PRIMARY KEY,
    capabilities ${TEXT} NOT NULL ${jsonArray('capabilities')},
    learned_at ${TEXT} NOT NULL
  );
  CREATE TABLE agent_facts (
    agent_id ${TEXT} PRIMARY KEY,
    language ${TEXT} NOT NULL,
    learned_at ${TEXT} NOT NULL
  );

  CREATE TABLE open_announcements (
    actor_id ${TEXT} PRIMARY KEY,
    channel_id ${TEXT} NOT NULL,
    message_ts ${TEXT} NOT NULL,
    changes ${TEXT} NOT NULL ${jsonArray('changes')},
    posted_at ${TEXT} NOT NULL
  );
  CREATE INDEX open_announcements_by_post ON open_announcements (posted_at);
`;

const POSTGRES_STEPS = [
  { version: SQLITE_HISTORY_VERSION, name: "SQLite's schema at version 8", sql: BASELINE },
  ...SHARED_MIGRATIONS,
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

/**
 * Brings the schema up to date. Replicas starting together queue on one advisory lock, so each step runs once; a
 * database already newer than this code is refused.
 */
export async function migratePostgres(client: pg.ClientBase, label: string): Promise<number[]> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS voice_ops_schema (version INTEGER NOT NULL)');
    const current = await postgresSchemaVersion(client);
    assertNotNewer(label, current, LATEST_VERSION);
    const applied: number[] = [];
    for (const step of POSTGRES_STEPS.filter((step) => step.version > current)) {
      await client.query('BEGIN');
      try {
        await client.query(step.sql);
        await client.query('DELETE FROM voice_ops_schema');
        await client.query('INSERT INTO voice_ops_schema (version) VALUES ($1)', [step.version]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      applied.push(step.version);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}
