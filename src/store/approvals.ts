// Changes that wait for a second person. A decision moves the state out of 'pending' in one conditional UPDATE, so
// however many approvers click at once, exactly one decision wins; an expired request can no longer be decided.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { camelCased, jsonObject, jsonText, optionalText } from './columns.js';
import { approvableChange, storedActor } from './records.js';
import type { Sql } from './sql.js';

export const APPROVAL_STATES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

const approvalRow = camelCased(
  z.object({
    id: z.string(),
    correlation_id: z.string(),
    /** The change, or the bulk plan, that waits (free of secrets). */
    change: jsonObject.pipe(approvableChange),
    /** Who asked, from where. */
    requester: jsonObject.pipe(storedActor),
    created_at: z.string(),
    expires_at: z.string(),
    state: z.enum(APPROVAL_STATES),
    decided_by: optionalText,
    decided_at: optionalText,
    /** Where the request for approval was posted, to update it in place. */
    channel_id: optionalText,
    message_ts: optionalText,
  }),
);
export type Approval = z.output<typeof approvalRow>;

const toApproval = (row: unknown): Approval => approvalRow.parse(row);

const INSERT = `
  INSERT INTO approvals (id, correlation_id, change, requester, created_at, expires_at)
  VALUES (@id, @correlationId, @change, @requester, @createdAt, @expiresAt)
  RETURNING *`;
const SELECT = 'SELECT * FROM approvals WHERE id = ?';
const BY_CORRELATION = 'SELECT * FROM approvals WHERE correlation_id = ?';
const DECIDE = `
  UPDATE approvals SET state = @to, decided_by = @by, decided_at = @now
  WHERE id = @id AND state = 'pending' AND expires_at > @now
  RETURNING *`;
const EXPIRE = `
  UPDATE approvals SET state = 'expired', decided_at = @now
  WHERE state = 'pending' AND expires_at <= @now
  RETURNING *`;
const POSTED = 'UPDATE approvals SET channel_id = @channelId, message_ts = @ts WHERE id = @id';

export class Approvals {
  readonly #now: () => Date;

  constructor(
    private readonly sql: Sql,
    options: { now?: () => Date } = {},
  ) {
    this.#now = options.now ?? (() => new Date());
  }

  /** A request for approval that expires `ttlMs` from now, as the settings say when it is made. */
  async create(input: Pick<Approval, 'correlationId' | 'change' | 'requester'> & { ttlMs: number }): Promise<Approval> {
    const now = this.#now();
    return toApproval(
      await this.sql.get(INSERT, {
        id: randomUUID(),
        correlationId: input.correlationId,
        change: jsonText(input.change),
        requester: jsonText(input.requester),
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + input.ttlMs).toISOString(),
      }),
    );
  }

  async get(id: string): Promise<Approval | undefined> {
    const row = await this.sql.get(SELECT, [id]);
    return row === undefined ? undefined : toApproval(row);
  }

  /** The approval a change waited for, if it needed one. */
  async forChange(correlationId: string): Promise<Approval | undefined> {
    const row = await this.sql.get(BY_CORRELATION, [correlationId]);
    return row === undefined ? undefined : toApproval(row);
  }

  /** Decides a pending approval, once: undefined when it was decided already or has expired. */
  async decide(id: string, to: 'approved' | 'rejected', by: string): Promise<Approval | undefined> {
    const row = await this.sql.get(DECIDE, { id, to, by, now: this.#now().toISOString() });
    return row === undefined ? undefined : toApproval(row);
  }

  /** Ends every pending approval whose time is up, and returns them (each once). */
  async expireDue(): Promise<Approval[]> {
    return (await this.sql.all(EXPIRE, { now: this.#now().toISOString() })).map(toApproval);
  }

  /** Remembers where the request was posted, so that its message can be updated with the outcome. */
  async posted(id: string, channelId: string, ts: string): Promise<void> {
    await this.sql.write(POSTED, { id, channelId, ts });
  }
}
