// For the audit log's tests, on either engine: many chained rows at once, an Sql that records the reads it passes on,
// the plans of such reads (to show that the log is read a page at a time, from an index, without a sort), and what
// someone holding the database can do to rewrite it.
import { CHAINED_COLUMNS, type ChainedColumn, chainHash, GENESIS_HASH } from '../../src/store/audit-chain.js';
import type { Sql, SqlParam, SqlParams } from '../../src/store/sql.js';

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const collected: T[] = [];
  for await (const item of items) collected.push(item);
  return collected;
}

const ROWS_PER_INSERT = 500;

/** What a filled row holds besides its id, time and hash: `agent.list` by U0123ABC unless `rowOf` says otherwise. */
export type FilledRow = Partial<Record<ChainedColumn, SqlParam>>;

/**
 * Appends `count` rows a second apart from `from` (ids on from the last row, correlation ids `c-ID`), chained as
 * AuditLog chains them, several rows to a statement: appends one by one would take most of a test's time. `rowOf`
 * gives the columns of the `n`th row (from 0) that differ.
 */
export async function fill(
  sql: Sql,
  count: number,
  from: Date,
  rowOf: (n: number) => FilledRow = () => ({}),
): Promise<void> {
  const columns = [...CHAINED_COLUMNS, 'hash'];
  const placeholders = `(${columns.map(() => '?').join(', ')})`;
  const last = await sql.get<{ id: number; hash: string }>(
    'SELECT id, hash FROM audit_events ORDER BY id DESC LIMIT 1',
  );
  let previous = last?.hash ?? GENESIS_HASH;
  const firstId = (last?.id ?? 0) + 1;
  for (let offset = 0; offset < count; offset += ROWS_PER_INSERT) {
    const values: SqlParam[] = [];
    for (let n = offset; n < Math.min(offset + ROWS_PER_INSERT, count); n++) {
      const id = firstId + n;
      const row: Record<ChainedColumn, SqlParam> = {
        ...(Object.fromEntries(CHAINED_COLUMNS.map((column) => [column, null])) as Record<ChainedColumn, null>),
        id,
        at: new Date(from.getTime() + n * 1000).toISOString(),
        actor_id: 'U0123ABC',
        source: 'command',
        action: 'agent.list',
        outcome: 'succeeded',
        correlation_id: `c-${id}`,
        ...rowOf(n),
      };
      previous = chainHash(previous, row);
      values.push(...CHAINED_COLUMNS.map((column) => row[column]), previous);
    }
    const rows = Array.from({ length: values.length / columns.length }, () => placeholders);
    await sql.run(`INSERT INTO audit_events (${columns.join(', ')}) VALUES ${rows.join(', ')}`, values);
  }
}

export interface Read {
  text: string;
  params: SqlParams;
  rows: number;
}

/** `sql`, with every `all` and `get` recorded in `reads` (those inside its transactions included). */
export function recording(sql: Sql, reads: Read[] = []): { sql: Sql; reads: Read[] } {
  const all = async <T>(text: string, params: SqlParams = []): Promise<T[]> => {
    const rows = await sql.all<T>(text, params);
    reads.push({ text, params, rows: rows.length });
    return rows;
  };
  const recorded: Sql = {
    dialect: sql.dialect,
    all,
    get: async <T>(text: string, params?: SqlParams) => (await all<T>(text, params))[0],
    run: (text, params) => sql.run(text, params),
    write: (text, params) => sql.write(text, params),
    lock: (key) => sql.lock(key),
    transaction: (work) => sql.transaction((tx) => work(recording(tx, reads).sql)),
  };
  return { sql: recorded, reads };
}

/** How the engine would run a read, as text: SQLite's EXPLAIN QUERY PLAN, Postgres's EXPLAIN. */
export async function planOf(sql: Sql, text: string, params: SqlParams = []): Promise<string> {
  if (sql.dialect.name === 'sqlite') {
    const rows = await sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params);
    return rows.map((row) => row.detail).join('; ');
  }
  const rows = await sql.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, params);
  return rows.map((row) => row['QUERY PLAN'].trim()).join('; ');
}

/** A plan that sorts: SQLite's temporary b-tree, or a Sort node of Postgres's. */
export const SORTS = /TEMP B-TREE|\bSort\b/;

/** What someone holding the database can do: turn the audit log's triggers off, so that any SQL rewrites its rows. */
export async function allowAuditEdits(sql: Sql): Promise<void> {
  if (sql.dialect.name === 'sqlite') {
    for (const trigger of ['audit_events_no_update', 'audit_events_no_delete', 'audit_events_append_only']) {
      await sql.run(`DROP TRIGGER ${trigger}`);
    }
  } else {
    await sql.run('ALTER TABLE audit_events DISABLE TRIGGER USER');
  }
}
