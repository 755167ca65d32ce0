// What a change is about to do, written before the provider is called and closed with the outcome. An intent left
// open means the app stopped (or lost the answer) mid-change: the reconciler finds out from the provider what
// really happened, and tells the requester.

import { z } from 'zod';
import { camelCased, jsonObject, jsonText, optionalText } from './columns.js';
import { changeIntent, storedActor } from './records.js';
import type { Dialect, Sql } from './sql.js';

export const INTENT_OUTCOMES = ['succeeded', 'failed'] as const;
export type IntentOutcome = (typeof INTENT_OUTCOMES)[number];

const intentRow = camelCased(
  z.object({
    correlation_id: z.string(),
    action: z.string(),
    /** The change, free of secrets: stored as JSON, read back typed. */
    change: jsonObject.pipe(changeIntent),
    /** Who asked, from where (JSON). */
    actor: jsonObject.pipe(storedActor),
    /** Where the requester can be told later (an interaction's response_url); dropped once the intent closes. */
    reply_address: optionalText,
    opened_at: z.string(),
    closed_at: optionalText,
    outcome: z
      .enum(INTENT_OUTCOMES)
      .nullable()
      .transform((outcome) => outcome ?? undefined),
    /** The process that opened it and runs its change; unknown for intents opened before replicas were named. */
    replica: optionalText,
  }),
);
export type Intent = z.output<typeof intentRow>;

const toIntent = (row: unknown): Intent => intentRow.parse(row);

// One intent per change: opening again (the confirmation's claim opened it already) changes nothing.
const OPEN = `
  INSERT INTO intents (correlation_id, action, change, actor, reply_address, opened_at, replica)
  VALUES (@correlationId, @action, @change, @actor, @replyAddress, @openedAt, @replica)
  ON CONFLICT (correlation_id) DO NOTHING`;
const CLOSE = `
  UPDATE intents SET outcome = @outcome, closed_at = @closedAt, reply_address = NULL
  WHERE correlation_id = @correlationId AND closed_at IS NULL`;
const SELECT = 'SELECT * FROM intents WHERE correlation_id = ?';
const TOUCHED_SINCE = 'SELECT * FROM intents WHERE closed_at IS NULL OR closed_at >= @time OR opened_at >= @time';
const OPENED_BEFORE = 'SELECT * FROM intents WHERE closed_at IS NULL AND opened_at <= ? ORDER BY opened_at';
const REPLICAS =
  'SELECT DISTINCT replica FROM intents WHERE closed_at IS NULL AND replica IS NOT NULL AND replica <> ?';
// An item of a batch (its id is BATCH/SEQ) is counted with its batch (see Batches.openItems), not here.
// The CAST gives Postgres the type of a parameter it would otherwise see only compared with NULL.
const underWay = (dialect: Dialect) => `
  SELECT COUNT(*) AS count FROM intents
  WHERE closed_at IS NULL AND action = @action AND correlation_id NOT LIKE '%/%'
    AND (CAST(@userId AS TEXT) IS NULL OR ${dialect.jsonField('actor', 'userId')} = @userId)`;

export class Intents {
  readonly #now: () => Date;
  readonly #replica: string | null;
  readonly #underWay: string;

  /** `replica` is the process that opens these intents and runs their changes. */
  constructor(
    private readonly sql: Sql,
    options: { now?: () => Date; replica?: string } = {},
  ) {
    this.#now = options.now ?? (() => new Date());
    this.#replica = options.replica ?? null;
    this.#underWay = underWay(sql.dialect);
  }

  async open(intent: Pick<Intent, 'correlationId' | 'action' | 'change' | 'actor' | 'replyAddress'>): Promise<void> {
    await this.sql.write(OPEN, {
      correlationId: intent.correlationId,
      action: intent.action,
      change: jsonText(intent.change),
      actor: jsonText(intent.actor),
      replyAddress: intent.replyAddress ?? null,
      openedAt: this.#now().toISOString(),
      replica: this.#replica,
    });
  }

  /** Closes an open intent; false when it was closed already (by the change itself, or by the reconciler). */
  async close(correlationId: string, outcome: IntentOutcome): Promise<boolean> {
    return (await this.sql.run(CLOSE, { correlationId, outcome, closedAt: this.#now().toISOString() })) === 1;
  }

  async get(correlationId: string): Promise<Intent | undefined> {
    const row = await this.sql.get(SELECT, [correlationId]);
    return row === undefined ? undefined : toIntent(row);
  }

  /** How many `action`s are open (under way, or awaiting reconciliation), or only `userId`'s own when given. */
  async openCount(action: string, userId?: string): Promise<number> {
    const row = await this.sql.get<{ count: number }>(this.#underWay, { action, userId: userId ?? null });
    return row?.count ?? 0;
  }

  /** Intents still open, or opened or closed at or after `time`: changes that may be under way around `time`. */
  async touchedSince(time: Date): Promise<Intent[]> {
    return (await this.sql.all(TOUCHED_SINCE, { time: time.toISOString() })).map(toIntent);
  }

  /** Intents still open that were opened at or before `time`, oldest first. */
  async openedBefore(time: Date): Promise<Intent[]> {
    return (await this.sql.all(OPENED_BEFORE, [time.toISOString()])).map(toIntent);
  }

  /** The other replicas with intents still open. */
  async replicasBesides(replica: string): Promise<string[]> {
    return (await this.sql.all<{ replica: string }>(REPLICAS, [replica])).map((row) => row.replica);
  }
}
