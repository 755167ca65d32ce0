// The audit log: one row per attempt and per outcome, tied together by a correlation id. The schema's triggers
// refuse every statement but an append (UPDATE, DELETE, REPLACE, an insert at a used or past id), so not even a bug
// or a hand-typed statement can rewrite history; each row's hash chains it to the one before (audit-chain.ts), so
// an edit made around the triggers is found by `npm run audit -- --verify`.
import { z } from 'zod';
import { type ChainedRow, chainHash, GENESIS_HASH, wellFormed } from './audit-chain.js';
import { jsonObject, optionalText } from './columns.js';
import type { Database } from './db.js';

export const AUDIT_ACTIONS = [
  'agent.create',
  'agent.delete',
  'agent.list',
  'number.search',
  'number.buy',
  'number.release',
  'number.list',
  'routing.map',
  'access.denied',
  'audit.read',
  'change.announce',
  'agent.token',
  'routing.drop',
] as const;
export const AUDIT_OUTCOMES = [
  'requested',
  'confirmed',
  'succeeded',
  'failed',
  'denied',
  'cancelled',
  'expired',
  'rejected',
  'awaiting_approval',
  'approved',
] as const;
export const AUDIT_SOURCES = ['command', 'button', 'modal', 'home', 'system', 'provider'] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];
export type AuditSource = (typeof AUDIT_SOURCES)[number];

export interface AuditEntry {
  actorId: string;
  actorName?: string;
  teamId?: string;
  channelId?: string;
  source: AuditSource;
  action: AuditAction;
  target?: string;
  /** Redacted and truncated by `append` before it is stored. */
  params?: Record<string, unknown>;
  outcome: AuditOutcome;
  errorCode?: string;
  errorMessage?: string;
  correlationId: string;
}

export interface AuditEvent extends AuditEntry {
  id: number;
  /** ISO-8601, UTC. */
  at: string;
  /** SHA-256 chaining the row to the one before it (audit-chain.ts). */
  hash: string;
}

/** The most `recent` returns: enough for a Slack message, small enough to stay one. */
export const MAX_RECENT = 200;

const REDACTED = '[redacted]';
const MAX_TEXT = 500;
// Deeper than any parameters we build; also stops a cyclic object from recursing forever.
const MAX_DEPTH = 10;
// Matched against the key lowercased without '_' and '-', anywhere in it: agent_token, apiKey, X-Api-Key,
// client_secret, Authorization… A false positive only hides a value from the audit.
const SECRET_KEY = /token|apikey|authorization|password|secret|credential/;

function looksSecret(key: string): boolean {
  return SECRET_KEY.test(key.toLowerCase().replace(/[-_]/g, ''));
}

/** Caps user-supplied text so that no one can bloat the audit log. */
function truncate(text: string): string {
  if (text.length <= MAX_TEXT) return text;
  const isHighSurrogate = /[\uD800-\uDBFF]/.test(text.charAt(MAX_TEXT - 1));
  const end = isHighSurrogate ? MAX_TEXT - 1 : MAX_TEXT;
  return `${text.slice(0, end)}…[truncated ${text.length - end} characters]`;
}

function hasToJson(value: object): value is { toJSON: () => unknown } {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return truncate(value);
  if (typeof value === 'bigint') return value.toString(); // JSON.stringify would throw on it
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  // What JSON.stringify would store (a Date's ISO string, say), redacted in turn.
  if (hasToJson(value)) return redactValue(value.toJSON(), depth + 1);
  return redactObject(value, depth);
}

function redactObject(value: object, depth: number): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, looksSecret(key) ? REDACTED : redactValue(item, depth + 1)]),
  );
}

/** Hides the values of keys that look secret, at any depth, and truncates long strings. */
export function redactParams(params: Record<string, unknown>): Record<string, unknown> {
  return redactObject(params, 0);
}

const auditRow = z
  .object({
    id: z.number().int(),
    at: z.string(),
    actor_id: z.string(),
    actor_name: optionalText,
    team_id: optionalText,
    channel_id: optionalText,
    source: z.enum(AUDIT_SOURCES),
    action: z.enum(AUDIT_ACTIONS),
    target: optionalText,
    params: jsonObject.nullable().transform((params) => params ?? undefined),
    outcome: z.enum(AUDIT_OUTCOMES),
    error_code: optionalText,
    error_message: optionalText,
    correlation_id: z.string(),
    hash: z.string(),
  })
  .transform(
    (row): AuditEvent => ({
      id: row.id,
      at: row.at,
      actorId: row.actor_id,
      actorName: row.actor_name,
      teamId: row.team_id,
      channelId: row.channel_id,
      source: row.source,
      action: row.action,
      target: row.target,
      params: row.params,
      outcome: row.outcome,
      errorCode: row.error_code,
      errorMessage: row.error_message,
      correlationId: row.correlation_id,
      hash: row.hash,
    }),
  );

/** A row of `audit_events` as read back, checked against the schema. */
export const toEvent = (row: unknown): AuditEvent => auditRow.parse(row);

const changeRow = z.object({ action: z.enum(AUDIT_ACTIONS), target: z.string() });

const lastRow = z.object({ id: z.number().int(), hash: z.string().nullable() }).optional();

type Columns = Record<Exclude<keyof ChainedRow, 'id'>, string | null>;

