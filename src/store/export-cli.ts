// `npm run audit -- --since DATE --format csv|jsonl [--until DATE] [--db PATH]`: streams the audit log to stdout.
// `npm run audit -- --verify [--db PATH]`: checks the hash chain of every row.
// The log is read from the SQLite file --db names, else from Postgres at DATABASE_URL, else from the SQLite file at
// DATABASE_PATH. Nothing is written: a file is opened read-only, and Postgres is only read.
// Exit codes: 0 done (and the chain intact), 1 could not export or the chain is broken, 2 bad arguments or
// configuration.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { ConfigError, parseDatabaseTarget, readEnvironment } from '../config.js';
import type { DatabaseTarget } from '../database-target.js';
import { AuditLog } from './audit.js';
import { type ChainCheck, verifyChain } from './audit-chain.js';
import { EXPORT_FORMATS, FORMATTERS } from './audit-export.js';
import { parsedArgs, UsageError } from './cli-args.js';
import { openReadOnly } from './read-only.js';
import type { SqlEngine } from './sql.js';

const USAGE = `Usage: npm run audit -- --since DATE --format csv|jsonl [--until DATE] [--db PATH]
       npm run audit -- --verify [--db PATH]

  --since DATE    events at or after DATE (2026-11-01, midnight UTC, or an ISO-8601 timestamp with a zone)
  --until DATE    events before DATE (exclusive, so consecutive exports do not overlap)
  --format        csv (with a header row) or jsonl (one JSON object per line)
  --verify        recomputes every row's hash: prints "N rows verified" and exits 0, or the first row that breaks
                  the chain and why, and exits 1
  --db PATH       a SQLite database file (default: the Postgres database at DATABASE_URL when it is set, else the
                  file at DATABASE_PATH, else data/voice-ops.db)
`;

const date = z
  .string({ error: 'is required (e.g. 2026-11-01)' })
  .pipe(
    z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
      error: (issue) => `must be a date such as 2026-11-01 or an ISO-8601 timestamp, not "${String(issue.input)}"`,
    }),
  )
  .transform((text) => new Date(text));

const dbPath = z.string().min(1, 'must not be empty').optional();

const exportArgs = z
  .object({
    since: date,
    until: date.optional(),
    format: z.enum(EXPORT_FORMATS, { error: `must be ${EXPORT_FORMATS.join(' or ')}` }),
    db: dbPath,
  })
  .refine((args) => args.until === undefined || args.until > args.since, {
    path: ['until'],
    message: 'must be after --since',
  });

const verifyArgs = z.object({ db: dbPath });

type CliArgs = ({ mode: 'export' } & z.infer<typeof exportArgs>) | ({ mode: 'verify' } & z.infer<typeof verifyArgs>);

const OPTIONS = {
  since: { type: 'string' },
  until: { type: 'string' },
  format: { type: 'string' },
  db: { type: 'string' },
  verify: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const readOptions = (argv: string[]) => parsedArgs({ args: argv, options: OPTIONS }).values;

function parsed<T>(result: z.ZodSafeParseResult<T>): T {
  if (result.success) return result.data;
  throw new UsageError(result.error.issues.map((issue) => `--${issue.path.join('.')} ${issue.message}`).join('; '));
}

function parseCli(argv: string[]): CliArgs | 'help' {
  const { help, verify, ...options } = readOptions(argv);
  if (help) return 'help';
  if (!verify) return { mode: 'export', ...parsed(exportArgs.safeParse(options)) };
  const exporting = (['since', 'until', 'format'] as const).filter((name) => options[name] !== undefined);
  if (exporting.length)
    throw new UsageError(`--verify takes only --db, not ${exporting.map((name) => `--${name}`).join(', ')}`);
  return { mode: 'verify', ...parsed(verifyArgs.safeParse(options)) };
}

function verdict(check: ChainCheck): string {
  const verified = `${check.rows} row${check.rows === 1 ? '' : 's'} verified`;
  if (!check.ok) return `Chain broken at row ${check.id}: ${check.reason}. ${verified} before it.\n`;
  // Kept elsewhere, the last hash lets a later run prove that no row up to it was rewritten, chain and all.
  return check.last ? `${verified}\nlast row ${check.last.id}, hash ${check.last.hash}\n` : `${verified}\n`;
}

async function run(args: CliArgs, sql: SqlEngine): Promise<void> {
  if (args.mode === 'export') {
    const events = new AuditLog(sql).since(args.since, args.until);
    await pipeline(Readable.from(FORMATTERS[args.format](events)), process.stdout);
    return;
  }
  const check = await verifyChain(sql);
  process.stdout.write(verdict(check));
  if (!check.ok) process.exitCode = 1;
}

async function main(argv: string[]): Promise<void> {
  const args = parseCli(argv);
  if (args === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  // A --db given on the command line names the file to read, whatever the environment says.
  const target: DatabaseTarget = args.db ? { kind: 'sqlite', path: args.db } : parseDatabaseTarget(readEnvironment());
  const sql = await openReadOnly(target);
  try {
    await run(args, sql);
  } finally {
    await sql.close();
  }
}

function isBrokenPipe(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'EPIPE';
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (isBrokenPipe(error)) return; // the reader stopped early (`| head`): not a failure of the export
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`audit: ${message}${error instanceof UsageError ? ' (see --help)' : ''}\n`);
  process.exitCode = error instanceof UsageError || error instanceof ConfigError ? 2 : 1;
});
