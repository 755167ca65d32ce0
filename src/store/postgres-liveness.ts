// Liveness on Postgres: a session-level advisory lock on a connection of its own; the others read pg_locks. A process
// whose connection is cut starts no change until it holds the lock again, under a new epoch.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { type Liveness, newReplicaId } from './liveness.js';

/** The advisory locks' first key: this app's, so that other users of the database do not collide with it. */
const NAMESPACE = 0x566f4f70;
/** How soon a lost connection is tried again. */
const RECONNECT_MS = 1_000;
/** How long a connection may take to open, as the pool's do. */
const CONNECT_TIMEOUT_MS = 5_000;

/** The second key: 31 bits of the replica's id, positive so that pg_locks shows it as the same number. */
const keyOf = (replica: string) => createHash('sha256').update(replica).digest().readUInt32BE(0) >>> 1;

/** The two keys of a replica's advisory lock, for `pg_advisory_lock(int, int)`. */
export const livenessLockOf = (replica: string): [number, number] => [NAMESPACE, keyOf(replica)];

const TRY_LOCK = 'SELECT pg_try_advisory_lock($1, $2) AS locked';
const HELD = `
  SELECT EXISTS (
    SELECT 1 FROM pg_locks
    WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2 AND objsubid = 2
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS held`;

export interface PostgresLivenessOptions {
  connection: pg.ClientConfig;
  /** Runs a query on the app's pool (reading pg_locks needs no session of its own). */
  query: (text: string, values: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;
  /** Told when the session is lost, and when it is held again. */
  onChange?: (held: boolean, error?: Error) => void;
}

class PostgresLiveness implements Liveness {
  #replica = newReplicaId();
  #client?: pg.Client;
  #held = false;
  #epoch = 0;
  #closed = false;
  #retry?: NodeJS.Timeout;

  constructor(private readonly options: PostgresLivenessOptions) {}

  get replica() {
    return this.#replica;
  }
  get held() {
    return this.#held;
  }
  get epoch() {
    return this.#epoch;
  }

  /** Connects and takes the lock; false when the lock is not free (only a session of this replica's that lingers). */
  async hold(): Promise<boolean> {
    const client = new pg.Client({
      ...this.options.connection,
      application_name: `voice-ops liveness ${this.#replica}`,
      // A server that does not answer is a lost session, not a wait: the next try comes a second later.
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client));
    await client.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>(TRY_LOCK, livenessLockOf(this.#replica));
      if (!rows[0]?.locked) {
        await client.end();
        return false;
      }
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    this.#client = client;
    this.#held = true;
    return true;
  }

  /** Takes the lock on start; a new replica id in the (unlikely) case another process's key is the same. */
  async start(): Promise<void> {
    while (!(await this.hold())) this.#replica = newReplicaId();
  }

  #lost(client: pg.Client, error?: Error): void {
    if (client !== this.#client) return;
    this.#client = undefined;
    this.#held = false;
    client.end().catch(() => {});
    if (this.#closed) return;
    this.options.onChange?.(false, error);
    this.#again();
  }

  #again(): void {
    this.#retry = setTimeout(async () => {
      if (this.#closed) return;
      const held = await this.hold().catch(() => false);
      if (!held) return this.#again();
      this.#epoch += 1;
      this.options.onChange?.(true);
    }, RECONNECT_MS);
    this.#retry.unref();
  }

  async isAlive(replica: string): Promise<boolean> {
    if (replica === this.#replica) return this.#held;
    const { rows } = await this.options.query(HELD, livenessLockOf(replica));
    return rows[0]?.held === true;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    this.#held = false;
    await client?.end().catch(() => {});
  }
}

/** Holds this process's liveness on the database; fails as a connection to it would. */
export async function postgresLiveness(options: PostgresLivenessOptions): Promise<Liveness> {
  const liveness = new PostgresLiveness(options);
  await liveness.start();
  return liveness;
}
