// The audit log: one row per attempt and per outcome, tied together by a correlation id. The schema's triggers
// refuse every statement but an append (UPDATE, DELETE, REPLACE, TRUNCATE, an insert at a used or past id), so not
// even a bug or a hand-typed statement can rewrite history; each row's hash chains it to the one before
// (audit-chain.ts), so an edit made around the triggers is found by `npm run audit -- --verify`.
import { z } from 'zod';
import { turnsOnTime } from '../slices.js';
import {
  breakIn,
  CHAIN_START,
  ChainBroken,
  type ChainedRow,
  type ChainLink,
  chainHash,
  GENESIS_HASH,
  gapBefore,
  type StoredRow,
  WALK_PAGE_ROWS,
  wellFormed,
} from './audit-chain.js';
import { ChainVerifier, type VerifiedChain } from './audit-checkpoints.js';
import { camelCased, jsonObject, jsonText, optionalText } from './columns.js';
import type { Dialect, Sql, SqlParam } from './sql.js';

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
  'unknown',
] as const;
export const AUDIT_SOURCES = ['command', 'button', 'modal', 'home', 'system', 'provider', 'workflow'] as const;

// `noun.verb`: a change (`number.buy`, named in ops/kinds/), a step (`change.announce`), a read, a denial.
export type AuditAction = string;
const auditAction = z.string().regex(/^[a-z_]+\.[a-z_]+$/);
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
  if (typeof value === 'string') return wellFormed(truncate(value));
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
    Object.entries(value).map(([key, item]) => [
      wellFormed(key),
      looksSecret(key) ? REDACTED : redactValue(item, depth + 1),
    ]),
  );
}

/** Hides secret-looking values at any depth, truncates long strings, and makes keys and values wellFormed. */
export function redactParams(params: Record<string, unknown>): Record<string, unknown> {
  return redactObject(params, 0);
}

const auditRow = camelCased(
  z.object({
    id: z.number().int(),
    at: z.string(),
    actor_id: z.string(),
    actor_name: optionalText,
    team_id: optionalText,
    channel_id: optionalText,
    source: z.enum(AUDIT_SOURCES),
    action: auditAction,
    target: optionalText,
    params: jsonObject.nullable().transform((params) => params ?? undefined),
    outcome: z.enum(AUDIT_OUTCOMES),
    error_code: optionalText,
    error_message: optionalText,
    correlation_id: z.string(),
    /** SHA-256 chaining the row to the one before it (audit-chain.ts). */
    hash: z.string(),
  }),
);
export type AuditEvent = z.output<typeof auditRow>;

export const toEvent = (row: unknown): AuditEvent => auditRow.parse(row);

const changeRow = z.object({ action: auditAction, target: z.string() });

const lastRow = z.object({ id: z.number().int(), hash: z.string().nullable() }).optional();

type Columns = Record<Exclude<keyof ChainedRow, 'id'>, string | null>;

/** The chain's last row, which the next append follows on from. */
interface ChainEnd {
  id: number;
  hash: string;
}

/** Held by each append from reading the chain's end to the end of its transaction, so that the chain has one end. */
export const CHAIN_LOCK = 'audit-chain';
const LAST = 'SELECT id, hash FROM audit_events ORDER BY id DESC LIMIT 1';
const INSERT = `
  INSERT INTO audit_events (id, at, actor_id, actor_name, team_id, channel_id, source, action, target, params,
    outcome, error_code, error_message, correlation_id, hash)
  VALUES (@id, @at, @actor_id, @actor_name, @team_id, @channel_id, @source, @action, @target, @params,
    @outcome, @error_code, @error_message, @correlation_id, @hash)`;
// Newest first by id: a walk back from the end of the table, however large it is.
const RECENT = 'SELECT * FROM audit_events ORDER BY id DESC LIMIT ?';
const OF_REQUEST = 'SELECT * FROM audit_events WHERE correlation_id = ? ORDER BY id';
const ABOUT = 'SELECT * FROM audit_events WHERE target = ? AND action = ? ORDER BY id';

