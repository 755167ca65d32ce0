// Opens the app's store: Postgres at DATABASE_URL, else the SQLite file at DATABASE_PATH, its schema up to date.

import type { DatabaseTarget } from '../database-target.js';
import { Approvals } from './approvals.js';
import { AuditLog } from './audit.js';
import { AuditChanges } from './audit-changes.js';
import { ChainVerifier } from './audit-checkpoints.js';
import { Batches } from './batches.js';
import { WalCheckpoints } from './checkpoints.js';
import { Confirmations } from './confirmations.js';
import { DatabaseClock } from './database-clock.js';
import { DatabaseUnusable, IN_MEMORY, openDatabase } from './db.js';
import { DeliveryKeys } from './delivery-keys.js';
import { Digests } from './digests.js';
import { LearnedFacts } from './facts.js';
import { Intents } from './intents.js';
import { Leases } from './leases.js';
import type { Liveness } from './liveness.js';
import { SchemaVersionError } from './migrations.js';
import { OpenAnnouncements } from './open-announcements.js';
import { migratePostgres } from './postgres-schema.js';
import { ProviderSnapshot } from './provider-snapshot.js';
import { RoutingRecords } from './routes.js';
import { SettingsRows } from './settings-rows.js';
import type { Sql, SqlEngine, StatementObserver, TransactionOptions } from './sql.js';
import { sqliteEngine } from './sqlite-sql.js';
import type { Repos, Store } from './store.js';
import { TagRecords } from './tags.js';
import { WorkflowSteps } from './workflow-steps.js';

export interface StoreOptions {
  /** The clock of every record and expiry; by default the database's (database-clock.ts). */
  now?: () => Date;
  /** Errors that are no request's: an idle Postgres connection's, or a SQLite checkpoint's. */
  onIdleError?: (error: Error) => void;
  /** Told of every statement, with its time. */
  onStatement?: StatementObserver;
  /** Told when this process loses its liveness (its session was cut), and when it holds it again. */
  onLiveness?: (held: boolean, error?: Error) => void;
}

/** Opens the engine and brings its schema up to date; a database that cannot serve the app is a DatabaseUnusable. */
export async function openEngine(
  target: DatabaseTarget,
  options: Pick<StoreOptions, 'onIdleError' | 'onStatement'> = {},
) {
  if (target.kind === 'sqlite') {
    const db = await openDatabase(target.path);
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

/** How each repository is made on an Sql: the engine, or one transaction on it (`inTransaction`). */
type RepoMakers = { [K in keyof Repos]: (sql: Sql, inTransaction: boolean) => Repos[K] };

function repoMakers(options: StoreOptions & { now: () => Date; replica: string }): RepoMakers {
  const { now, replica } = options;
  // Shared by every binding, so that keys are pruned once per time to live, not once per transaction, and the chain
  // verified by one is not verified again by the next.
  const pruning = { lastAt: Number.NEGATIVE_INFINITY };
  const verifier = new ChainVerifier(now);
  return {
    audit: (sql, inTransaction) => new AuditLog(sql, { now, inTransaction, verifier }),
    auditChanges: (sql) => new AuditChanges(sql),
    confirmations: (sql) => new Confirmations(sql, { now }),
    approvals: (sql) => new Approvals(sql, { now }),
    intents: (sql) => new Intents(sql, { now, replica }),
    routes: (sql) => new RoutingRecords(sql, { now }),
    tags: (sql) => new TagRecords(sql, { now }),
    digests: (sql) => new Digests(sql),
    facts: (sql) => new LearnedFacts(sql, { now }),
    snapshot: (sql) => new ProviderSnapshot(sql),
    deliveries: (sql) => new DeliveryKeys(sql, { now, pruning }),
    openAnnouncements: (sql) => new OpenAnnouncements(sql),
    leases: (sql) => new Leases(sql, { now, replica }),
    batches: (sql) => new Batches(sql, { now }),
    settings: (sql) => new SettingsRows(sql, { now }),
    steps: (sql) => new WorkflowSteps(sql, { now }),
  };
}

/** Each repository is made when first used: a transaction uses two or three of the thirteen. */
class BoundStore implements Store {
  readonly #made: Partial<Repos> = {};

  constructor(
    private readonly sql: Sql,
    private readonly engine: SqlEngine,
    private readonly makers: RepoMakers,
    readonly now: () => Date,
    readonly liveness: Liveness,
    private readonly clock?: DatabaseClock,
  ) {}

  #repo<K extends keyof Repos>(key: K): Repos[K] {
    const made = this.#made[key] ?? this.makers[key](this.sql, this.sql !== this.engine);
    this.#made[key] = made;
    return made;
  }

  get audit() {
    return this.#repo('audit');
  }
  get auditChanges() {
    return this.#repo('auditChanges');
  }
  get confirmations() {
    return this.#repo('confirmations');
  }
  get approvals() {
    return this.#repo('approvals');
  }
  get intents() {
    return this.#repo('intents');
  }
  get routes() {
    return this.#repo('routes');
  }
  get tags() {
    return this.#repo('tags');
  }
  get digests() {
    return this.#repo('digests');
  }
  get facts() {
    return this.#repo('facts');
  }
  get snapshot() {
    return this.#repo('snapshot');
  }
  get deliveries() {
    return this.#repo('deliveries');
  }
  get openAnnouncements() {
    return this.#repo('openAnnouncements');
  }
  get leases() {
    return this.#repo('leases');
  }
  get batches() {
    return this.#repo('batches');
  }
  get settings() {
    return this.#repo('settings');
  }
  get steps() {
    return this.#repo('steps');
  }

  get label(): string {
    return this.engine.label;
  }

  get opened() {
    return this.engine.opened;
  }

  transaction<T>(work: (store: Store) => Promise<T>, options?: TransactionOptions): Promise<T> {
    return this.sql.transaction(
      (tx) => work(tx === this.sql ? this : new BoundStore(tx, this.engine, this.makers, this.now, this.liveness)),
      options,
    );
  }

  lock(key: string): Promise<void> {
    return this.sql.lock(key);
  }

  checkWritable() {
    return this.engine.checkWritable();
  }

  async close(): Promise<void> {
    await this.clock?.stop();
    await this.liveness.close();
    await this.engine.close();
  }
}

/** This process's liveness held, on the database's clock unless `options.now` names another. */
export async function storeOn(engine: SqlEngine, options: StoreOptions = {}): Promise<Store> {
  const liveness = await engine.holdLiveness(options.onLiveness);
  try {
    const { now, clock } = await clockOf(engine, options.now);
    const makers = repoMakers({ ...options, now, replica: liveness.replica });
    return new BoundStore(engine, engine, makers, now, liveness, clock);
  } catch (error) {
    await liveness.close();
    throw error;
  }
}

async function clockOf(engine: SqlEngine, now?: () => Date): Promise<{ now: () => Date; clock?: DatabaseClock }> {
  if (now) return { now };
  const clock = await DatabaseClock.start(engine);
  return { now: clock.now, clock };
}

export async function openStore(target: DatabaseTarget, options: StoreOptions = {}): Promise<Store> {
  const engine = await openEngine(target, options);
  return storeOn(engine, options).catch(async (error: unknown) => {
    await engine.close().catch(() => {});
    // The replica's own connection (its liveness) or its first read of the database's time, refused.
    const reason = error instanceof Error ? error.message : String(error);
    throw new DatabaseUnusable('cannot_open', `Cannot start on ${engine.label}: ${reason.replace(/\.$/, '')}.`, {
      cause: error,
    });
  });
}
