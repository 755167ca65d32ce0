// Opens the app's store on the engine its configuration names: Postgres at DATABASE_URL, shared by every replica, or
// else the SQLite file at DATABASE_PATH. Either way the schema is brought up to date first, and every repository
// runs the same SQL (sql.ts).
import { Approvals } from './approvals.js';
import { AuditLog } from './audit.js';
import { AuditChanges } from './audit-changes.js';
import { Batches } from './batches.js';
import { WalCheckpoints } from './checkpoints.js';
import { Confirmations } from './confirmations.js';
import { DatabaseUnusable, IN_MEMORY, openDatabase } from './db.js';
import { DeliveryKeys } from './dedupe.js';
import { LearnedFacts } from './facts.js';
import { Intents } from './intents.js';
import { Leases } from './leases.js';
import { SchemaVersionError } from './migrations.js';
import { OpenAnnouncements } from './open-announcements.js';
import { migratePostgres } from './postgres-schema.js';
import { ProviderSnapshot } from './provider-snapshot.js';
import { RoutingRecords } from './routes.js';
import type { Sql, SqlEngine, StatementObserver } from './sql.js';
import { sqliteEngine } from './sqlite-sql.js';
import type { Repos, Store } from './store.js';

/** Where the store lives: a Postgres server (by URL) or a SQLite file (by path). */
export type DatabaseTarget =
  | { kind: 'postgres'; url: string; poolSize: number; statementTimeoutMs: number }
  | { kind: 'sqlite'; path: string };

export interface StoreOptions {
  /** How long a request for a second approval waits before it expires. */
  approvalTtlMs: number;
  now?: () => Date;
  /**
   * Errors that are not any request's: on idle Postgres connections (the server restarting, say), or of a SQLite
   * checkpoint.
   */
  onIdleError?: (error: Error) => void;
  /** Told of every statement, with its time. */
  onStatement?: StatementObserver;
}

/** Opens the engine and brings its schema up to date; a database that cannot serve the app is a DatabaseUnusable. */
export async function openEngine(
  target: DatabaseTarget,
  options: Pick<StoreOptions, 'onIdleError' | 'onStatement'> = {},
) {
  if (target.kind === 'sqlite') {
    const db = openDatabase(target.path);
    const checkpoints =
      target.path === IN_MEMORY
        ? undefined
        : new WalCheckpoints(target.path, { onError: options.onIdleError ?? (() => {}) });
    return sqliteEngine(db, target.path, options.onStatement, checkpoints);
  }
  // Loaded only for Postgres, so that the SQLite default starts without the pg client.
  const { isConnectionLoss, postgresEngine, reasonOf } = await import('./postgres-sql.js');
  const engine = postgresEngine(target.url, {
    poolSize: target.poolSize,
    statementTimeoutMs: target.statementTimeoutMs,
    onIdleError: options.onIdleError ?? (() => {}),
    onStatement: options.onStatement,
  });
  try {
    await engine.connected((client) => migratePostgres(client, engine.label));
    return engine;
  } catch (error) {
    await engine.close().catch(() => {});
    if (error instanceof SchemaVersionError) throw error;
    // A server that is not there, and one that refuses this user or this work, want different remedies.
    const sentence = isConnectionLoss(error)
      ? `Cannot reach ${engine.label}: ${reasonOf(error)}. Check DATABASE_URL and that the server takes connections.`
      : `Cannot use ${engine.label}: ${reasonOf(error)}. Check DATABASE_URL's user, password and database, and ` +
        'that the user may create tables there.';
    throw new DatabaseUnusable('cannot_open', sentence, { cause: error });
  }
}

/** Every repository on `sql` (the engine, or one transaction on it). */
function reposOn(sql: Sql, options: StoreOptions, pruning: { lastAt: number }): Repos {
  const { now } = options;
  return {
    audit: new AuditLog(sql, { now }),
    auditChanges: new AuditChanges(sql),
    confirmations: new Confirmations(sql, { now }),
    approvals: new Approvals(sql, { now, ttlMs: options.approvalTtlMs }),
    intents: new Intents(sql, { now }),
    routes: new RoutingRecords(sql, { now }),
    facts: new LearnedFacts(sql, { now }),
    snapshot: new ProviderSnapshot(sql),
    deliveries: new DeliveryKeys(sql, { now, pruning }),
    openAnnouncements: new OpenAnnouncements(sql),
    leases: new Leases(sql, { now }),
    batches: new Batches(sql, { now }),
  };
}

/** The Store on an open engine. */
export function storeOn(engine: SqlEngine, options: StoreOptions): Store {
  // Shared by every binding, so that keys are pruned once per time to live, not once per transaction.
  const pruning = { lastAt: Number.NEGATIVE_INFINITY };
  const bound = (sql: Sql): Store => {
    const store: Store = {
      ...reposOn(sql, options, pruning),
      label: engine.label,
      transaction: (work) => sql.transaction((tx) => work(tx === sql ? store : bound(tx))),
      lock: (key) => sql.lock(key),
      checkWritable: () => engine.checkWritable(),
      close: () => engine.close(),
    };
    return store;
  };
  return bound(engine);
}

export async function openStore(target: DatabaseTarget, options: StoreOptions): Promise<Store> {
  return storeOn(await openEngine(target, options), options);
}
