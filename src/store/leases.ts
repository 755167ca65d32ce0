// Named, expiring holds shared by every replica: one conditional upsert takes a lease that is free, expired or
// already the caller's, so two replicas can never both hold one, and a holder that dies frees it when it expires.

import type { Sql } from './sql.js';
import type { LeasesRepo } from './store.js';

const TAKE = `
  INSERT INTO leases (name, holder, expires_at) VALUES (@name, @holder, @expiresAt)
  ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
  WHERE leases.holder = excluded.holder OR leases.expires_at <= @now`;
const RELEASE = 'DELETE FROM leases WHERE name = ? AND holder = ?';
const HOLDER = 'SELECT holder FROM leases WHERE name = ? AND expires_at > ?';

export class Leases implements LeasesRepo {
  readonly #now: () => Date;

  constructor(
    private readonly sql: Sql,
    options: { now?: () => Date } = {},
  ) {
    this.#now = options.now ?? (() => new Date());
  }

  async take(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = this.#now();
    const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
    return (await this.sql.run(TAKE, { name, holder, expiresAt, now: now.toISOString() })) === 1;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.sql.run(RELEASE, [name, holder]);
  }

  async holder(name: string): Promise<string | undefined> {
    const row = await this.sql.get<{ holder: string }>(HOLDER, [name, this.#now().toISOString()]);
    return row?.holder;
  }
}
