// The audit log's hash chain. Each row carries SHA-256 over its canonical content, which begins with the previous
// row's hash, so a row edited, deleted, inserted or moved after it was written no longer fits the chain.
//
// The canonical content of a row, so that a verifier in any language can recompute it:
//   a JSON array, without white space, of the previous row's hash (GENESIS_HASH for the first row) followed by the
//   row's CHAINED_COLUMNS in that order, each value as the database holds it: TEXT as a string, INTEGER (BIGINT on
//   Postgres) as a number, NULL as null. Strings are escaped as JSON.stringify does: `"`, `\` and U+0000 to U+001F
//   only (\b \t \n \f \r, the others as \u00xx), everything else written as is. The hash is the lower-case hex SHA-256
//   of its UTF-8 bytes.
//   In Python: hashlib.sha256(json.dumps([prev, *values], ensure_ascii=False, separators=(',', ':')).encode())
import { createHash } from 'node:crypto';
import type { Sql } from './sql.js';

/** The "previous hash" of the first row. */
export const GENESIS_HASH = '0'.repeat(64);

/** Rows read at a time by the walks over the whole log (export, verification): memory stays flat at any size. */
export const WALK_PAGE_ROWS = 1000;

/** The columns a row's hash covers, in canonical order: every column but the hash itself. */
export const CHAINED_COLUMNS = [
  'id',
  'at',
  'actor_id',
  'actor_name',
  'team_id',
  'channel_id',
  'source',
  'action',
  'target',
  'params',
  'outcome',
  'error_code',
  'error_message',
  'correlation_id',
] as const;

export type ChainedColumn = (typeof CHAINED_COLUMNS)[number];

/** A row's columns as the engine reads them: whatever an edit may have put there, not only what we write. */
export type ChainedRow = Record<ChainedColumn, unknown>;

export function canonicalContent(previousHash: string, row: ChainedRow): string {
  // One array, filled in place: this runs for every row of a walk over the whole log.
  const content: unknown[] = [previousHash];
  for (const column of CHAINED_COLUMNS) content.push(row[column] ?? null);
  return JSON.stringify(content);
}

export function chainHash(previousHash: string, row: ChainedRow): string {
  return createHash('sha256').update(canonicalContent(previousHash, row), 'utf8').digest('hex');
}

/** Any UTF-16 surrogate, paired or not: paired ones (an emoji) take the long way, and are kept. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** Lone surrogates (no UTF-8 form) and U+0000 (Postgres refuses it) become U+FFFD, so that what is stored is hashed. */
export function wellFormed(text: string): string {
  // Most text has neither: a look first spares it two replacements, every string of every audit row.
  if (!SURROGATE.test(text) && !text.includes('\u0000')) return text;
  return text.replace(/\p{Cs}/gu, '\uFFFD').replaceAll('\u0000', '\uFFFD');
}

export type ChainCheck =
  | { ok: true; rows: number; last?: { id: number; hash: string } }
  | { ok: false; rows: number; id: number; reason: string };

/** A row as read back, its hash whatever the database holds. */
export type StoredRow = ChainedRow & { id: number; hash: unknown };

/** A position in the chain: a row's id and its hash (id 0 and GENESIS_HASH before the first row). */
export interface ChainLink {
  id: number;
  hash: string;
}

export const CHAIN_START: ChainLink = { id: 0, hash: GENESIS_HASH };

/** The rows missing between `previous` and the row `id`, as the reason the chain breaks there, if any are. */
export function gapBefore(id: number, previous: ChainLink): string | undefined {
  if (id <= previous.id + 1) return undefined;
  const missing = id - previous.id === 2 ? `row ${previous.id + 1} is` : `rows ${previous.id + 1}…${id - 1} are`;
  return `${missing} missing before it: deleted after being written`;
}

