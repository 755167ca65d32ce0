// Pending confirmations of changes that spend money or destroy something. Each is single-use: the state moves
// out of 'pending' in one conditional UPDATE, so however many clicks, retries or processes race, exactly one
// caller wins. Expired and used rows stay, so that a late click can be told why it does nothing.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { camelCased, jsonObject, jsonText } from './columns.js';
import { type PendingChange, pendingChange } from './records.js';
import type { Sql } from './sql.js';

export const CONFIRMATION_STATES = ['pending', 'used', 'cancelled'] as const;
export type ConfirmationState = (typeof CONFIRMATION_STATES)[number];

/** 'claimed' means this call made the move (to used by `claim`, to cancelled by `cancel`); the others say why not. */
export type ClaimResult =
  | { status: 'claimed'; confirmation: Confirmation }
  | { status: 'not_found' }
  | { status: 'expired'; confirmation: Confirmation }
  | { status: 'already_used'; confirmation: Confirmation }
  | { status: 'cancelled'; confirmation: Confirmation }
  | { status: 'wrong_user'; confirmation: Confirmation };

export const DEFAULT_CONFIRMATION_TTL_MS = 10 * 60 * 1000;

const confirmationRow = camelCased(
  z.object({
    id: z.string(),
    kind: z.string(),
    params: jsonObject.pipe(pendingChange),
    requested_by: z.string(),
    correlation_id: z.string(),
    /** Where the request came from (channel, team, source…), for the audit of the outcome. */
    context: jsonObject,
    created_at: z.string(),
    expires_at: z.string(),
    state: z.enum(CONFIRMATION_STATES),
  }),
).transform(({ kind: _, params, ...confirmation }) => ({
  ...confirmation,
  /** What to do once confirmed, free of secrets: stored as JSON, read back typed. */
  change: params,
}));
export type Confirmation = z.output<typeof confirmationRow>;

const toConfirmation = (row: unknown): Confirmation => confirmationRow.parse(row);

type Refusal = Exclude<ClaimResult['status'], 'claimed' | 'not_found'>;

/** Why a confirmation that exists could not be moved out of 'pending' by this user at this time. */
function refusal(confirmation: Confirmation, userId: string): Refusal {
  if (confirmation.state === 'used') return 'already_used';
  if (confirmation.state === 'cancelled') return 'cancelled';
  if (confirmation.requestedBy !== userId) return 'wrong_user';
  return 'expired'; // pending and the right user: only the expiry can have stopped the UPDATE
}

const INSERT = `
  INSERT INTO confirmations (id, kind, params, requested_by, correlation_id, context, created_at, expires_at)
  VALUES (@id, @kind, @params, @requestedBy, @correlationId, @context, @createdAt, @expiresAt)
  RETURNING *`;
const SELECT = 'SELECT * FROM confirmations WHERE id = ?';
const RESOLVE = `
  UPDATE confirmations SET state = @to
  WHERE id = @id AND state = 'pending' AND requested_by = @userId AND expires_at > @now
  RETURNING *`;

export class Confirmations {
  readonly #ttlMs: number;
  readonly #now: () => Date;

  constructor(
    private readonly sql: Sql,
    options: { ttlMs?: number; now?: () => Date } = {},
  ) {
    this.#ttlMs = options.ttlMs ?? DEFAULT_CONFIRMATION_TTL_MS;
    this.#now = options.now ?? (() => new Date());
  }

  async create(input: {
    change: PendingChange;
    requestedBy: string;
    correlationId: string;
    context?: Record<string, unknown>;
  }): Promise<Confirmation> {
    const now = this.#now();
    return toConfirmation(
      await this.sql.get(INSERT, {
        id: randomUUID(),
        kind: input.change.kind,
        params: jsonText(input.change),
        requestedBy: input.requestedBy,
        correlationId: input.correlationId,
        context: jsonText(input.context ?? {}),
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + this.#ttlMs).toISOString(),
      }),
    );
  }

  /** Takes the confirmation for its requester, once: the caller that gets 'claimed' performs the change. */
  claim(id: string, userId: string): Promise<ClaimResult> {
    return this.#resolveAs(id, userId, 'used');
  }

  /** Withdraws a pending confirmation, with the same checks as `claim`. */
  cancel(id: string, userId: string): Promise<ClaimResult> {
    return this.#resolveAs(id, userId, 'cancelled');
  }

  async get(id: string): Promise<Confirmation | undefined> {
    const row = await this.sql.get(SELECT, [id]);
    return row === undefined ? undefined : toConfirmation(row);
  }

  async #resolveAs(id: string, userId: string, to: Exclude<ConfirmationState, 'pending'>): Promise<ClaimResult> {
    const row = await this.sql.get(RESOLVE, { id, userId, now: this.#now().toISOString(), to });
    if (row !== undefined) return { status: 'claimed', confirmation: toConfirmation(row) };
    const confirmation = await this.get(id);
    if (confirmation === undefined) return { status: 'not_found' };
    return { status: refusal(confirmation, userId), confirmation };
  }
}
