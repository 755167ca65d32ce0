// Named, expiring holds shared by every replica: one conditional upsert takes a lease that is free, expired or
// already the caller's, so two replicas can never both hold one, and a holder that dies frees it when it expires.
// Several leases are taken (or given back) in one statement: a change's locks cost one round trip, not one each.

import type { Dialect, Sql } from './sql.js';

// All or none: when another holder has one of the names, nothing is taken, so that a batch refused for one busy
// number does not hold its other numbers meanwhile. (Two takes racing on Postgres may still each take part; each then
// reports false and gives back what it took.)
const takeOf = (dialect: Dialect) => `
  INSERT INTO leases (name, holder, expires_at, replica)
  SELECT value, @holder, @expiresAt, @replica FROM (${dialect.jsonArrayRows('@names')}) AS asked
  WHERE NOT EXISTS (
    SELECT 1 FROM leases AS held
    WHERE held.name ${dialect.inJsonArray('@names')} AND held.holder <> @holder AND held.expires_at > @now)
  ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at, replica = excluded.replica
  WHERE leases.holder = excluded.holder OR leases.expires_at <= @now`;
const releaseOf = (dialect: Dialect) =>
  `DELETE FROM leases WHERE holder = @holder AND name ${dialect.inJsonArray('@names')}`;
const HOLDER = 'SELECT holder FROM leases WHERE name = ? AND expires_at > ?';
const REPLICAS = 'SELECT DISTINCT replica FROM leases WHERE replica IS NOT NULL AND replica <> ?';
const FREE_OF = 'DELETE FROM leases WHERE replica = ?';

// Sorted, so that two takes sharing names lock their rows in one order and cannot deadlock each other on Postgres.
const distinct = (names: string | readonly string[]) => [...new Set([names].flat())].sort();

export class Leases {
  readonly #now: () => Date;
  readonly #replica: string | null;
  readonly #take: string;
  readonly #release: string;

  /** `replica` is the process whose leases these are, so that they can be freed the moment it dies. */
  constructor(
    private readonly sql: Sql,
    options: { now?: () => Date; replica?: string } = {},
  ) {
    this.#now = options.now ?? (() => new Date());
    this.#replica = options.replica ?? null;
    this.#take = takeOf(sql.dialect);
    this.#release = releaseOf(sql.dialect);
  }

  /** False while someone else holds one unexpired (the others are then taken: `release` gives them back). */
  async take(names: string | readonly string[], holder: string, ttlMs: number): Promise<boolean> {
    const now = this.#now();
    const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
    const asked = distinct(names);
    const params = { names: JSON.stringify(asked), holder, expiresAt, now: now.toISOString(), replica: this.#replica };
    return (await this.sql.run(this.#take, params)) === asked.length;
  }

  /** Gives back those of the leases named that `holder` holds. */
  async release(names: string | readonly string[], holder: string): Promise<void> {
    await this.sql.write(this.#release, { names: JSON.stringify(distinct(names)), holder });
  }

  /** Who holds the lease now, or held it until less than `lapsedWithinMs` ago, if anyone. */
  async holder(name: string, lapsedWithinMs = 0): Promise<string | undefined> {
    const since = new Date(this.#now().getTime() - lapsedWithinMs).toISOString();
    const row = await this.sql.get<{ holder: string }>(HOLDER, [name, since]);
    return row?.holder;
  }

  /** The other replicas that hold leases. */
  async replicasBesides(replica: string): Promise<string[]> {
    return (await this.sql.all<{ replica: string }>(REPLICAS, [replica])).map((row) => row.replica);
  }

  /** Frees every lease of `replica`, a process that died; how many there were. */
  freeOf(replica: string): Promise<number> {
    return this.sql.run(FREE_OF, [replica]);
  }
}
