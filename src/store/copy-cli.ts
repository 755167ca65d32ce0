// `npm run db:copy -- --from PATH [--to postgres://…]`: copies the SQLite file into an empty Postgres database in one
// transaction, audit ids and hashes kept, then checks row counts and the chain. The file is only read; the URL is
// never printed (it may carry a password).
// Exit codes: 0 copied and verified, 1 not copied (or copied but not verified), 2 bad arguments or configuration.
import { existsSync } from 'node:fs';
import Sqlite from 'better-sqlite3';
import { z } from 'zod';
import { ConfigError, parseDatabaseTarget, readEnvironment } from '../config.js';
import { verifyChain } from './audit-chain.js';
import { parsedArgs, UsageError } from './cli-args.js';
import { APP_TABLES, type Database, DatabaseUnusable, openDatabaseReadOnly } from './db.js';
import { LATEST_VERSION, schemaVersion } from './migrations.js';
import { openEngine } from './open-store.js';
import { describeUrl, reasonOf } from './postgres-sql.js';
import type { Sql, SqlEngine, SqlParam } from './sql.js';

const USAGE = `Usage: npm run db:copy -- --from PATH [--to postgres://USER:PASSWORD@HOST:PORT/DATABASE]

Copies every table of the app's SQLite database into an empty Postgres database, in one transaction, keeping the
audit log's ids and hashes; then checks that each table has as many rows as the file and that the audit chain
verifies on Postgres. Stop the app first: what it writes to the file during the copy is not copied.

  --from PATH   the SQLite database file to copy (the app's DATABASE_PATH until now); it is only read
  --to URL      the Postgres database to copy into (default: DATABASE_URL); the app's schema is created there if
                need be, and it must hold none of the app's data
`;

const copyArgs = z.object({
  from: z.string({ error: 'is required: the SQLite database file to copy' }).min(1, 'must not be empty'),
  to: z
    .string({ error: 'is required when DATABASE_URL is not set' })
    .pipe(z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' })),
});

type CopyArgs = z.infer<typeof copyArgs>;

const OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function readOptions(argv: string[]) {
  const { values, positionals } = parsedArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  // Said without repeating the argument, which may be a URL with a password that lacks its --to.
  if (positionals.length) throw new UsageError('takes only options: --from PATH and --to URL');
  return values;
}

/** The Postgres URL of the environment (and .env), when no --to names one. */
function configuredUrl(): string | undefined {
  const target = parseDatabaseTarget(readEnvironment());
  return target.kind === 'postgres' ? target.url : undefined;
}

function parseCli(argv: string[]): CopyArgs | 'help' {
  const { help, from, to } = readOptions(argv);
  if (help) return 'help';
  const result = copyArgs.safeParse({ from, to: to ?? configuredUrl() });
  if (result.success) return result.data;
  throw new UsageError(result.error.issues.map((issue) => `--${issue.path.join('.')} ${issue.message}`).join('; '));
}

function schemaVersionOf(path: string): number {
  const db = new Sqlite(path, { readonly: true, fileMustExist: true });
  try {
    return schemaVersion(db);
  } finally {
    db.close();
  }
}

/** Says where to migrate an older schema, since an app started with DATABASE_URL would migrate Postgres instead. */
function openSource(path: string): Database {
  if (!existsSync(path)) throw new Error(`there is no database at ${path}`);
  const version = schemaVersionOf(path);
  if (version > 0 && version < LATEST_VERSION) {
    throw new Error(
      `${path} has schema version ${version}, older than this code's ${LATEST_VERSION}: start the app once on it ` +
        `(DATABASE_PATH=${path}, DATABASE_URL unset) to migrate it, then copy again`,
    );
  }
  return openDatabaseReadOnly(path);
}

interface Table {
  name: string;
  columns: string[];
  /** Its primary key, for copying in key order: the audit log's triggers take rows only in id order. */
  key: string[];
}

/** The app's tables as the file's schema has them: every table but SQLite's own. */
function tablesOf(db: Database): Table[] {
  const names = db.prepare<[], { name: string }>(APP_TABLES).all();
  const columnsOf = db.prepare<[string], { name: string; pk: number }>(
    'SELECT name, pk FROM pragma_table_info(?) ORDER BY cid',
  );
  return names.map(({ name }) => {
    const columns = columnsOf.all(name);
    const key = columns.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk);
    return { name, columns: columns.map((column) => column.name), key: key.map((column) => column.name) };
  });
}

