// What a change is about to do, written before the provider is called and closed with the outcome. An intent left
// open means the app stopped (or lost the answer) mid-change: the reconciler finds out from the provider what
// really happened, and tells the requester.
import { z } from 'zod';
import { jsonObject, optionalText } from './columns.js';
import type { Database } from './db.js';

export const INTENT_OUTCOMES = ['succeeded', 'failed'] as const;
export type IntentOutcome = (typeof INTENT_OUTCOMES)[number];

export interface Intent {
  correlationId: string;
  action: string;
  /** The change, as the ops layer describes it (JSON, free of secrets). */
  change: Record<string, unknown>;
  /** Who asked, from where (JSON). */
  actor: Record<string, unknown>;
  /** Where the requester can be told later (an interaction's response_url); dropped once the intent closes. */
  replyAddress?: string;
  openedAt: string;
  closedAt?: string;
  outcome?: IntentOutcome;
}

const intentRow = z
  .object({
    correlation_id: z.string(),
    action: z.string(),
    change: jsonObject,
    actor: jsonObject,
    reply_address: optionalText,
    opened_at: z.string(),
    closed_at: optionalText,
    outcome: z.enum(INTENT_OUTCOMES).nullable(),
  })
  .transform(
    (row): Intent => ({
      correlationId: row.correlation_id,
      action: row.action,
      change: row.change,
      actor: row.actor,
      replyAddress: row.reply_address,
      openedAt: row.opened_at,
      closedAt: row.closed_at,
      outcome: row.outcome ?? undefined,
    }),
  );

const toIntent = (row: unknown): Intent => intentRow.parse(row);

export class Intents {
  readonly #now: () => Date;
  readonly #open;
  readonly #close;
  readonly #get;
  readonly #openBefore;
  readonly #touchedSince;
  readonly #underWay;

  constructor(db: Database, options: { now?: () => Date } = {}) {
    this.#now = options.now ?? (() => new Date());
    // One intent per change: opening again (the confirmation's claim opened it already) changes nothing.
    this.#open = db.prepare<[Record<string, string | null>]>(`
      INSERT INTO intents (correlation_id, action, change, actor, reply_address, opened_at)
      VALUES (@correlationId, @action, @change, @actor, @replyAddress, @openedAt)
      ON CONFLICT (correlation_id) DO NOTHING`);
    this.#close = db.prepare<[{ correlationId: string; outcome: IntentOutcome; closedAt: string }]>(`
      UPDATE intents SET outcome = @outcome, closed_at = @closedAt, reply_address = NULL
      WHERE correlation_id = @correlationId AND closed_at IS NULL
      RETURNING *`);
    this.#get = db.prepare<[string]>('SELECT * FROM intents WHERE correlation_id = ?');
    this.#touchedSince = db.prepare<[{ time: string }]>(
      'SELECT * FROM intents WHERE closed_at IS NULL OR closed_at >= @time OR opened_at >= @time',
    );
    this.#underWay = db.prepare<[{ action: string; userId: string | null }], { count: number }>(`
      SELECT COUNT(*) AS count FROM intents
      WHERE closed_at IS NULL AND action = @action AND (@userId IS NULL OR json_extract(actor, '$.userId') = @userId)`);
    this.#openBefore = db.prepare<[string]>(
      'SELECT * FROM intents WHERE closed_at IS NULL AND opened_at <= ? ORDER BY opened_at',
    );
  }

  open(intent: Pick<Intent, 'correlationId' | 'action' | 'change' | 'actor' | 'replyAddress'>): void {
    this.#open.run({
      correlationId: intent.correlationId,
      action: intent.action,
      change: JSON.stringify(intent.change),
      actor: JSON.stringify(intent.actor),
      replyAddress: intent.replyAddress ?? null,
      openedAt: this.#now().toISOString(),
    });
  }

  /** Closes an open intent; undefined when it was closed already (by the change itself, or by the reconciler). */
  close(correlationId: string, outcome: IntentOutcome): Intent | undefined {
    const row = this.#close.get({ correlationId, outcome, closedAt: this.#now().toISOString() });
    return row === undefined ? undefined : toIntent(row);
  }

  get(correlationId: string): Intent | undefined {
    const row = this.#get.get(correlationId);
    return row === undefined ? undefined : toIntent(row);
  }

  /** How many `action`s are open (under way, or awaiting reconciliation), or only `userId`'s own when given. */
  openCount(action: string, userId?: string): number {
    return this.#underWay.get({ action, userId: userId ?? null })?.count ?? 0;
  }

  /** Intents still open, or opened or closed at or after `time`: changes that may be under way around `time`. */
  touchedSince(time: Date): Intent[] {
    return this.#touchedSince.all({ time: time.toISOString() }).map(toIntent);
  }

  /** Intents still open that were opened at or before `time`, oldest first. */
  openedBefore(time: Date): Intent[] {
    return this.#openBefore.all(time.toISOString()).map(toIntent);
  }
}
