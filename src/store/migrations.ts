// The schema, as an ordered list of migrations. A released migration is frozen text, never edited, and never built
// from live code (a list the app widens later, say): a change is a new migration, so every database, however old,
// reaches the same schema. test/store/migrations.test.ts keeps a hash of every migration's text to hold this. On
// SQLite the version lives in `PRAGMA user_version`. Migrations 1–8 are SQLite's own history; Postgres starts at
// their result (postgres-schema.ts), and from migration 9 on both engines take the same migrations, written once in
// the SQL they share, or once per engine where the dialects part. One runner (migrator.ts) applies them on either engine.
import type Sqlite from 'better-sqlite3';
import { CHAINED_COLUMNS, type ChainedRow, chainHash, GENESIS_HASH } from './audit-chain.js';
import { assertNotNewer, latestOf, type MigrationTarget, runMigrations, SchemaVersionError } from './migrator.js';

export { assertNotNewer, SchemaVersionError };

// The connection a SQLite migration runs on (db.ts, which runs the migrations, names it the same).
type Database = Sqlite.Database;

/**
 * A SQLite migration is SQL, or, when it must compute what SQL cannot (hashes), a function; either runs in one
 * transaction.
 */
export type SqliteMigration = { version: number; name: string } & ({ sql: string } | { run: (db: Database) => void });

const BACKFILL_PAGE = 1000;

/** Hashes the rows written before the chain existed, oldest first, each chained to the one before. */
function hashExistingRows(db: Database): void {
  const page = db.prepare<[number, number], ChainedRow & { id: number }>(
    `SELECT ${CHAINED_COLUMNS.join(', ')} FROM audit_events WHERE id > ? ORDER BY id LIMIT ?`,
  );
  const store = db.prepare<[string, number]>('UPDATE audit_events SET hash = ? WHERE id = ?');
  let previous = GENESIS_HASH;
  let after = 0;
  for (let rows = page.all(after, BACKFILL_PAGE); rows.length; rows = page.all(after, BACKFILL_PAGE)) {
    for (const row of rows) {
      previous = chainHash(previous, row);
      store.run(previous, row.id);
      after = row.id;
    }
  }
}

/**
 * SQLite cannot alter a CHECK: the audit table is rebuilt with the same rows, ids and hashes (so the chain holds),
 * allowing these outcomes, and its indexes and triggers are made again. Versions 4 and 5 run it, so it is frozen
 * like them: a rebuild that needs other columns is a new function.
 */
function rebuildAuditEvents(outcomes: readonly string[]): string {
  return `
      DROP TRIGGER audit_events_no_update;
      DROP TRIGGER audit_events_no_delete;
      DROP TRIGGER audit_events_append_only;
      CREATE TABLE audit_events_rebuilt (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        actor_id TEXT NOT NULL,
        actor_name TEXT,
        team_id TEXT,
        channel_id TEXT,
        source TEXT NOT NULL CHECK (source IN ('command', 'button', 'modal', 'home', 'system', 'provider')),
        action TEXT NOT NULL,
        target TEXT,
        params TEXT CHECK (params IS NULL OR json_valid(params)),
        outcome TEXT NOT NULL CHECK (outcome IN (${outcomes.map((outcome) => `'${outcome}'`).join(', ')})),
        error_code TEXT,
        error_message TEXT,
        correlation_id TEXT NOT NULL,
        hash TEXT
      );
      INSERT INTO audit_events_rebuilt (id, at, actor_id, actor_name, team_id, channel_id, source, action, target,
        params, outcome, error_code, error_message, correlation_id, hash)
      SELECT id, at, actor_id, actor_name, team_id, channel_id, source, action, target,
        params, outcome, error_code, error_message, correlation_id, hash
      FROM audit_events ORDER BY id;
      DROP TABLE audit_events;
      ALTER TABLE audit_events_rebuilt RENAME TO audit_events;
      CREATE INDEX audit_events_by_correlation ON audit_events (correlation_id);
      CREATE INDEX audit_events_by_time ON audit_events (at);
      CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
      CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
      CREATE TRIGGER audit_events_append_only BEFORE INSERT ON audit_events
        WHEN NEW.id IS NOT (SELECT coalesce(max(id), 0) + 1 FROM audit_events)
          OR coalesce(length(NEW.hash), 0) <> 64
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only: a row takes the next id and carries its hash'); END;
  `;
}

