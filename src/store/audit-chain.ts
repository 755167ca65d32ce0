// The audit log's hash chain. Each row carries SHA-256 over its canonical content, which begins with the previous
// row's hash, so a row edited, deleted, inserted or moved after it was written no longer fits the chain.
//
// The canonical content of a row, so that a verifier in any language can recompute it:
//   a JSON array, without white space, of the previous row's hash (GENESIS_HASH for the first row) followed by the
//   row's CHAINED_COLUMNS in that order, each value as SQLite holds it: TEXT as a string, INTEGER as a number, NULL
//   as null. Strings are escaped as JSON.stringify does: `"`, `\` and U+0000 to U+001F only (\b \t \n \f \r, the
//   others as \u00xx), everything else written as is. The hash is the lower-case hex SHA-256 of its UTF-8 bytes.
//   In Python: hashlib.sha256(json.dumps([prev, *values], ensure_ascii=False, separators=(',', ':')).encode())
import { createHash } from 'node:crypto';
import type { Database } from './db.js';

/** The "previous hash" of the first row. */
export const GENESIS_HASH = '0'.repeat(64);

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

/** A row's columns as better-sqlite3 reads them: whatever an edit may have put there, not only what we write. */
export type ChainedRow = Record<ChainedColumn, unknown>;

export function canonicalContent(previousHash: string, row: ChainedRow): string {
  return JSON.stringify([previousHash, ...CHAINED_COLUMNS.map((column) => row[column] ?? null)]);
}

export function chainHash(previousHash: string, row: ChainedRow): string {
  return createHash('sha256').update(canonicalContent(previousHash, row), 'utf8').digest('hex');
}

/** SQLite stores UTF-8: a lone surrogate would be stored as something else than what was hashed. */
export function wellFormed(text: string): string {
  return text.replace(/\p{Cs}/gu, '\uFFFD');
}

export type ChainCheck =
  | { ok: true; rows: number; last?: { id: number; hash: string } }
  | { ok: false; rows: number; id: number; reason: string };

type StoredRow = ChainedRow & { id: number; hash: unknown };

/** Why `row` does not follow `previous`, or undefined when it does. */
function breakIn(row: StoredRow, previous: { id: number; hash: string }): string | undefined {
  if (row.id > previous.id + 1) {
    const missing =
      row.id - previous.id === 2 ? `row ${previous.id + 1} is` : `rows ${previous.id + 1}…${row.id - 1} are`;
    return `${missing} missing before it: deleted after being written`;
  }
  if (typeof row.hash !== 'string') return 'it has no hash';
  if (chainHash(previous.hash, row) !== row.hash) {
    return (
      `its content and the hash of the row before it do not give its hash: it was changed after being written, ` +
      'or it was inserted or moved here'
    );
  }
  return undefined;
}

/** Walks the whole table in id order, recomputing each hash; stops at the first row that breaks the chain. */
export function verifyChain(db: Database): ChainCheck {
  const rows = db.prepare<[], StoredRow>(`SELECT ${CHAINED_COLUMNS.join(', ')}, hash FROM audit_events ORDER BY id`);
  let previous = { id: 0, hash: GENESIS_HASH };
  let verified = 0;
  for (const row of rows.iterate()) {
    const reason = breakIn(row, previous);
    if (reason) return { ok: false, rows: verified, id: row.id, reason };
    previous = { id: row.id, hash: row.hash as string };
    verified++;
  }
  return verified ? { ok: true, rows: verified, last: previous } : { ok: true, rows: 0 };
}