/** What happened to a number (its rows' target), or to an agent (a target, or the agent a route left or reached). */
const historyOf = (dialect: Dialect, of: 'number' | 'agent') => `
  SELECT * FROM audit_events
  WHERE outcome = 'succeeded' AND action NOT LIKE 'batch.%'
    AND ${
      of === 'number'
        ? 'target = @subject'
        : `(target = @subject OR ${dialect.jsonField('params', 'agentId')} = @subject
            OR ${dialect.jsonField('params', 'previousAgentId')} = @subject)`
    }
    AND (CAST(@before AS BIGINT) IS NULL OR id < @before)
  ORDER BY id DESC LIMIT @limit`;
const HASH_OF = 'SELECT id, hash FROM audit_events WHERE id = ?';
const WINDOW_COUNT = 'SELECT count(*) AS count FROM audit_events WHERE id > ? AND id <= ?';
const WINDOW_IDS = 'SELECT id FROM audit_events WHERE id > ? AND id <= ? ORDER BY id';
// Each change with the hash of the row before it, which its own hash chains from.
const WINDOW_CHANGES = `
  SELECT e.*, p.hash AS previous_hash FROM audit_events e LEFT JOIN audit_events p ON p.id = e.id - 1
  WHERE e.id > ? AND e.id <= ? AND e.outcome = 'succeeded' AND e.target IS NOT NULL
  ORDER BY e.id`;
/** Ids read at a time by the walk of the changes: a window of the primary key, whatever share of it they are. */
const CHANGES_WINDOW = 500;
const LAST_OUTCOME = 'SELECT outcome FROM audit_events WHERE correlation_id = ? ORDER BY id DESC LIMIT 1';
// Changes made outside Voice Ops (source `provider`) have no Voice Ops requester: they never count as a person's.
const SUCCEEDED = `
  SELECT COUNT(*) AS count FROM audit_events
  WHERE at >= @from AND at < @until AND action = @action AND outcome = 'succeeded'
    AND (CAST(@actorId AS TEXT) IS NULL OR (actor_id = @actorId AND source != 'provider'))`;
const CHANGES_MADE = `
  SELECT action, target FROM audit_events
  WHERE at >= @from AND at < @until AND outcome = 'succeeded' AND source != 'provider' AND target IS NOT NULL
  ORDER BY at, id`;

// Under the chain's lock, so that two appending processes cannot chain to the same row; both statements go out at once.
function takeEnd(sql: Sql): Promise<ChainEnd> {
  const locked = sql.lock(CHAIN_LOCK);
  const last = sql.get(LAST);
  return Promise.all([locked, last]).then(([, row]) => {
    const previous = lastRow.parse(row);
    return previous ? { id: previous.id, hash: previous.hash ?? GENESIS_HASH } : { id: 0, hash: GENESIS_HASH };
  });
}

