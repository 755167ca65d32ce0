// Named, expiring holds shared by every replica: one conditional upsert takes a lease that is free, expired or
// already the caller's, so two replicas can never both hold one, and a holder that dies frees it when it expires.
// Several leases are taken (or given back) in one statement: a change's locks cost one round trip, not one each.

import type { Dialect, Sql } from './sql.js';
import type { LeasesRepo } from './store.js';

// All or none: when another holder has one of the names, nothing is taken, so that a batch refused for one busy
// number does not hold its other numbers meanwhile. (Two takes racing on Postgres may still each take part; each then
// reports false and gives back what it took.)
const takeOf = (dialect: Dialect) => `
  INSERT INTO leases (name, holder, expires_at)
  SELECT value, @holder, @expiresAt FROM (${dialect.jsonArrayRows('@names')}) AS asked
  WHERE NOT EXISTS (
    SELECT 1 FROM leases AS held
    WHERE held.name ${dialect.inJsonArray('@names')} AND held.holder <> @holder AND held.expires_at > @now)
  ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
  WHERE leases.holder = excluded.holder OR leases.expires_at <= @now`;
const releaseOf = (dialect: Dialect) =>
  `DELETE FROM leases WHERE holder = @holder AND name ${dialect.inJsonArray('@names')}`;
const HOLDER = 'SELECT holder FROM leases WHERE name = ? AND expires_at > ?';

// Sorted, so that two takes sharing names lock their rows in one order and cannot deadlock each other on Postgres.
const distinct = (names: string | readonly string[]) => [...new Set([names].flat())].sort();

export class Leases implements LeasesRepo {
  readonly #now: () => Date;
  readonly #take: string;
  readonly #release: string;

  constructor(
    private readonly sql: Sql,
    options: { now?: () => Date } = {},
  ) {
    this.#now = options.now ?? (() => new Date());
    this.#take = takeOf(sql.dialect);
    this.#release = releaseOf(sql.dialect);
  }

  async take(names: string | readonly string[], holder: string, ttlMs: number): Promise<boolean> {
    const now = this.#now();
    const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
    const asked = distinct(names);
    const params = { names: JSON.stringify(asked), holder, expiresAt, now: now.toISOString() };
    return (await this.sql.run(this.#take, params)) === asked.length;
  }

  async release(names: string | readonly string[], holder: string): Promise<void> {
    await this.sql.write(this.#release, { names: JSON.stringify(distinct(names)), holder });
  }

  async holder(name: string): Promise<string | undefined> {
    const row = await this.sql.get<{ holder: string }>(HOLDER, [name, this.#now().toISOString()]);
    return row?.holder;
  }
}