/** Why `row` does not follow `previous`, or undefined when it does. */
export function breakIn(row: StoredRow, previous: ChainLink): string | undefined {
  const gap = gapBefore(row.id, previous);
  if (gap) return gap;
  if (typeof row.hash !== 'string') return 'it has no hash';
  if (chainHash(previous.hash, row) !== row.hash) {
    return (
      `its content and the hash of the row before it do not give its hash: it was changed after being written, ` +
      'or it was inserted or moved here'
    );
  }
  return undefined;
}

const CHAIN_ROWS = `SELECT ${CHAINED_COLUMNS.join(', ')}, hash FROM audit_events`;
const FIRST_ROWS = `${CHAIN_ROWS} ORDER BY id LIMIT ?`;
const ROWS_AFTER = `${CHAIN_ROWS} WHERE id > ? ORDER BY id LIMIT ?`;
const ROWS_BETWEEN = `${CHAIN_ROWS} WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`;

/** Where a walk of the chain starts and stops, and what it does between its pages. */
export interface Walk {
  /** A verified position to go on from: only the rows after it are read. From the first row when absent. */
  from?: ChainLink;
  /** The last id read: a walk that began before later appends ends where it meant to. */
  upTo?: number;
  pageRows?: number;
  /** Awaited between pages: a turn of the event loop, for a walk that must not hold it. */
  betweenPages?: () => Promise<void>;
}

/** From the first row, the first page has no lower bound, since an edit may put any id first. */
async function* storedPages(sql: Sql, walk: Walk): AsyncGenerator<StoredRow[]> {
  const size = walk.pageRows ?? WALK_PAGE_ROWS;
  const after = (id: number) =>
    walk.upTo === undefined
      ? sql.all<StoredRow>(ROWS_AFTER, [id, size])
      : sql.all<StoredRow>(ROWS_BETWEEN, [id, walk.upTo, size]);
  let page = await (walk.from ? after(walk.from.id) : sql.all<StoredRow>(FIRST_ROWS, [size]));
  for (;;) {
    const last = page.at(-1);
    // From the first row, without a lower bound, the first page may go past upTo.
    const upTo = walk.upTo;
    yield upTo === undefined || last === undefined || last.id <= upTo ? page : page.filter((row) => row.id <= upTo);
    if (last === undefined || page.length < size || (upTo !== undefined && last.id >= upTo)) return;
    await walk.betweenPages?.();
    page = await after(last.id);
  }
}

/** Where the chain breaks: the first row that does not follow the one before it, and why. */
export class ChainBroken extends Error {
  constructor(
    readonly id: number,
    readonly reason: string,
    /** The rows verified before it. */
    readonly rows: number,
  ) {
    super(`the audit chain breaks at row ${id}: ${reason}`);
  }
}

/**
 * Pages in id order, each yielded once its hashes are found to follow on; throws ChainBroken at the first row that
 * does not, so that nothing is taken past a break. Pages rather than rows: a promise per row is too slow.
 */
export async function* verifiedPages(sql: Sql, walk: Walk = {}): AsyncGenerator<StoredRow[]> {
  let previous = walk.from ?? CHAIN_START;
  let verified = 0;
  for await (const page of storedPages(sql, walk)) {
    for (const row of page) {
      const reason = breakIn(row, previous);
      if (reason) throw new ChainBroken(row.id, reason, verified);
      previous = { id: row.id, hash: row.hash as string };
      verified++;
    }
    yield page;
  }
}

/** Walks the whole table in id order, recomputing each hash; stops at the first row that breaks the chain. */
export async function verifyChain(sql: Sql): Promise<ChainCheck> {
  let last: { id: number; hash: string } | undefined;
  let rows = 0;
  try {
    for await (const page of verifiedPages(sql)) {
      const end = page.at(-1);
      if (end) last = { id: end.id, hash: end.hash as string };
      rows += page.length;
    }
  } catch (error) {
    if (error instanceof ChainBroken) return { ok: false, rows: error.rows, id: error.id, reason: error.reason };
    throw error;
  }
  return last ? { ok: true, rows, last } : { ok: true, rows: 0 };
}