/** The promise, its rejection kept for whoever awaits it: one that nobody comes to await is not an unhandled one. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

// In `at, id` order, the time index's order on both engines, so that no page sorts.
function sincePage(after: boolean, bounded: boolean): string {
  const start = after ? '(at, id) > (@at, @id)' : 'at >= @from';
  const end = bounded ? ' AND at < @until' : '';
  return `SELECT * FROM audit_events WHERE ${start}${end} ORDER BY at, id LIMIT ${WALK_PAGE_ROWS}`;
}

export class AuditLog {
  readonly #now: () => Date;
  readonly #inTransaction: boolean;
  /** The chain's end this transaction holds, moved on by each append. */
  #end: Promise<ChainEnd> | undefined;
  /** Shared by the process's logs (open-store.ts), so that reads asked together walk the chain once. */
  readonly #verifier: ChainVerifier;

  constructor(
    private readonly sql: Sql,
    options: { now?: () => Date; inTransaction?: boolean; verifier?: ChainVerifier } = {},
  ) {
    this.#now = options.now ?? (() => new Date());
    this.#inTransaction = options.inTransaction ?? false;
    this.#verifier = options.verifier ?? new ChainVerifier(this.#now);
  }

  /** Stores the entry, its parameters redacted, chained to the last row, and returns the stored row. */
  async append(entry: AuditEntry): Promise<AuditEvent> {
    const text = (value: string | undefined): string | null => (value === undefined ? null : wellFormed(value));
    const capped = (value: string | undefined): string | null =>
      text(value === undefined ? undefined : truncate(value));
    return toEvent(
      await this.#chained({
        actor_id: wellFormed(entry.actorId),
        actor_name: text(entry.actorName),
        team_id: text(entry.teamId),
        channel_id: text(entry.channelId),
        source: entry.source,
        action: entry.action,
        target: capped(entry.target),
        params: entry.params === undefined ? null : jsonText(redactParams(entry.params)),
        outcome: entry.outcome,
        error_code: text(entry.errorCode),
        error_message: capped(entry.errorMessage),
        correlation_id: wellFormed(entry.correlationId),
      }),
    );
  }

  /**
   * Takes the chain's lock and end now, so that on Postgres they go out with the statements already sent. Call it
   * after the statements that lock rows (see carryOutHeld); outside a transaction each append takes its own.
   */
  takeChainEnd(): void {
    if (this.#inTransaction) this.#end ??= handled(takeEnd(this.sql));
  }

  #chained(columns: Omit<Columns, 'at'>): Promise<ChainedRow & ChainEnd> {
    if (!this.#inTransaction) return this.sql.transaction((tx) => this.#appendAfter(tx, takeEnd(tx), columns));
    const appended = this.#appendAfter(this.sql, this.#end ?? takeEnd(this.sql), columns);
    // A failed append leaves no end to follow on from: the transaction's later appends fail too, as it must.
    this.#end = handled(appended.then(({ id, hash }) => ({ id, hash })));
    return appended;
  }

  /**
   * The time is read under the chain's lock, so that rows' times follow their ids. No INSERT … RETURNING: after one,
   * SQLite's automatic WAL checkpoint was seen not to run, and the WAL grew without bound.
   */
  async #appendAfter(sql: Sql, end: Promise<ChainEnd>, columns: Omit<Columns, 'at'>): Promise<ChainedRow & ChainEnd> {
    const previous = await end;
    const row = { ...columns, at: this.#now().toISOString(), id: previous.id + 1 };
    const stored = { ...row, hash: chainHash(previous.hash, row) };
    await sql.write(INSERT, stored);
    return stored;
  }

  /** Newest first; `limit` is clamped to 1…MAX_RECENT. */
  async recent(limit: number): Promise<AuditEvent[]> {
    const clamped = Number.isNaN(limit) ? 1 : Math.min(MAX_RECENT, Math.max(1, Math.floor(limit)));
    return (await this.sql.all(RECENT, [clamped])).map(toEvent);
  }

  /** Oldest first. */
  async ofRequest(correlationId: string): Promise<AuditEvent[]> {
    return (await this.sql.all(OF_REQUEST, [correlationId])).map(toEvent);
  }

  /** Oldest first: the Undos of a change, say. */
  async about(action: AuditAction, target: string): Promise<AuditEvent[]> {
    return (await this.sql.all(ABOUT, [target, action])).map(toEvent);
  }

  /** Succeeded changes to a number or agent, newest first, before row `before`, each checked against its hash. */
  async history(subject: { number: string } | { agentId: string }, before: number | undefined, limit: number) {
    const of = 'number' in subject ? 'number' : 'agent';
    const params = { subject: 'number' in subject ? subject.number : subject.agentId, before: before ?? null, limit };
    const rows = await this.sql.all<StoredRow>(historyOf(this.sql.dialect, of), params);
    await this.#checkEach(rows);
    return rows.map(toEvent);
  }

  async lastOutcome(correlationId: string): Promise<AuditOutcome | undefined> {
    return (await this.sql.get<{ outcome: AuditOutcome }>(LAST_OUTCOME, [correlationId]))?.outcome;
  }

  /** Reconciled ones and those made outside Voice Ops included, unless `actorId` is given. */
  async succeededCount(action: AuditAction, window: { from: Date; until: Date }, actorId?: string): Promise<number> {
    const range = { from: window.from.toISOString(), until: window.until.toISOString() };
    const row = await this.sql.get<{ count: number }>(SUCCEEDED, { action, ...range, actorId: actorId ?? null });
    return row?.count ?? 0;
  }

  /** The changes Voice Ops itself made (or reconciled) from `from` until before `until`, oldest first. */
  async changesMade(from: string, until: string): Promise<{ action: AuditAction; target: string }[]> {
    return (await this.sql.all(CHANGES_MADE, { from, until })).map((row) => changeRow.parse(row));
  }

  /** From the last checkpoint to the end, checkpointing there (audit-checkpoints.ts); throws ChainBroken. */
  verifyToEnd(): Promise<VerifiedChain> {
    return this.#verifier.verify(this.sql);
  }

  /**
   * Succeeded rows naming a target, up to the verified id `end`, a window of ids at a time, yielding the event loop
   * each slice (SLICE_MS) so memory stays flat. Each row is checked against its hash and no id may be missing.
   */
  async *changesUpTo(end: number): AsyncGenerator<AuditEvent> {
    const turn = turnsOnTime();
    for (let from = 0; from < end; from += CHANGES_WINDOW) {
      if (from > 0) await turn();
      const to = Math.min(from + CHANGES_WINDOW, end);
      const [counted, rows] = await Promise.all([
        this.sql.get<{ count: number }>(WINDOW_COUNT, [from, to]),
        this.sql.all<StoredRow & { previous_hash: unknown }>(WINDOW_CHANGES, [from, to]),
      ]);
      if (counted?.count !== to - from) await this.#missingIn(from, to);
      for (const row of rows) {
        const previous = row.id === 1 ? CHAIN_START : { id: row.id - 1, hash: String(row.previous_hash) };
        const reason = breakIn(row, previous);
        if (reason) throw new ChainBroken(row.id, reason, 0);
        yield toEvent(row);
      }
    }
  }

  /** Names the first id missing from the window (`from`, `to`], which its count found short. */
  async #missingIn(from: number, to: number): Promise<never> {
    let previous = from;
    for (const { id } of await this.sql.all<{ id: number }>(WINDOW_IDS, [from, to])) {
      const gap = gapBefore(id, { id: previous, hash: '' });
      if (gap) throw new ChainBroken(id, gap, 0);
      previous = id;
    }
    throw new ChainBroken(previous + 1, 'it is missing: deleted after being written', 0);
  }

  /** Throws ChainBroken unless each row's own hash fits its content and the hash of the row before it. */
  async #checkEach(rows: StoredRow[]): Promise<void> {
    const before = await Promise.all(
      rows.map((row) => (row.id === 1 ? CHAIN_START : this.sql.get<ChainLink>(HASH_OF, [row.id - 1]))),
    );
    rows.forEach((row, index) => {
      const previous = before[index];
      const reason = previous ? breakIn(row, previous) : gapBefore(row.id, { id: row.id - 2, hash: '' });
      if (reason) throw new ChainBroken(row.id, reason, 0);
    });
  }

  /** Oldest first, a page at a time, holding nothing between pages, so that a reader may stop at any point. */
  async *since(from: Date, until?: Date): AsyncGenerator<AuditEvent> {
    const end: Record<string, SqlParam> = until === undefined ? {} : { until: until.toISOString() };
    let after: AuditEvent | undefined;
    for (;;) {
      const start: Record<string, SqlParam> =
        after === undefined ? { from: from.toISOString() } : { at: after.at, id: after.id };
      const text = sincePage(after !== undefined, until !== undefined);
      const page = (await this.sql.all(text, { ...start, ...end })).map(toEvent);
      yield* page;
      after = page.at(-1);
      if (after === undefined || page.length < WALK_PAGE_ROWS) return;
    }
  }
}
