// Changes that wait for a second person. A decision moves the state out of 'pending' in one conditional UPDATE, so
// however many approvers click at once, exactly one decision wins; an expired request can no longer be decided.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { jsonObject, optionalText } from './columns.js';
import type { Database } from './db.js';

export const APPROVAL_STATES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

export interface Approval {
  id: string;
  correlationId: string;
  /** The change, as the ops layer describes it (JSON, free of secrets). */
  change: Record<string, unknown>;
  /** Who asked, from where (JSON). */
  requester: Record<string, unknown>;
  createdAt: string;
  expiresAt: string;
  state: ApprovalState;
  decidedBy?: string;
  decidedAt?: string;
  /** Where the request for approval was posted, to update it in place. */
  channelId?: string;
  messageTs?: string;
}

const approvalRow = z
  .object({
    id: z.string(),
    correlation_id: z.string(),
    change: jsonObject,
    requester: jsonObject,
    created_at: z.string(),
    expires_at: z.string(),
    state: z.enum(APPROVAL_STATES),
    decided_by: optionalText,
    decided_at: optionalText,
    channel_id: optionalText,
    message_ts: optionalText,
  })
  .transform(
    (row): Approval => ({
      id: row.id,
      correlationId: row.correlation_id,
      change: row.change,
      requester: row.requester,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      state: row.state,
      decidedBy: row.decided_by,
      decidedAt: row.decided_at,
      channelId: row.channel_id,
      messageTs: row.message_ts,
    }),
  );

const toApproval = (row: unknown): Approval => approvalRow.parse(row);

export class Approvals {
  readonly #ttlMs: number;
  readonly #now: () => Date;
  readonly #insert;
  readonly #select;
  readonly #byCorrelation;
  readonly #decide;
  readonly #expire;
  readonly #posted;

  constructor(db: Database, options: { ttlMs: number; now?: () => Date }) {
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? (() => new Date());
    this.#insert = db.prepare<[Record<string, string>]>(`
      INSERT INTO approvals (id, correlation_id, change, requester, created_at, expires_at)
      VALUES (@id, @correlationId, @change, @requester, @createdAt, @expiresAt)
      RETURNING *`);
    this.#select = db.prepare<[string]>('SELECT * FROM approvals WHERE id = ?');
    this.#byCorrelation = db.prepare<[string]>('SELECT * FROM approvals WHERE correlation_id = ?');
    this.#decide = db.prepare<[{ id: string; to: ApprovalState; by: string; now: string }]>(`
      UPDATE approvals SET state = @to, decided_by = @by, decided_at = @now
      WHERE id = @id AND state = 'pending' AND expires_at > @now
      RETURNING *`);
    this.#expire = db.prepare<[{ now: string }]>(`
      UPDATE approvals SET state = 'expired', decided_at = @now
      WHERE state = 'pending' AND expires_at <= @now
      RETURNING *`);
    this.#posted = db.prepare<[{ id: string; channelId: string; ts: string }]>(
      'UPDATE approvals SET channel_id = @channelId, message_ts = @ts WHERE id = @id',
    );
  }

  create(input: Pick<Approval, 'correlationId' | 'change' | 'requester'>): Approval {
    const now = this.#now();
    return toApproval(
      this.#insert.get({
        id: randomUUID(),
        correlationId: input.correlationId,
        change: JSON.stringify(input.change),
        requester: JSON.stringify(input.requester),
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + this.#ttlMs).toISOString(),
      }),
    );
  }

  get(id: string): Approval | undefined {
    const row = this.#select.get(id);
    return row === undefined ? undefined : toApproval(row);
  }

  /** The approval a change waited for, if it needed one. */
  forChange(correlationId: string): Approval | undefined {
    const row = this.#byCorrelation.get(correlationId);
    return row === undefined ? undefined : toApproval(row);
  }

  /** Decides a pending approval, once: undefined when it was decided already or has expired. */
  decide(id: string, to: 'approved' | 'rejected', by: string): Approval | undefined {
    const row = this.#decide.get({ id, to, by, now: this.#now().toISOString() });
    return row === undefined ? undefined : toApproval(row);
  }

  /** Ends every pending approval whose time is up, and returns them (each once). */
  expireDue(): Approval[] {
    return this.#expire.all({ now: this.#now().toISOString() }).map(toApproval);
  }

  /** Remembers where the request was posted, so that its message can be updated with the outcome. */
  posted(id: string, channelId: string, ts: string): void {
    this.#posted.run({ id, channelId, ts });
  }
}