const OUTCOMES_V4 = ['requested', 'confirmed', 'succeeded', 'failed', 'denied', 'cancelled', 'expired', 'rejected'];

const SQLITE_HISTORY: readonly SqliteMigration[] = [
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
    name: 'audit hash chain; inserts only at the next id',
    run: (db) => {
      db.exec(`
        DROP TRIGGER audit_events_no_update;
        ALTER TABLE audit_events ADD COLUMN hash TEXT;
      `);
      hashExistingRows(db);
      // REPLACE deletes the row it conflicts with without firing DELETE triggers, and an insert may name any free
      // id: so an insert must take exactly the next id (which no REPLACE, IGNORE or upsert can conflict with, and
      // which cannot slip a row into the past) and carry a hash.
      db.exec(`
        CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
          BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
        CREATE TRIGGER audit_events_append_only BEFORE INSERT ON audit_events
          WHEN NEW.id IS NOT (SELECT coalesce(max(id), 0) + 1 FROM audit_events)
            OR coalesce(length(NEW.hash), 0) <> 64
          BEGIN SELECT RAISE(ABORT, 'audit_events is append-only: a row takes the next id and carries its hash'); END;
      `);
    },
  },
  {
    version: 3,
    name: 'intents of changes under way, and the provider state last seen',
    sql: `
      CREATE TABLE intents (
        correlation_id TEXT PRIMARY KEY,
        action TEXT NOT NULL,
        change TEXT NOT NULL CHECK (json_valid(change)),
        actor TEXT NOT NULL CHECK (json_valid(actor)),
        reply_address TEXT,
        opened_at TEXT NOT NULL,
        closed_at TEXT,
        outcome TEXT CHECK (outcome IS NULL OR outcome IN ('succeeded', 'failed'))
      );
      CREATE INDEX intents_by_opening ON intents (opened_at);
      CREATE INDEX intents_by_closing ON intents (closed_at);

      CREATE TABLE provider_snapshot (
        kind TEXT NOT NULL CHECK (kind IN ('number', 'agent')),
        key TEXT NOT NULL,
        detail TEXT NOT NULL,
        PRIMARY KEY (kind, key)
      );
      CREATE TABLE provider_snapshot_taken (
        at TEXT NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: "audit sources and outcomes: 'provider' (changes made outside the app) and 'rejected' (refused input)",
    sql: rebuildAuditEvents(OUTCOMES_V4),
  },
  {
    version: 5,
    name: "second approvers: the approvals table, and the audit outcomes 'awaiting_approval' and 'approved'",
    sql: `
      ${rebuildAuditEvents([...OUTCOMES_V4, 'awaiting_approval', 'approved'])}
      CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        correlation_id TEXT NOT NULL UNIQUE,
        change TEXT NOT NULL CHECK (json_valid(change)),
        requester TEXT NOT NULL CHECK (json_valid(requester)),
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'rejected', 'expired')),
        decided_by TEXT,
        decided_at TEXT,
        channel_id TEXT,
        message_ts TEXT
      );
      CREATE INDEX approvals_by_expiry ON approvals (state, expires_at);
    `,
  },
  {
    version: 6,
    name: 'facts learned at buy and create time; indexes for the audit filters',
    // Two tables of its own, and indexes on audit_events, which the rebuilds of versions 4 and 5 would have dropped
    // with the old table: so they come after them.
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
  {
    version: 7,
    name: 'indexes for the audit filters by name in any case and by refused steps',
    // The queries in audit-changes.ts repeat these expressions exactly, so that SQLite can use the indexes.
    sql: `
      DROP INDEX audit_events_by_actor_name;
      CREATE INDEX audit_events_by_actor_name ON audit_events (actor_name COLLATE NOCASE);
      DROP INDEX audit_events_failed;
      CREATE INDEX audit_events_unsuccessful ON audit_events (outcome)
        WHERE outcome IN ('failed', 'rejected', 'denied');
    `,
  },
  {
    version: 8,
    name: "each person's open announcement, kept where a restarted process finds it",
    sql: `
      CREATE TABLE open_announcements (
        actor_id TEXT PRIMARY KEY,
        channel_id TEXT NOT NULL,
        message_ts TEXT NOT NULL,
        changes TEXT NOT NULL CHECK (json_valid(changes) AND json_type(changes) = 'array'),
        posted_at TEXT NOT NULL
      );
      CREATE INDEX open_announcements_by_post ON open_announcements (posted_at);
    `,
  },
];

/** The version SQLite's own history reaches, where Postgres's baseline starts. */
export const SQLITE_HISTORY_VERSION = 8;

/** A migration in one engine's SQL. */
export type SqlMigration = { version: number; name: string; sql: string };

/** A migration both engines take: one text both speak, or one text for each where the dialects part. */
export type SharedMigration = { version: number; name: string } & (
  | { sql: string }
  | { sqlite: string; postgres: string }
);

/** Migrations both engines take. */
export const SHARED_MIGRATIONS: readonly SharedMigration[] = [
  {
    version: 9,
    name: "leases: one replica's hold on the background work, a change's on its number or agent",
    sql: `
      CREATE TABLE leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 10,
    name: 'batches: a bulk plan, and one row per item with its outcome',
    sql: `
      CREATE TABLE batches (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        plan TEXT NOT NULL,
        requested_by TEXT NOT NULL,
        actor TEXT NOT NULL,
        state TEXT NOT NULL,
        total INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX batches_by_state ON batches (state);
      CREATE TABLE batch_items (
        batch_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        change TEXT NOT NULL,
        state TEXT NOT NULL,
        error TEXT,
        PRIMARY KEY (batch_id, seq)
      );
    `,
  },
  {
    version: 11,
    name: 'the replica that holds each lease and opened each intent, so that a dead one is taken over at once',
    sql: `
      ALTER TABLE leases ADD COLUMN replica TEXT;
      ALTER TABLE intents ADD COLUMN replica TEXT;
      CREATE INDEX intents_open_by_replica ON intents (replica) WHERE closed_at IS NULL;
    `,
  },
  {
    version: 12,
    name: 'batches and their items checked as the other tables are: states from their lists, JSON as objects',
    // SQLite cannot add a CHECK: both tables are rebuilt with the same rows (a batch keeps its id, an item its batch
    // and number) and their index made again. Postgres adds the checks, and gives the text of every table the shared
    // migrations made (batches, their items, leases, the replica of an intent) the byte-by-byte collation of the baseline's.
    // A batch's kind, like an audit action, has no CHECK: a new kind of bulk change needs no migration.
    sqlite: `
      CREATE TABLE batches_rebuilt (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        plan TEXT NOT NULL CHECK (json_valid(plan) AND json_type(plan) = 'object'),
        requested_by TEXT NOT NULL,
        actor TEXT NOT NULL CHECK (json_valid(actor) AND json_type(actor) = 'object'),
        state TEXT NOT NULL CHECK (state IN ('planned', 'awaiting', 'running', 'stopping', 'stopped', 'finished',
          'interrupted', 'expired')),
        total INTEGER NOT NULL CHECK (total >= 0),
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      INSERT INTO batches_rebuilt (id, kind, plan, requested_by, actor, state, total, created_at, expires_at, updated_at)
      SELECT id, kind, plan, requested_by, actor, state, total, created_at, expires_at, updated_at FROM batches;
      DROP TABLE batches;
      ALTER TABLE batches_rebuilt RENAME TO batches;
      CREATE INDEX batches_by_state ON batches (state);

      CREATE TABLE batch_items_rebuilt (
        batch_id TEXT NOT NULL,
        seq INTEGER NOT NULL CHECK (seq >= 1),
        change TEXT NOT NULL CHECK (json_valid(change) AND json_type(change) = 'object'),
        state TEXT NOT NULL
          CHECK (state IN ('pending', 'running', 'succeeded', 'failed', 'cancelled', 'unchanged')),
        error TEXT,
        PRIMARY KEY (batch_id, seq)
      );
      INSERT INTO batch_items_rebuilt (batch_id, seq, change, state, error)
      SELECT batch_id, seq, change, state, error FROM batch_items ORDER BY batch_id, seq;
      DROP TABLE batch_items;
      ALTER TABLE batch_items_rebuilt RENAME TO batch_items;
    `,
    postgres: `
      ALTER TABLE batches
        ALTER COLUMN id TYPE TEXT COLLATE "C",
        ALTER COLUMN kind TYPE TEXT COLLATE "C",
        ALTER COLUMN plan TYPE TEXT COLLATE "C",
        ALTER COLUMN requested_by TYPE TEXT COLLATE "C",
        ALTER COLUMN actor TYPE TEXT COLLATE "C",
        ALTER COLUMN state TYPE TEXT COLLATE "C",
        ALTER COLUMN created_at TYPE TEXT COLLATE "C",
        ALTER COLUMN expires_at TYPE TEXT COLLATE "C",
        ALTER COLUMN updated_at TYPE TEXT COLLATE "C",
        ADD CHECK (jsonb_typeof(plan::jsonb) = 'object'),
        ADD CHECK (jsonb_typeof(actor::jsonb) = 'object'),
        ADD CHECK (state IN ('planned', 'awaiting', 'running', 'stopping', 'stopped', 'finished', 'interrupted',
          'expired')),
        ADD CHECK (total >= 0);
      ALTER TABLE batch_items
        ALTER COLUMN batch_id TYPE TEXT COLLATE "C",
        ALTER COLUMN change TYPE TEXT COLLATE "C",
        ALTER COLUMN state TYPE TEXT COLLATE "C",
        ALTER COLUMN error TYPE TEXT COLLATE "C",
        ADD CHECK (seq >= 1),
        ADD CHECK (jsonb_typeof(change::jsonb) = 'object'),
        ADD CHECK (state IN ('pending', 'running', 'succeeded', 'failed', 'cancelled', 'unchanged'));
      ALTER TABLE leases
        ALTER COLUMN name TYPE TEXT COLLATE "C",
        ALTER COLUMN holder TYPE TEXT COLLATE "C",
        ALTER COLUMN expires_at TYPE TEXT COLLATE "C",
        ALTER COLUMN replica TYPE TEXT COLLATE "C";
      ALTER TABLE intents ALTER COLUMN replica TYPE TEXT COLLATE "C";
    `,
  },
  {
    version: 13,
    name: 'settings: roles, guardrails and channels, one row each, and the version every change moves on',
    // The version's row is written by the first change: a database no one has used stays empty.
    sqlite: `
      CREATE TABLE settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL CHECK (json_valid(value)),
        changed_by TEXT NOT NULL,
        changed_at TEXT NOT NULL
      );
      CREATE TABLE settings_version (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version INTEGER NOT NULL
      );
    `,
    postgres: `
      CREATE TABLE settings (
        name TEXT COLLATE "C" PRIMARY KEY,
        value TEXT COLLATE "C" NOT NULL CHECK (value::jsonb IS NOT NULL),
        changed_by TEXT COLLATE "C" NOT NULL,
        changed_at TEXT COLLATE "C" NOT NULL
      );
      CREATE TABLE settings_version (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version BIGINT NOT NULL
      );
    `,
  },
  {
    version: 14,
    name: "workflow steps: the audit source 'workflow', and one row per step execution with the change it started",
    // SQLite cannot alter a CHECK: the audit table is rebuilt with the same rows, ids and hashes, and every index and
    // trigger made on it since (versions 1, 5, 6 and 7) is made again. Postgres swaps the CHECK.
    sqlite: `
      DROP TRIGGER audit_events_no_update;
      DROP TRIGGER audit_events_no_delete;
      DROP TRIGGER audit_events_append_only;
      CREATE TABLE audit_events_rebuilt (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        actor_id TEXT NOT NULL,
        actor_name TEXT,
        team_id TEXT,
        channel_id TEXT,
        source TEXT NOT NULL
          CHECK (source IN ('command', 'button', 'modal', 'home', 'system', 'provider', 'workflow')),
        action TEXT NOT NULL,
        target TEXT,
        params TEXT CHECK (params IS NULL OR json_valid(params)),
        outcome TEXT NOT NULL CHECK (outcome IN ('requested', 'confirmed', 'succeeded', 'failed', 'denied', 'cancelled',
          'expired', 'rejected', 'awaiting_approval', 'approved')),
        error_code TEXT,
        error_message TEXT,
        correlation_id TEXT NOT NULL,
        hash TEXT
      );
      INSERT INTO audit_events_rebuilt (id, at, actor_id, actor_name, team_id, channel_id, source, action, target,
        params, outcome, error_code, error_message, correlation_id, hash)
      SELECT id, at, actor_id, actor_name, team_id, channel_id, source, action, target,
        params, outcome, error_code, error_message, correlation_id, hash
      FROM audit_events ORDER BY id;
      DROP TABLE audit_events;
      ALTER TABLE audit_events_rebuilt RENAME TO audit_events;
      CREATE INDEX audit_events_by_correlation ON audit_events (correlation_id);
      CREATE INDEX audit_events_by_time ON audit_events (at);
      CREATE INDEX audit_events_by_actor ON audit_events (actor_id);
      CREATE INDEX audit_events_by_actor_name ON audit_events (actor_name COLLATE NOCASE);
      CREATE INDEX audit_events_by_target ON audit_events (target);
      CREATE INDEX audit_events_by_agent ON audit_events (json_extract(params, '$.agentId'));
      CREATE INDEX audit_events_unsuccessful ON audit_events (outcome)
        WHERE outcome IN ('failed', 'rejected', 'denied');
      CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
      CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
      CREATE TRIGGER audit_events_append_only BEFORE INSERT ON audit_events
        WHEN NEW.id IS NOT (SELECT coalesce(max(id), 0) + 1 FROM audit_events)
          OR coalesce(length(NEW.hash), 0) <> 64
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only: a row takes the next id and carries its hash'); END;

      CREATE TABLE workflow_steps (
        execution_id TEXT PRIMARY KEY,
        workflow_execution_id TEXT NOT NULL,
        callback_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        correlation_id TEXT,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        outcome TEXT CHECK (outcome IS NULL OR outcome IN ('completed', 'failed'))
      );
      CREATE INDEX workflow_steps_by_correlation ON workflow_steps (correlation_id);
      CREATE INDEX workflow_steps_open ON workflow_steps (started_at) WHERE ended_at IS NULL;
    `,
    postgres: `
      ALTER TABLE audit_events DROP CONSTRAINT audit_events_source_check;
      ALTER TABLE audit_events ADD CONSTRAINT audit_events_source_check
        CHECK (source IN ('command', 'button', 'modal', 'home', 'system', 'provider', 'workflow'));

      CREATE TABLE workflow_steps (
        execution_id TEXT COLLATE "C" PRIMARY KEY,
        workflow_execution_id TEXT COLLATE "C" NOT NULL,
        callback_id TEXT COLLATE "C" NOT NULL,
        user_id TEXT COLLATE "C" NOT NULL,
        correlation_id TEXT COLLATE "C",
        started_at TEXT COLLATE "C" NOT NULL,
        ended_at TEXT COLLATE "C",
        outcome TEXT COLLATE "C" CHECK (outcome IS NULL OR outcome IN ('completed', 'failed'))
      );
      CREATE INDEX workflow_steps_by_correlation ON workflow_steps (correlation_id);
      CREATE INDEX workflow_steps_open ON workflow_steps (started_at) WHERE ended_at IS NULL;
    `,
  },
  {
    version: 15,
    name: "records' version: moved on by every change to routes and agent_facts, whoever makes it",
    // Read with each delivery's key (store/delivery-keys.ts), so that a page of agents can reuse the records it read at that
    // version. Triggers keep it, so that no writer can forget it. Its row is written by the first change, as the
    // settings' version's is.
    sqlite: `
      CREATE TABLE records_version (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version INTEGER NOT NULL
      );
      CREATE TRIGGER routes_insert AFTER INSERT ON routes BEGIN
        INSERT INTO records_version (id, version) VALUES (1, 1)
          ON CONFLICT (id) DO UPDATE SET version = records_version.version + 1;
      END;
      CREATE TRIGGER routes_update AFTER UPDATE ON routes BEGIN
        INSERT INTO records_version (id, version) VALUES (1, 1)
          ON CONFLICT (id) DO UPDATE SET version = records_version.version + 1;
      END;
      CREATE TRIGGER routes_delete AFTER DELETE ON routes BEGIN
        INSERT INTO records_version (id, version) VALUES (1, 1)
          ON CONFLICT (id) DO UPDATE SET version = records_version.version + 1;
      END;
      CREATE TRIGGER agent_facts_insert AFTER INSERT ON agent_facts BEGIN
        INSERT INTO records_version (id, version) VALUES (1, 1)
          ON CONFLICT (id) DO UPDATE SET version = records_version.version + 1;
      END;
      CREATE TRIGGER agent_facts_update AFTER UPDATE ON agent_facts BEGIN
        INSERT INTO records_version (id, version) VALUES (1, 1)
          ON CONFLICT (id) DO UPDATE SET version = records_version.version + 1;
      END;
      CREATE TRIGGER agent_facts_delete AFTER DELETE ON agent_facts BEGIN
        INSERT INTO records_version (id, version) VALUES (1, 1)
          ON CONFLICT (id) DO UPDATE SET version = records_version.version + 1;
      END;
    `,
    postgres: `
      CREATE TABLE records_version (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version BIGINT NOT NULL
      );
      CREATE FUNCTION records_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO records_version (id, version) VALUES (1, 1)
          ON CONFLICT (id) DO UPDATE SET version = records_version.version + 1;
        RETURN NULL;
      END $$;
      CREATE TRIGGER routes_changed AFTER INSERT OR UPDATE OR DELETE ON routes
        FOR EACH ROW EXECUTE FUNCTION records_changed();
      CREATE TRIGGER routes_truncated AFTER TRUNCATE ON routes
        FOR EACH STATEMENT EXECUTE FUNCTION records_changed();
      CREATE TRIGGER agent_facts_changed AFTER INSERT OR UPDATE OR DELETE ON agent_facts
        FOR EACH ROW EXECUTE FUNCTION records_changed();
      CREATE TRIGGER agent_facts_truncated AFTER TRUNCATE ON agent_facts
        FOR EACH STATEMENT EXECUTE FUNCTION records_changed();
    `,
  },
  {
    version: 16,
    name: "records' version on Postgres: moved on before each statement's rows are locked, not after each row",
    // A transaction that wrote a route held the version's row while it went on locking routes (the drift pass drops
    // several); a lone write elsewhere locked its route and then waited for the version: each waited for the other.
    // Taken before any row, the version is every writer's first lock. SQLite has one writer at a time.
    sqlite: '-- Postgres only',
    postgres: `
      DROP TRIGGER routes_changed ON routes;
      DROP TRIGGER agent_facts_changed ON agent_facts;
      CREATE TRIGGER routes_changing BEFORE INSERT OR UPDATE OR DELETE ON routes
        FOR EACH STATEMENT EXECUTE FUNCTION records_changed();
      CREATE TRIGGER agent_facts_changing BEFORE INSERT OR UPDATE OR DELETE ON agent_facts
        FOR EACH STATEMENT EXECUTE FUNCTION records_changed();
    `,
  },
  {
    version: 17,
    name: "audit checkpoints: the chain's positions a read verified, and an agent's history read from indexes alone",
    // A read verifies only the rows after the last checkpoint (audit-checkpoints.ts). An agent's history matches the
    // agent a route left too: with that field indexed, its OR is answered from indexes rather than a table scan.
    sqlite: `
      CREATE TABLE audit_checkpoints (
        id INTEGER PRIMARY KEY,
        hash TEXT NOT NULL CHECK (length(hash) = 64),
        verified_at TEXT NOT NULL
      );
      CREATE INDEX audit_events_by_previous_agent ON audit_events (json_extract(params, '$.previousAgentId'));
    `,
    postgres: `
      CREATE TABLE audit_checkpoints (
        id BIGINT PRIMARY KEY,
        hash TEXT COLLATE "C" NOT NULL CHECK (length(hash) = 64),
        verified_at TEXT COLLATE "C" NOT NULL
      );
      CREATE INDEX audit_events_by_previous_agent ON audit_events ((params::jsonb ->> 'previousAgentId'));
    `,
  },
  {
    version: 18,
    name: "the audit outcome 'unknown': a change the provider has not answered for, being settled",
    // SQLite cannot alter a CHECK: the audit table is rebuilt with the same rows, ids and hashes, and every index and
    // trigger made on it (as versions 14 and 17 left them) is made again. Postgres swaps the CHECK.
    sqlite: `
      DROP TRIGGER audit_events_no_update;
      DROP TRIGGER audit_events_no_delete;
      DROP TRIGGER audit_events_append_only;
      CREATE TABLE audit_events_rebuilt (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        actor_id TEXT NOT NULL,
        actor_name TEXT,
        team_id TEXT,
        channel_id TEXT,
        source TEXT NOT NULL
          CHECK (source IN ('command', 'button', 'modal', 'home', 'system', 'provider', 'workflow')),
        action TEXT NOT NULL,
        target TEXT,
        params TEXT CHECK (params IS NULL OR json_valid(params)),
        outcome TEXT NOT NULL CHECK (outcome IN ('requested', 'confirmed', 'succeeded', 'failed', 'denied', 'cancelled',
          'expired', 'rejected', 'awaiting_approval', 'approved', 'unknown')),
        error_code TEXT,
        error_message TEXT,
        correlation_id TEXT NOT NULL,
        hash TEXT
      );
      INSERT INTO audit_events_rebuilt (id, at, actor_id, actor_name, team_id, channel_id, source, action, target,
        params, outcome, error_code, error_message, correlation_id, hash)
      SELECT id, at, actor_id, actor_name, team_id, channel_id, source, action, target,
        params, outcome, error_code, error_message, correlation_id, hash
      FROM audit_events ORDER BY id;
      DROP TABLE audit_events;
      ALTER TABLE audit_events_rebuilt RENAME TO audit_events;
      CREATE INDEX audit_events_by_correlation ON audit_events (correlation_id);
      CREATE INDEX audit_events_by_time ON audit_events (at);
      CREATE INDEX audit_events_by_actor ON audit_events (actor_id);
      CREATE INDEX audit_events_by_actor_name ON audit_events (actor_name COLLATE NOCASE);
      CREATE INDEX audit_events_by_target ON audit_events (target);
      CREATE INDEX audit_events_by_agent ON audit_events (json_extract(params, '$.agentId'));
      CREATE INDEX audit_events_by_previous_agent ON audit_events (json_extract(params, '$.previousAgentId'));
      CREATE INDEX audit_events_unsuccessful ON audit_events (outcome)
        WHERE outcome IN ('failed', 'rejected', 'denied');
      CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
      CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
      CREATE TRIGGER audit_events_append_only BEFORE INSERT ON audit_events
        WHEN NEW.id IS NOT (SELECT coalesce(max(id), 0) + 1 FROM audit_events)
          OR coalesce(length(NEW.hash), 0) <> 64
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only: a row takes the next id and carries its hash'); END;
    `,
    postgres: `
      ALTER TABLE audit_events DROP CONSTRAINT audit_events_outcome_check;
      ALTER TABLE audit_events ADD CONSTRAINT audit_events_outcome_check
        CHECK (outcome IN ('requested', 'confirmed', 'succeeded', 'failed', 'denied', 'cancelled', 'expired', 'rejected',
          'awaiting_approval', 'approved', 'unknown'));
    `,
  },
  {
    version: 19,
    name: "records' version dropped: a page of agents reads its records each time",
    // Versions 15 and 16 kept it so that a page of agents could be answered from memory, saving one small query; the
    // triggers cost every write of a route a second row to lock, and one deadlock to work around.
    sqlite: `
      DROP TRIGGER routes_insert;
      DROP TRIGGER routes_update;
      DROP TRIGGER routes_delete;
      DROP TRIGGER agent_facts_insert;
      DROP TRIGGER agent_facts_update;
      DROP TRIGGER agent_facts_delete;
      DROP TABLE records_version;
    `,
    postgres: `
      DROP TRIGGER routes_changing ON routes;
      DROP TRIGGER agent_facts_changing ON agent_facts;
      DROP TRIGGER routes_truncated ON routes;
      DROP TRIGGER agent_facts_truncated ON agent_facts;
      DROP FUNCTION records_changed();
      DROP TABLE records_version;
    `,
  },
  {
    version: 20,
    name: 'tags: the labels and owning team of each number and agent, which the provider does not keep',
    sqlite: `
      CREATE TABLE tags (
        subject TEXT PRIMARY KEY,
        labels TEXT NOT NULL CHECK (json_valid(labels)),
        owner TEXT,
        updated_at TEXT NOT NULL,
        updated_by TEXT NOT NULL
      );
      CREATE INDEX tags_by_owner ON tags (owner);
    `,
    postgres: `
      CREATE TABLE tags (
        subject TEXT COLLATE "C" PRIMARY KEY,
        labels TEXT COLLATE "C" NOT NULL CHECK (labels::jsonb IS NOT NULL),
        owner TEXT COLLATE "C",
        updated_at TEXT COLLATE "C" NOT NULL,
        updated_by TEXT COLLATE "C" NOT NULL
      );
      CREATE INDEX tags_by_owner ON tags (owner);
    `,
  },
  {
    version: 21,
    name: 'digests: the changes a quiet subscription has not been posted yet, and when each channel last was',
    sqlite: `
      CREATE TABLE digest_lines (
        id TEXT PRIMARY KEY,
        channel TEXT NOT NULL,
        at TEXT NOT NULL,
        line TEXT NOT NULL CHECK (json_valid(line))
      );
      CREATE INDEX digest_lines_by_channel ON digest_lines (channel, at);
      CREATE TABLE digests (
        channel TEXT PRIMARY KEY,
        posted_at TEXT NOT NULL
      );
    `,
    postgres: `
      CREATE TABLE digest_lines (
        id TEXT COLLATE "C" PRIMARY KEY,
        channel TEXT COLLATE "C" NOT NULL,
        at TEXT COLLATE "C" NOT NULL,
        line TEXT COLLATE "C" NOT NULL CHECK (line::jsonb IS NOT NULL)
      );
      CREATE INDEX digest_lines_by_channel ON digest_lines (channel, at);
      CREATE TABLE digests (
        channel TEXT COLLATE "C" PRIMARY KEY,
        posted_at TEXT COLLATE "C" NOT NULL
      );
    `,
  },
];