const quoted = (identifier: string): string => `"${identifier.replaceAll('"', '""')}"`;

/** Opens and migrates the target; an unreachable server is named by host and database, never by its URL. */
async function openTarget(url: string): Promise<SqlEngine> {
  try {
    return await openEngine({ kind: 'postgres', url, poolSize: 2, statementTimeoutMs: 60_000 });
  } catch (error) {
    if (!(error instanceof DatabaseUnusable)) throw error;
    throw new Error(
      `cannot reach ${describeUrl(url)} (${reasonOf(error.cause)}): check --to (or DATABASE_URL) and that the ` +
        'server takes connections',
    );
  }
}

const POSTGRES_COLUMNS = `
  SELECT column_name AS name FROM information_schema.columns
  WHERE table_schema = current_schema() AND table_name = ?`;

/** Every table and column of the file must be in Postgres: a table of someone else's has nowhere to go. */
async function assertSameTables(target: SqlEngine, tables: Table[], path: string): Promise<void> {
  for (const table of tables) {
    const present = new Set((await target.all<{ name: string }>(POSTGRES_COLUMNS, [table.name])).map((c) => c.name));
    if (!present.size) {
      throw new Error(`${path} has a table ${table.name} that ${target.label} lacks: nothing was copied`);
    }
    const missing = table.columns.filter((column) => !present.has(column));
    if (missing.length) {
      throw new Error(
        `${path}'s table ${table.name} has columns that ${target.label}'s lacks (${missing.join(', ')}): nothing was ` +
          'copied',
      );
    }
  }
}

/** A refusal or failure of the copy's own, raised inside the transaction to roll it back. */
class CopyError extends Error {}

/** Refuses a target holding any row of the app's: the copy would mix two histories, and two audit chains. */
async function assertEmpty(tx: Sql, tables: Table[], label: string): Promise<void> {
  const holding: string[] = [];
  for (const table of tables) {
    if (await tx.get(`SELECT 1 AS found FROM ${quoted(table.name)} LIMIT 1`)) holding.push(table.name);
  }
  if (holding.length) {
    throw new CopyError(
      `${label} already holds the app's data (in ${holding.join(', ')}): the copy goes only into an empty ` +
        'database, so nothing was copied',
    );
  }
}

/** A value of the file as a parameter: the app's columns hold only text, integers and NULL. */
function param(value: unknown): SqlParam {
  if (value === null || typeof value === 'string' || typeof value === 'number') return value;
  throw new Error(`it holds a value of type ${typeof value}, which the app never writes`);
}

// Postgres takes at most 65,535 parameters a statement; fewer keeps each statement's text and memory small.
const PARAMETERS_PER_INSERT = 10_000;

async function insert(tx: Sql, table: Table, rows: SqlParam[][]): Promise<void> {
  const into = `INSERT INTO ${quoted(table.name)} (${table.columns.map(quoted).join(', ')})`;
  const placeholders = `(${table.columns.map(() => '?').join(', ')})`;
  await tx.run(`${into} VALUES ${rows.map(() => placeholders).join(', ')}`, rows.flat());
}

/** Copies the table in key order, many rows to a statement, and returns how many it copied. */
async function copyTable(db: Database, tx: Sql, table: Table): Promise<number> {
  const order = table.key.length ? ` ORDER BY ${table.key.map(quoted).join(', ')}` : '';
  const rows = db
    .prepare<[], unknown[]>(`SELECT ${table.columns.map(quoted).join(', ')} FROM ${quoted(table.name)}${order}`)
    .raw()
    .iterate();
  const perInsert = Math.max(1, Math.floor(PARAMETERS_PER_INSERT / table.columns.length));
  let batch: SqlParam[][] = [];
  let copied = 0;
  for (const row of rows) {
    batch.push(row.map(param));
    if (batch.length === perInsert) {
      await insert(tx, table, batch);
      copied += batch.length;
      batch = [];
    }
  }
  if (batch.length) await insert(tx, table, batch);
  return copied + batch.length;
}

