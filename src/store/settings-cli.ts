// `npm run settings -- export [--db PATH]`: prints the settings in force as a policy file, which the app reads back
// as the same settings: what admins stored, with what the environment and the policy file lock over it (as the app
// started here would), and the defaults for the rest. A team moves its settings to code by saving it as
// voice-ops.policy.yml; it moves back by removing lines, whose settings admins then change in Slack.
// The store is read from the SQLite file --db names, else from Postgres at DATABASE_URL, else from the SQLite file at
// DATABASE_PATH; nothing is written. Settings hold no secret, and the database is named by its host and name only.
// Exit codes: 0 printed, 1 could not read the store, 2 bad arguments or configuration.
import { ConfigError, parseDatabaseTarget, parseGivenSettings, readEnvironment } from '../config.js';
import type { DatabaseTarget } from '../database-target.js';
import { DEFAULT_POLICY_FILE, policyFileText } from '../policy-file.js';
import { type GivenSettings, SETTING_NAMES, type Settings, storedSettings } from '../settings.js';
import { parsedArgs, UsageError } from './cli-args.js';
import { openReadOnly } from './read-only.js';
import { SettingsRows } from './settings.js';

const USAGE = `Usage: npm run settings -- export [--db PATH]

  export      prints the settings in force as a policy file (YAML, the settings by name): what admins set in Slack,
              with what the environment and the policy file lock over it, and the defaults for the rest. Saved as
              ${DEFAULT_POLICY_FILE} (or the file VOICE_POLICY_FILE names), every setting in it is locked at start;
              remove a setting's line to let admins change it in Slack again.
  --db PATH   a SQLite database file (default: the Postgres database at DATABASE_URL when it is set, else the file
              at DATABASE_PATH, else data/voice-ops.db)
`;

const OPTIONS = {
  db: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parseCli(argv: string[]): { db?: string } | 'help' {
  const { values, positionals } = parsedArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  if (values.help) return 'help';
  if (positionals.length !== 1 || positionals[0] !== 'export') {
    throw new UsageError(
      positionals.length === 0 ? 'say what to do: export' : `unknown command: ${positionals.join(' ')}`,
    );
  }
  if (values.db === '') throw new UsageError('--db must not be empty');
  return { db: values.db };
}

/** The settings in force with this configuration: the stored ones over the defaults, and the locked ones over them. */
async function settingsInForce(target: DatabaseTarget, given: GivenSettings) {
  const sql = await openReadOnly(target);
  try {
    const unreadable: string[] = [];
    const stored = storedSettings((await new SettingsRows(sql).read()).values, (name) => unreadable.push(name));
    return { settings: { ...stored, ...given.locked } satisfies Settings, label: sql.label, unreadable };
  } finally {
    await sql.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const args = parseCli(argv);
  if (args === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  const env = readEnvironment();
  const given = parseGivenSettings(env);
  // A --db given on the command line names the file to read, whatever the environment says.
  const target: DatabaseTarget = args.db ? { kind: 'sqlite', path: args.db } : parseDatabaseTarget(env);
  const { settings, label, unreadable } = await settingsInForce(target, given);
  const locks = SETTING_NAMES.flatMap((name) => {
    const lock = given.lockedBy[name];
    return lock ? [`${name} (${lock.key} in ${lock.where})`] : [];
  });
  const comments = [
    `Voice Ops settings, exported from ${label} at ${new Date().toISOString()} (npm run settings -- export).`,
    `Read at start as ${DEFAULT_POLICY_FILE} or VOICE_POLICY_FILE, each setting given here is locked: Slack shows`,
    'where it comes from and refuses to change it. Remove a line to let admins change it in Slack; null is none.',
    ...(locks.length ? [`Locked when exported: ${locks.join(', ')}.`] : []),
  ];
  process.stdout.write(policyFileText(settings, comments));
  for (const name of unreadable) {
    process.stderr.write(`settings: the stored ${name} is not readable by this code: its default was exported\n`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  const usage = error instanceof UsageError ? `\n${USAGE}` : '';
  process.stderr.write(`settings: ${message}\n${usage}`);
  process.exitCode = error instanceof UsageError || error instanceof ConfigError ? 2 : 1;
});