export class AuditLog {
  readonly #now: () => Date;
  readonly #append;
  readonly #recent;
  readonly #since;
  readonly #changesMade;
  readonly #lastOutcome;
  readonly #succeeded;

  constructor(db: Database, options: { now?: () => Date } = {}) {
    this.#now = options.now ?? (() => new Date());
    const last = db.prepare('SELECT id, hash FROM audit_events ORDER BY id DESC LIMIT 1');
    const insert = db.prepare<[ChainedRow & { hash: string }]>(`
      INSERT INTO audit_events (id, at, actor_id, actor_name, team_id, channel_id, source, action, target, params,
        outcome, error_code, error_message, correlation_id, hash)
      VALUES (@id, @at, @actor_id, @actor_name, @team_id, @channel_id, @source, @action, @target, @params,
        @outcome, @error_code, @error_message, @correlation_id, @hash)`);
    // The previous hash is read under the write lock (BEGIN IMMEDIATE), so that two processes appending to one
    // file take turns and cannot both chain to the same row. The row returned is the one built here: after an
    // INSERT … RETURNING, SQLite's automatic WAL checkpoint was seen not to run, and the WAL grew without bound.
    this.#append = db.transaction((columns: Columns) => {
      const previous = lastRow.parse(last.get());
      const row = { ...columns, id: (previous?.id ?? 0) + 1 };
      const stored = { ...row, hash: chainHash(previous?.hash ?? GENESIS_HASH, row) };
      insert.run(stored);
      return stored;
    });
    // Newest first by rowid: a walk back from the end of the table, however large it is.
    this.#recent = db.prepare<[number]>('SELECT * FROM audit_events ORDER BY id DESC LIMIT ?');
    // `at, id` is the order of the index on `at` (which ends in the rowid), so rows stream without a sort.
    this.#since = db.prepare<[{ from: string; until: string | null }]>(
      'SELECT * FROM audit_events WHERE at >= @from AND (@until IS NULL OR at < @until) ORDER BY at, id',
    );
    this.#lastOutcome = db.prepare<[string], { outcome: AuditOutcome }>(
      'SELECT outcome FROM audit_events WHERE correlation_id = ? ORDER BY id DESC LIMIT 1',
    );
    // Changes made outside Voice Ops (source `provider`) have no Voice Ops requester: they never count as a person's.
    this.#succeeded = db.prepare<
      [{ action: string; from: string; until: string; actorId: string | null }],
      { count: number }
    >(`
      SELECT COUNT(*) AS count FROM audit_events
      WHERE at >= @from AND at < @until AND action = @action AND outcome = 'succeeded'
        AND (@actorId IS NULL OR (actor_id = @actorId AND source != 'provider'))`);
    this.#changesMade = db.prepare<[{ from: string; until: string }]>(`
      SELECT action, target FROM audit_events
      WHERE at >= @from AND at < @until AND outcome = 'succeeded' AND source != 'provider' AND target IS NOT NULL
      ORDER BY at, id`);
  }

  /** Stores the entry, its parameters redacted, chained to the last row, and returns the stored row. */
  append(entry: AuditEntry): AuditEvent {
    const text = (value: string | undefined): string | null => (value === undefined ? null : wellFormed(value));
    const capped = (value: string | undefined): string | null =>
      text(value === undefined ? undefined : truncate(value));
    return toEvent(
      this.#append.immediate({
        at: this.#now().toISOString(),
        actor_id: wellFormed(entry.actorId),
        actor_name: text(entry.actorName),
        team_id: text(entry.teamId),
        channel_id: text(entry.channelId),
        source: entry.source,
        action: entry.action,
        target: capped(entry.target),
        params: entry.params === undefined ? null : JSON.stringify(redactParams(entry.params)),
        outcome: entry.outcome,
        error_code: text(entry.errorCode),
        error_message: capped(entry.errorMessage),
        correlation_id: wellFormed(entry.correlationId),
      }),
    );
  }

  /** Newest first; `limit` is clamped to 1…MAX_RECENT. */
  recent(limit: number): AuditEvent[] {
    const clamped = Number.isNaN(limit) ? 1 : Math.min(MAX_RECENT, Math.max(1, Math.floor(limit)));
    return this.#recent.all(clamped).map(toEvent);
  }

  /** The outcome of the newest row of a request, if it has any. */
  lastOutcome(correlationId: string): AuditOutcome | undefined {
    return this.#lastOutcome.get(correlationId)?.outcome;
  }

  /**
   * How many `action`s succeeded from `from` until before `until`: reconciled ones and those made outside Voice Ops
   * included, or only `actorId`'s own when given.
   */
  succeededCount(action: AuditAction, window: { from: Date; until: Date }, actorId?: string): number {
    const range = { from: window.from.toISOString(), until: window.until.toISOString() };
    return this.#succeeded.get({ action, ...range, actorId: actorId ?? null })?.count ?? 0;
  }

  /** The changes Voice Ops itself made (or reconciled) from `from` until before `until`, oldest first. */
  changesMade(from: string, until: string): { action: AuditAction; target: string }[] {
    return this.#changesMade.all({ from, until }).map((row) => changeRow.parse(row));
  }

  /** Events at or after `from` and, when given, before `until`, oldest first, streamed row by row for exports. */
  *since(from: Date, until?: Date): IterableIterator<AuditEvent> {
    const range = { from: from.toISOString(), until: until?.toISOString() ?? null };
    for (const row of this.#since.iterate(range)) yield toEvent(row);
  }
}