/** Copies every table in one transaction; a failure leaves the target as it was. Returns the rows per table. */
async function copyAll(db: Database, target: SqlEngine, tables: Table[]): Promise<Map<string, number>> {
  return target.transaction(async (tx) => {
    // Two copies started together into one database take turns, and the second finds the first one's rows.
    await tx.lock('db:copy');
    await assertEmpty(tx, tables, target.label);
    const copied = new Map<string, number>();
    for (const table of tables) {
      try {
        copied.set(table.name, await copyTable(db, tx, table));
      } catch (error) {
        const reason = reasonOf(error);
        throw new CopyError(`cannot copy ${table.name} into ${target.label} (${reason}): nothing was copied`, {
          cause: error,
        });
      }
    }
    return copied;
  });
}

const rowsText = (count: number): string => `${count} row${count === 1 ? '' : 's'}`;

/** Row counts, and a chain that verifies on Postgres and ends at the file's last hash. Returns what it checked. */
async function verify(db: Database, target: SqlEngine, tables: Table[], path: string): Promise<string> {
  for (const table of tables) {
    const text = `SELECT COUNT(*) AS count FROM ${quoted(table.name)}`;
    const inFile = db.prepare<[], { count: number }>(text).get()?.count;
    const inTarget = (await target.get<{ count: number }>(text))?.count;
    if (inFile !== inTarget) {
      throw new Error(
        `the copy was made but does not verify: ${table.name} has ${rowsText(inTarget ?? 0)} in ${target.label} ` +
          `and ${rowsText(inFile ?? 0)} in ${path}`,
      );
    }
  }
  const check = await verifyChain(target);
  if (!check.ok) {
    throw new Error(
      `the copy was made but its audit chain does not verify on ${target.label}: chain broken at row ${check.id}: ` +
        `${check.reason} (npm run audit -- --verify --db ${path} checks the file's)`,
    );
  }
  const last = db.prepare<[], { hash: string }>('SELECT hash FROM audit_events ORDER BY id DESC LIMIT 1').get();
  if (check.last?.hash !== last?.hash) {
    throw new Error(`the copy was made but its audit chain does not end at the hash that ${path}'s ends at`);
  }
  const end = check.last ? `, last row ${check.last.id}, hash ${check.last.hash}` : '';
  return `Verified: every table has as many rows as in ${path}, and the audit chain verifies on Postgres (${rowsText(check.rows)}${end}).`;
}

async function copyAndVerify(db: Database, target: SqlEngine, path: string): Promise<void> {
  const tables = tablesOf(db);
  await assertSameTables(target, tables, path);
  const copied = await copyAll(db, target, tables);
  let total = 0;
  for (const [name, count] of copied) {
    process.stdout.write(`${name}: ${rowsText(count)}\n`);
    total += count;
  }
  process.stdout.write(`Copied ${rowsText(total)} in ${copied.size} tables from ${path} to ${target.label}.\n`);
  process.stdout.write(`${await verify(db, target, tables, path)}\n`);
}

async function main(argv: string[]): Promise<void> {
  const args = parseCli(argv);
  if (args === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  const db = openSource(args.from);
  try {
    // One read transaction for the copy and its check: every table as of one moment, even if the file is written.
    db.exec('BEGIN');
    const target = await openTarget(args.to);
    try {
      await copyAndVerify(db, target, args.from);
    } finally {
      await target.close();
    }
  } finally {
    db.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  const usage = error instanceof UsageError ? `\n${USAGE}` : '';
  process.stderr.write(`db:copy: ${message}\n${usage}`);
  process.exitCode = error instanceof UsageError || error instanceof ConfigError ? 2 : 1;
});
