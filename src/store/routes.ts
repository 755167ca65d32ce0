// Which agent each number routes to, as this app last set it. The provider API can set routing but not read it,
// so these records are what listings and warnings ("this number still routes to…") rely on.
import { z } from 'zod';
import { optionalText } from './columns.js';
import type { Database } from './db.js';

export interface RouteRecord {
  phoneNumber: string;
  agentId: string;
  numberId?: string;
  updatedAt: string;
  updatedBy: string;
}

const routeRow = z
  .object({
    phone_number: z.string(),
    agent_id: z.string(),
    number_id: optionalText,
    updated_at: z.string(),
    updated_by: z.string(),
  })
  .transform(
    (row): RouteRecord => ({
      phoneNumber: row.phone_number,
      agentId: row.agent_id,
      numberId: row.number_id,
      updatedAt: row.updated_at,
      updatedBy: row.updated_by,
    }),
  );

const toRecord = (row: unknown): RouteRecord => routeRow.parse(row);

export class RoutingRecords {
  readonly #now: () => Date;
  readonly #upsert;
  readonly #forNumber;
  readonly #forAgent;
  readonly #removeNumber;
  readonly #removeAgent;
  readonly #all;
  readonly #agentByNumber;

  constructor(db: Database, options: { now?: () => Date } = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#upsert = db.prepare<[Record<string, string | null>]>(`
      INSERT INTO routes (phone_number, agent_id, number_id, updated_at, updated_by)
      VALUES (@phoneNumber, @agentId, @numberId, @updatedAt, @updatedBy)
      ON CONFLICT (phone_number) DO UPDATE SET
        agent_id = excluded.agent_id, number_id = excluded.number_id,
        updated_at = excluded.updated_at, updated_by = excluded.updated_by
      RETURNING *`);
    this.#forNumber = db.prepare<[string]>('SELECT * FROM routes WHERE phone_number = ?');
    this.#forAgent = db.prepare<[string]>('SELECT * FROM routes WHERE agent_id = ? ORDER BY phone_number');
    this.#removeNumber = db.prepare<[string]>('DELETE FROM routes WHERE phone_number = ?');
    this.#removeAgent = db.prepare<[string]>('DELETE FROM routes WHERE agent_id = ?');
    this.#all = db.prepare<[]>('SELECT * FROM routes ORDER BY phone_number');
    // Two text columns straight into a map: listings at 10,000 numbers read this on every page.
    this.#agentByNumber = db.prepare<[], [string, string]>('SELECT phone_number, agent_id FROM routes').raw(true);
  }

  /** Records a successful map; a number routes to one agent, so this replaces any earlier record for it. */
  set(input: { phoneNumber: string; agentId: string; numberId?: string; updatedBy: string }): RouteRecord {
    return toRecord(
      this.#upsert.get({
        phoneNumber: input.phoneNumber,
        agentId: input.agentId,
        numberId: input.numberId ?? null,
        updatedAt: this.#now().toISOString(),
        updatedBy: input.updatedBy,
      }),
    );
  }

  forNumber(phoneNumber: string): RouteRecord | undefined {
    const row = this.#forNumber.get(phoneNumber);
    return row === undefined ? undefined : toRecord(row);
  }

  forAgent(agentId: string): RouteRecord[] {
    return this.#forAgent.all(agentId).map(toRecord);
  }

  /** After the number is released. */
  removeNumber(phoneNumber: string): void {
    this.#removeNumber.run(phoneNumber);
  }

  /** After the agent is deleted: its numbers no longer route anywhere. */
  removeAgent(agentId: string): void {
    this.#removeAgent.run(agentId);
  }

  all(): RouteRecord[] {
    return this.#all.all().map(toRecord);
  }

  /** Every routed number and the agent it routes to. */
  agentByNumber(): Map<string, string> {
    return new Map(this.#agentByNumber.all());
  }
}
