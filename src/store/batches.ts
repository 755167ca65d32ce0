// Bulk changes: a plan stored as a batch with one row per item. The batch's state moves forward by conditional
// UPDATEs only (planned → running → finished, or stopped, interrupted, expired), so a double click, a retried
// delivery or another replica can start, stop or resume a batch at most once; its items move pending → running →
// an outcome the same way.
import { z } from 'zod';
import { camelCased, jsonObject, jsonText, optionalText } from './columns.js';
import { DEFAULT_CONFIRMATION_TTL_MS } from './confirmations.js';
import {
  type PendingChange,
  pendingChange,
  type StoredActor,
  type StoredPlan,
  storedActor,
  storedPlan,
} from './records.js';
import type { Dialect, Sql } from './sql.js';

export const BATCH_STATES = [
  'planned',
  'awaiting',
  'running',
  'stopping',
  'stopped',
  'finished',
  'interrupted',
  'expired',
] as const;
export type BatchState = (typeof BATCH_STATES)[number];

export const ITEM_STATES = ['pending', 'running', 'succeeded', 'failed', 'cancelled', 'unchanged'] as const;
export type ItemState = (typeof ITEM_STATES)[number];

export type ItemCounts = Record<ItemState, number>;

const batchRow = camelCased(
  z.object({
    id: z.string(),
    kind: z.string(),
    /** What the plan was asked for (the filter, the agent) and its totals. */
    plan: jsonObject.pipe(storedPlan),
    requested_by: z.string(),
    /** Who asked, from where. */
    actor: jsonObject.pipe(storedActor),
    state: z.enum(BATCH_STATES),
    total: z.coerce.number(),
    created_at: z.string(),
    expires_at: z.string(),
    updated_at: z.string(),
  }),
);
export type Batch = z.output<typeof batchRow>;

const itemRow = camelCased(
  z.object({
    batch_id: z.string(),
    seq: z.coerce.number(),
    /** The item's change: stored as JSON, read back typed. */
    change: jsonObject.pipe(pendingChange),
    state: z.enum(ITEM_STATES),
    error: optionalText,
  }),
);
export type BatchItem = z.output<typeof itemRow>;

const toBatch = (row: unknown): Batch => batchRow.parse(row);
const toItem = (row: unknown): BatchItem => itemRow.parse(row);

const INSERT_BATCH = `
  INSERT INTO batches (id, kind, plan, requested_by, actor, state, total, created_at, expires_at, updated_at)
  VALUES (@id, @kind, @plan, @requestedBy, @actor, 'planned', @total, @now, @expiresAt, @now)`;
/** Rows per INSERT: well under either engine's limit on parameters in one statement. */
const ITEMS_PER_INSERT = 200;
const SELECT_BATCH = 'SELECT * FROM batches WHERE id = ?';
const selectBatches = (dialect: Dialect) => `SELECT * FROM batches WHERE id ${dialect.inJsonArray('?')}`;
const MOVE = (from: readonly BatchState[]) => `
  UPDATE batches SET state = @to, updated_at = @now
  WHERE id = @id AND state IN (${from.map((state) => `'${state}'`).join(', ')})
  RETURNING *`;
const START = `
  UPDATE batches SET state = @to, updated_at = @now
  WHERE id = @id AND state = 'planned' AND requested_by = @userId AND expires_at > @now
  RETURNING *`;
const ITEMS = 'SELECT * FROM batch_items WHERE batch_id = ? ORDER BY seq LIMIT ? OFFSET ?';
const ITEMS_IN = (states: readonly ItemState[]) =>
  `SELECT * FROM batch_items WHERE batch_id = ? AND state IN (${states.map((s) => `'${s}'`).join(', ')}) ORDER BY seq`;
const COUNTS = 'SELECT state, COUNT(*) AS count FROM batch_items WHERE batch_id = ? GROUP BY state';
// An item starts only while its batch runs: a Stop pressed meanwhile keeps it from starting.
const START_ITEM = `
  UPDATE batch_items SET state = 'running'
  WHERE batch_id = @batchId AND seq = @seq AND state = 'pending'
    AND EXISTS (SELECT 1 FROM batches WHERE id = @batchId AND state = 'running')`;
const FINISH_ITEM = `
  UPDATE batch_items SET state = @state, error = @error
  WHERE batch_id = @batchId AND seq = @seq AND state = 'running'`;
const CANCEL_PENDING = `
  UPDATE batch_items SET state = 'cancelled' WHERE batch_id = ? AND state = 'pending' RETURNING *`;
const UNDER_WAY = "SELECT * FROM batches WHERE state IN ('running', 'stopping') ORDER BY created_at";
// Items not started of a batch that runs, and items started (under way, or left open by a crash).
const OPEN_ITEMS = `
  SELECT COUNT(*) AS count FROM batch_items i JOIN batches b ON b.id = i.batch_id
  WHERE b.kind = @kind
    AND (i.state = 'running' OR (i.state = 'pending' AND b.state IN ('running', 'stopping')))
    AND (CAST(@userId AS TEXT) IS NULL OR b.requested_by = @userId)`;

