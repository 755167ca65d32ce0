// `npm run audit -- --since DATE --format csv|jsonl [--until DATE] [--db PATH]`: streams the audit log to stdout.
// Exit codes: 0 done, 1 could not export, 2 bad arguments or configuration.
import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ConfigError, parseDatabasePath, readEnvironment } from '../config.js';
import { AuditLog } from './audit.js';
import { EXPORT_FORMATS, FORMATTERS } from './audit-export.js';
import { openDatabaseReadOnly } from './db.js';

const USAGE = `Usage: npm run audit -- --since DATE --format csv|jsonl [--until DATE] [--db PATH]

  --since DATE    events at or after DATE (2026-11-01, midnight UTC, or an ISO-8601 timestamp with a zone)
  --until DATE    events before DATE (exclusive, so consecutive exports do not overlap)
  --format        csv (with a header row) or jsonl (one JSON object per line)
  --db PATH       the database (default: DATABASE_PATH, else data/voice-ops.db)
`;

class UsageError extends Error {}

const date = z
  .string({ error: 'is required (e.g. 2026-11-01)' })
  .pipe(
    z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
      error: (issue) => `must be a date such as 2026-11-01 or an ISO-8601 timestamp, not "${String(issue.input)}"`,
    }),
  )
  .transform((text) => new Date(text));

const cliArgs = z
  .object({
    since: date,
    until: date.optional(),
    format: z.enum(EXPORT_FORMATS, { error: `must be ${EXPORT_FORMATS.join(' or ')}` }),
    db: z.string().min(1, 'must not be empty').optional(),
  })
  .refine((args) => args.until === undefined || args.until > args.since, {
    path: ['until'],
    message: 'must be after --since',
  });

type CliArgs = z.infer<typeof cliArgs>;

const OPTIONS = {
  since: { type: 'string' },
  until: { type: 'string' },
  format: { type: 'string' },
  db: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function readOptions(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS }).values;
  } catch (error) {
    // Unknown options, missing values, stray positionals: node's message names the argument.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function parseCli(argv: string[]): CliArgs | 'help' {
  const options = readOptions(argv);
  if (options.help) return 'help';
  const parsed = cliArgs.safeParse(options);
  if (parsed.success) return parsed.data;
  throw new UsageError(parsed.error.issues.map((issue) => `--${issue.path.join('.')} ${issue.message}`).join('; '));
}

async function main(argv: string[]): Promise<void> {
  const args = parseCli(argv);
  if (args === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  const path = args.db ?? parseDatabasePath(readEnvironment());
  if (!existsSync(path)) throw new Error(`no database at ${path} (pass --db PATH or set DATABASE_PATH)`);
  const db = openDatabaseReadOnly(path);
  try {
    const events = new AuditLog(db).since(args.since, args.until);
    await pipeline(Readable.from(FORMATTERS[args.format](events)), process.stdout);
  } finally {
    db.close();
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
