// The audit log read a change (the rows sharing a correlation id) at a time, for `/voice audit`. Pages are found by
// position (the id of a change's newest matching row), never by offset, so that an old page costs what the first does.
import { z } from 'zod';
import { type AuditEvent, toEvent } from './audit.js';
import { wellFormed } from './audit-chain.js';
import { jsonText } from './columns.js';
import type { Dialect, Sql } from './sql.js';

/** Which changes to show; every field given must match one of the change's rows. It travels in buttons. */
export const auditFilter = z.object({
  actorId: z.string().optional(),
  /** A name for the actor, matched in any case against the Slack user name the audit recorded (see below). */
  actorName: z.string().optional(),
  /** A number (or any other target) the change was about. */
  target: z.string().optional(),
  /** An agent the change was about: its target, or the agent a map routed to. */
  agentId: z.string().optional(),
  /** Only changes with a step that failed, or that was refused (`rejected`, `denied`). */
  failed: z.boolean().optional(),
});
export type AuditFilter = z.infer<typeof auditFilter>;

/** Older than a position (Next) or newer than one (Previous). */
export const auditCursor = z.union([z.object({ before: z.number().int() }), z.object({ after: z.number().int() })]);
export type AuditCursor = z.infer<typeof auditCursor>;

/** One change: its rows, oldest first, and its position. */
export interface ChangeTrail {
  correlationId: string;
  position: number;
  events: AuditEvent[];
}

export interface ChangesPage {
  /** Newest first. */
  trails: ChangeTrail[];
  /** Whether changes newer than the first (older than the last) exist. */
  newer: boolean;
  older: boolean;
}

type Params = Record<string, string | number>;

/** Folds A–Z only: what SQLite's NOCASE and Postgres's lower() under the "C" collation fold. */
const foldCase = (text: string): string => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/**
 * The audit records the handle (`vera`) while people type the name they see (`@Vera Viewer`): several words also
 * match the handles Slack makes of them (`vera.viewer`, `veraviewer`) and the first word.
 */
function actorNameForms(name: string): Params {
  const words = foldCase(name).trim().split(/\s+/);
  return {
    actorName: words.join(' '),
    actorNameDotted: words.join('.'),
    actorNameJoined: words.join(''),
    actorNameFirst: words[0] ?? '',
  };
}

/** Outcomes of a step that did not go through: the `failed` filter's, and its partial index's (migration 7). */
const UNSUCCESSFUL = "outcome IN ('failed', 'rejected', 'denied')";

/** Typed text is made wellFormed, as the audit's was, so that it matches and Postgres can take it. */
function matching(filter: AuditFilter, alias: string, dialect: Dialect): { sql: string; params: Params } {
  const parts: string[] = [];
  const params: Params = {};
  const add = (sql: string, name: string, value: string | undefined) => {
    if (value === undefined) return;
    parts.push(sql);
    params[name] = wellFormed(value);
  };
  add(`${alias}.actor_id = @actorId`, 'actorId', filter.actorId);
  if (filter.actorName !== undefined) {
    parts.push(
      `${dialect.caseless(`${alias}.actor_name`)} IN (@actorName, @actorNameDotted, @actorNameJoined, @actorNameFirst)`,
    );
    Object.assign(params, actorNameForms(wellFormed(filter.actorName)));
  }
  add(`${alias}.target = @target`, 'target', filter.target);
  add(
    `(${alias}.target = @agentId OR ${dialect.jsonField(`${alias}.params`, 'agentId')} = @agentId)`,
    'agentId',
    filter.agentId,
  );
  if (filter.failed) parts.push(`${alias}.${UNSUCCESSFUL}`);
  return { sql: parts.length ? parts.join(' AND ') : 'TRUE', params };
}

type Position = { position: number; correlationId: string };

export class AuditChanges {
  readonly #trails: string;

  constructor(private readonly sql: Sql) {
    this.#trails = `SELECT * FROM audit_events WHERE correlation_id ${sql.dialect.inJsonArray('?')} ORDER BY id`;
  }

  /** Up to `size` changes from the cursor on (the newest when there is none), newest first. */
  async page(filter: AuditFilter, cursor: AuditCursor | undefined, size: number): Promise<ChangesPage> {
    const backwards = cursor !== undefined && 'after' in cursor;
    const bound = cursor === undefined ? Number.MAX_SAFE_INTEGER : 'after' in cursor ? cursor.after : cursor.before;
    const found = await this.#positions(filter, backwards ? 'newer' : 'older', bound, size + 1);
    const more = found.length > size;
    const shown = found.slice(0, size);
    if (backwards) shown.reverse();
    const first = shown[0]?.position;
    const last = shown.at(-1)?.position;
    const newer = backwards
      ? more
      : first !== undefined && (await this.#positions(filter, 'newer', first, 1)).length > 0;
    const older = backwards ? last !== undefined && (await this.#positions(filter, 'older', last, 1)).length > 0 : more;
    return { trails: await this.#withEvents(shown), newer, older };
  }

  /** Counted up to `upTo` only: nobody pages a million rows back, and an exact count of them is slow. */
  async count(filter: AuditFilter, upTo: number): Promise<number> {
    const match = matching(filter, 'e', this.sql.dialect);
    const sql = `SELECT COUNT(*) AS n FROM (
      SELECT DISTINCT e.correlation_id FROM audit_events e WHERE ${match.sql} LIMIT @upTo) AS matched`;
    return (await this.sql.get<{ n: number }>(sql, { ...match.params, upTo }))?.n ?? 0;
  }

  /** Changes whose position is beyond `bound` in the given direction, nearest first. */
  #positions(filter: AuditFilter, direction: 'older' | 'newer', bound: number, limit: number): Promise<Position[]> {
    const row = matching(filter, 'e', this.sql.dialect);
    const later = matching(filter, 'l', this.sql.dialect);
    // A row stands for its change only when no later row of the same change matches: each change once, at its newest.
    const sql = `
      SELECT e.id AS position, e.correlation_id AS "correlationId" FROM audit_events e
      WHERE e.id ${direction === 'older' ? '<' : '>'} @bound AND ${row.sql}
        AND NOT EXISTS (
          SELECT 1 FROM audit_events l WHERE l.correlation_id = e.correlation_id AND l.id > e.id AND ${later.sql})
      ORDER BY e.id ${direction === 'older' ? 'DESC' : 'ASC'} LIMIT @limit`;
    return this.sql.all<Position>(sql, { ...row.params, bound, limit });
  }

  async #withEvents(found: Position[]): Promise<ChangeTrail[]> {
    if (!found.length) return [];
    const ids = jsonText(found.map((entry) => entry.correlationId));
    const events = (await this.sql.all(this.#trails, [ids])).map(toEvent);
    return found.map(({ position, correlationId }) => ({
      correlationId,
      position,
      events: events.filter((event) => event.correlationId === correlationId),
    }));
  }
}