export class Batches {
  readonly #now: () => Date;
  readonly #ttlMs: number;
  readonly #selectMany: string;

  constructor(
    private readonly sql: Sql,
    options: { now?: () => Date; ttlMs?: number } = {},
  ) {
    this.#now = options.now ?? (() => new Date());
    this.#selectMany = selectBatches(sql.dialect);
    // A plan expires like a confirmation: what it would do is checked again when it is confirmed.
    this.#ttlMs = options.ttlMs ?? DEFAULT_CONFIRMATION_TTL_MS;
  }

  async create(input: {
    id: string;
    kind: string;
    plan: StoredPlan;
    requestedBy: string;
    actor: StoredActor;
    items: { change: PendingChange; state: 'pending' | 'unchanged' }[];
  }): Promise<Batch> {
    const now = this.#now();
    await this.sql.write(INSERT_BATCH, {
      id: input.id,
      kind: input.kind,
      plan: jsonText(input.plan),
      requestedBy: input.requestedBy,
      actor: jsonText(input.actor),
      total: input.items.length,
      now: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.#ttlMs).toISOString(),
    });
    for (let start = 0; start < input.items.length; start += ITEMS_PER_INSERT) {
      const chunk = input.items.slice(start, start + ITEMS_PER_INSERT);
      const values = chunk.map(() => '(?, ?, ?, ?)').join(', ');
      const params = chunk.flatMap((item, index) => [input.id, start + index + 1, jsonText(item.change), item.state]);
      await this.sql.write(`INSERT INTO batch_items (batch_id, seq, change, state) VALUES ${values}`, params);
    }
    const created = await this.get(input.id);
    if (!created) throw new Error(`batch ${input.id} was not stored`);
    return created;
  }

  async get(id: string): Promise<Batch | undefined> {
    const row = await this.sql.get(SELECT_BATCH, [id]);
    return row === undefined ? undefined : toBatch(row);
  }

  /** The batches of these ids that exist, in one read. */
  async getMany(ids: readonly string[]): Promise<Batch[]> {
    if (ids.length === 0) return [];
    return (await this.sql.all(this.#selectMany, [jsonText(ids)])).map(toBatch);
  }

  /** Or sets it waiting for a second approver; undefined when this call did not. */
  async start(id: string, userId: string, to: 'running' | 'awaiting' = 'running'): Promise<Batch | undefined> {
    const row = await this.sql.get(START, { id, userId, to, now: this.#now().toISOString() });
    return row === undefined ? undefined : toBatch(row);
  }

  /** Moves the batch to `to` from one of `from`; undefined when it was in none of them. */
  async move(id: string, from: readonly BatchState[], to: BatchState): Promise<Batch | undefined> {
    const row = await this.sql.get(MOVE(from), { id, to, now: this.#now().toISOString() });
    return row === undefined ? undefined : toBatch(row);
  }

  async items(id: string, range: { offset: number; limit: number }): Promise<BatchItem[]> {
    return (await this.sql.all(ITEMS, [id, range.limit, range.offset])).map(toItem);
  }

  async itemsIn(id: string, states: readonly ItemState[]): Promise<BatchItem[]> {
    return (await this.sql.all(ITEMS_IN(states), [id])).map(toItem);
  }

  async counts(id: string): Promise<ItemCounts> {
    const counts = Object.fromEntries(ITEM_STATES.map((state) => [state, 0])) as ItemCounts;
    const rows = await this.sql.all<{ state: ItemState; count: number | string }>(COUNTS, [id]);
    for (const row of rows) counts[row.state] = Number(row.count);
    return counts;
  }

  /** Marks a pending item running, only while its batch runs; false when it did not start. */
  async startItem(batchId: string, seq: number): Promise<boolean> {
    return (await this.sql.run(START_ITEM, { batchId, seq })) === 1;
  }

  async finishItem(batchId: string, seq: number, state: ItemState, error?: string): Promise<void> {
    await this.sql.write(FINISH_ITEM, { batchId, seq, state, error: error ?? null });
  }

  /** Cancels every item not yet started, and returns them. */
  async cancelPending(id: string): Promise<BatchItem[]> {
    return (await this.sql.all(CANCEL_PENDING, [id])).map(toItem);
  }

  /** Items of `kind` batches (by `userId` only, when given) that are under way or will be: buys count as spent. */
  async openItems(kind: string, userId?: string): Promise<number> {
    const row = await this.sql.get<{ count: number | string }>(OPEN_ITEMS, { kind, userId: userId ?? null });
    return Number(row?.count ?? 0);
  }

  /** Batches running or stopping, in whichever process. */
  async underWay(): Promise<Batch[]> {
    return (await this.sql.all(UNDER_WAY)).map(toBatch);
  }
}
