// `npm run settings -- export [--db PATH]`: prints the settings in force as a policy file, which the app reads back
// as the same settings: what admins stored, with what the environment and the policy file lock over it (as the app
// started here would), and the defaults for the rest. A team moves its settings to code by saving it as
// voice-ops.policy.yml; it moves back by removing lines, whose settings admins then change in Slack.
// The store is read from the SQLite file --db names, else from Postgres at DATABASE_URL, else from the SQLite file at
// DATABASE_PATH; export writes nothing. Settings hold no secret, and the database is named by its host and name only.
// `npm run settings -- recover --confirm [--admin ID]… [--drop-settings-approval] [--db PATH]`: the way back when no
// one in Slack can change the settings (settings-recovery.ts), run on the host; it writes, audited as the host's.
// Exit codes: 0 printed or recovered, 1 could not read or write the store, 2 bad arguments, configuration, a locked
// setting, or a recovery without --confirm.
import { existsSync } from 'node:fs';
import { ConfigError, parseDatabaseTarget, parseGivenSettings, readEnvironment } from '../config.js';
import type { DatabaseTarget } from '../database-target.js';
import { DEFAULT_POLICY_FILE, policyFileText } from '../policy-file.js';
import { type GivenSettings, memberId, SETTING_NAMES, type Settings, storedSettings } from '../settings-schema.js';
import { parsedArgs, UsageError } from './cli-args.js';
import { openEngine } from './open-store.js';
import { openReadOnly } from './read-only.js';
import { type Recovery, RecoveryRefused, recoverSettings } from './settings-recovery.js';
import { SettingsRows } from './settings-rows.js';

const USAGE = `Usage: npm run settings -- export [--db PATH]
       npm run settings -- recover --confirm [--admin ID]... [--drop-settings-approval] [--db PATH]

  export      prints the settings in force as a policy file (YAML, the settings by name): what admins set in Slack,
              with what the environment and the policy file lock over it, and the defaults for the rest. Saved as
              ${DEFAULT_POLICY_FILE} (or the file VOICE_POLICY_FILE names), every setting in it is locked at start;
              remove a setting's line to let admins change it in Slack again.
  recover     when no one in Slack can change the settings any more: adds each --admin (a user id, U… or W…) to the
              admins, and with --drop-settings-approval, settings changes no longer wait for a second approver. Audited
              as a settings change by the host; a setting the environment or the policy file locks is changed there.
  --confirm   needed by recover, which writes to the store
  --db PATH   a SQLite database file (default: the Postgres database at DATABASE_URL when it is set, else the file
              at DATABASE_PATH, else data/voice-ops.db)
`;

const OPTIONS = {
  db: { type: 'string' },
  admin: { type: 'string', multiple: true },
  'drop-settings-approval': { type: 'boolean' },
  confirm: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Command = { command: 'export'; db?: string } | { command: 'recover'; db?: string; recovery: Recovery };

function parseCli(argv: string[]): Command | 'help' {
  const { values, positionals } = parsedArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  if (values.help) return 'help';
  const [command, ...rest] = positionals;
  if ((command !== 'export' && command !== 'recover') || rest.length > 0) {
    throw new UsageError(
      positionals.length === 0 ? 'say what to do: export or recover' : `unknown command: ${positionals.join(' ')}`,
    );
  }
  if (values.db === '') throw new UsageError('--db must not be empty');
  const admins = values.admin ?? [];
  const dropSettingsApproval = values['drop-settings-approval'] === true;
  if (command === 'export') {
    if (admins.length > 0 || dropSettingsApproval || values.confirm) {
      throw new UsageError('--admin, --drop-settings-approval and --confirm are for recover');
    }
    return { command, db: values.db };
  }
  const wrong = admins.find((id) => !memberId.safeParse(id).success || id.startsWith('S'));
  if (wrong !== undefined) throw new UsageError(`--admin ${JSON.stringify(wrong)} is not a Slack user id (U… or W…)`);
  if (admins.length === 0 && !dropSettingsApproval) {
    throw new UsageError('say what to recover: --admin ID, --drop-settings-approval, or both');
  }
  if (!values.confirm) {
    throw new UsageError('recover writes to the store: nothing was changed; run it again with --confirm to do it');
  }
  return { command, db: values.db, recovery: { admins, dropSettingsApproval } };
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

/** The recovery, made in the store and said in a line; a locked setting refuses it. */
async function recover(target: DatabaseTarget, given: GivenSettings, recovery: Recovery): Promise<void> {
  // A mistyped path must not become a new, empty database that the app never reads.
  if (target.kind === 'sqlite' && !existsSync(target.path)) {
    throw new Error(`there is no database at ${target.path}: name the app's file with --db or DATABASE_PATH`);
  }
  // The app migrates its schema, not this tool, which may run beside an app of another version: a schema older or
  // newer than this code's is refused, as the readers refuse it.
  await (await openReadOnly(target)).close();
  const engine = await openEngine(target);
  try {
    const { changes, auditId } = await recoverSettings(engine, given, recovery);
    if (changes.length === 0) {
      process.stdout.write(`settings: nothing to recover on ${engine.label}: the settings already say that\n`);
      return;
    }
    const said = changes.map(({ name, after }) => `${name} is now ${JSON.stringify(after)}`).join('; ');
    process.stdout.write(
      `settings: recovered on ${engine.label}: ${said}. Audited as settings.change by the host (audit row ` +
        `${auditId}); in force at the app's next request.\n`,
    );
  } finally {
    await engine.close();
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
  if (args.command === 'recover') return recover(target, given, args.recovery);
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
  process.exitCode =
    error instanceof UsageError || error instanceof ConfigError || error instanceof RecoveryRefused ? 2 : 1;
});