/** A shared migration in one engine's dialect. */
export const inDialect = (migration: SharedMigration, engine: 'sqlite' | 'postgres'): SqlMigration => ({
  version: migration.version,
  name: migration.name,
  sql: 'sql' in migration ? migration.sql : migration[engine],
});

/** SQLite's migrations, from its first. */
export const MIGRATIONS: readonly SqliteMigration[] = [
  ...SQLITE_HISTORY,
  ...SHARED_MIGRATIONS.map((migration) => inDialect(migration, 'sqlite')),
];
export const LATEST_VERSION = latestOf(MIGRATIONS);

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * SQLite as the runner's engine. Each migration's transaction is IMMEDIATE: it takes the file's write lock before the
 * version is read again, so two processes starting together cannot both apply the same migration. No lock is held across
 * the run.
 */
function sqliteTarget(db: Database): MigrationTarget<SqliteMigration> {
  return {
    label: db.name,
    first: 1,
    hold: () => {},
    release: () => {},
    version: () => schemaVersion(db),
    begin: () => {
      db.exec('BEGIN IMMEDIATE');
    },
    apply: (migration) => {
      if ('sql' in migration) db.exec(migration.sql);
      else migration.run(db);
    },
    record: (version) => {
      db.pragma(`user_version = ${version}`);
    },
    commit: () => {
      db.exec('COMMIT');
    },
    // SQLite rolls some failures back itself (a full disk, say): then there is nothing left to roll back.
    rollback: () => {
      if (db.inTransaction) db.exec('ROLLBACK');
    },
  };
}

/** Applies the pending migrations, each in its own transaction, and returns the versions it applied. */
export function migrate(db: Database, migrations: readonly SqliteMigration[] = MIGRATIONS): Promise<number[]> {
  return runMigrations(sqliteTarget(db), migrations);
}

/** For read-only connections, which cannot migrate: the schema must be the one this code knows. */
export function assertReadableSchema(db: Database): void {
  const version = schemaVersion(db);
  const latest = LATEST_VERSION;
  if (version === 0) {
    throw new SchemaVersionError(`${db.name} has no voice-ops schema: start the app once to create it`);
  }
  if (version < latest) {
    throw new SchemaVersionError(
      `${db.name} has schema version ${version}, older than this code's ${latest}: start the app once to migrate it`,
    );
  }
  assertNotNewer(db.name, version, latest);
}
