// The one place that reads the environment, and through src/policy-file.ts the policy file. Every problem is reported
// at once, by variable name, or by the file's name and the setting's.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import type { DatabaseTarget } from './database-target.js';
import { type PolicyFile, readPolicyFile } from './policy-file.js';
import {
  APPROVABLE_ACTIONS,
  type GivenSettings,
  type Lock,
  parseBuyLimit,
  SETTING_NAMES,
  SETTING_VARIABLES,
  type Settings,
  settingsSchema,
} from './settings-schema.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

// Blank counts as unset: a copied .env.example leaves its variables empty.
const blankAsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const optionalText = z.preprocess(blankAsUnset, z.string().trim().optional());
/** A whole number from `min` to `max`, any other value refused with `error`. */
const whole = (min: number, max: number, error: string) =>
  z.coerce.number({ error }).int(error).min(min, error).max(max, error);
const milliseconds = (min: number, max: number, fallback: number) =>
  whole(min, max, `must be a whole number of milliseconds from ${min} to ${max}`).default(fallback);
const portNumber = whole(0, 65535, 'must be a port number from 0 to 65535');
const port = (fallback: number) => portNumber.default(fallback);
const optionalPort = z.preprocess(blankAsUnset, portNumber.optional());
const DEFAULT_DATABASE = 'data/voice-ops.db';
/** The playground's people and changes stay out of the app's own audit log. */
const PLAYGROUND_DATABASE = 'data/playground/voice-ops.db';
const url = optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional());
// The URL's own text never appears in a message: it may carry a password.
const databaseUrl = optionalText.pipe(
  z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' }).optional(),
);
const databaseFields = {
  DATABASE_PATH: optionalText,
  DATABASE_URL: databaseUrl,
  DATABASE_POOL_SIZE: whole(1, 100, 'must be a whole number of connections from 1 to 100').default(10),
  DATABASE_STATEMENT_TIMEOUT_MS: milliseconds(100, 600_000, 15_000),
};

// Unset stays undefined: a setting the environment does not give is not locked.
const commaList = optionalText.transform((value) =>
  value
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);
const idList = (what: string, pattern = /^[UWS][A-Z0-9]{2,}$/) =>
  commaList.transform((ids, ctx) => {
    if (ids === undefined) return undefined;
    for (const id of ids) {
      if (!pattern.test(id)) {
        ctx.addIssue({ code: 'custom', message: `"${id}" is not a Slack ${what}` });
      }
    }
    return ids;
  });

const COUNT_ERROR = 'must be a whole number, 0 or more';
const count = (fallback: number, max: number) =>
  z.coerce
    .number({ error: COUNT_ERROR })
    .int(COUNT_ERROR)
    .min(0, COUNT_ERROR)
    .max(max, `must be at most ${max}`)
    .default(fallback);
const BUY_LIMIT_ERROR = 'must be a count per day or per week, e.g. 5/day or 20/week';
const buyLimit = optionalText.transform((value, ctx) => {
  if (value === undefined) return undefined;
  const limit = parseBuyLimit(value);
  if (!limit) ctx.addIssue({ code: 'custom', message: BUY_LIMIT_ERROR });
  return limit;
});

const channelId = optionalText.pipe(
  z
    .string()
    .regex(/^[CG][A-Z0-9]{2,}$/, 'must be a channel id (C… or G…)')
    .optional(),
);
/** JSON text, e.g. `[{"channel":"C012ABC","owner":"S034DEF","labels":["team:sales"]}]`. */
const channelBindings = optionalText
  .transform((text, ctx) => {
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be JSON: a list of {"channel", "owner", "labels"}' });
      return z.NEVER;
    }
  })
  .pipe(settingsSchema.shape.channelBindings.optional());
const SUBSCRIPTIONS_ERROR =
  'must be a JSON list of subscriptions, e.g. [{"channel":"C012ABC","kinds":["route"],"labels":["team:sales"],' +
  '"without":[],"owners":[],"quiet":false}]';
const subscriptions = optionalText.transform((value, ctx) => {
  if (value === undefined) return undefined;
  let written: unknown;
  try {
    written = JSON.parse(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: SUBSCRIPTIONS_ERROR });
    return undefined;
  }
  const parsed = settingsSchema.shape.subscriptions.safeParse(written);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    ctx.addIssue({ code: 'custom', message: `${SUBSCRIPTIONS_ERROR} (${issue?.path.join('.')} ${issue?.message})` });
  }
  return parsed.data;
});
const wholeHours = (min: number) =>
  z.preprocess(blankAsUnset, whole(min, 720, `must be a whole number of hours from ${min} to 720`).optional());

/** The settings the environment may give, each locked when it does. */
const settingFields = {
  NOTIFY_CHANNEL_ID: channelId,
  VOICE_ADMINS: idList('user or user-group id (U…, W… or S…)'),
  VOICE_OPERATORS: idList('user or user-group id (U…, W… or S…)'),
  VOICE_APPROVERS: idList('user or user-group id (U…, W… or S…)'),
  VOICE_BUY_LIMIT: buyLimit,
  VOICE_BUY_LIMIT_PER_USER: buyLimit,
  VOICE_CHANGE_CHANNELS: idList('channel id (C… or G…)', /^[CG][A-Z0-9]{2,}$/),
  VOICE_REQUIRE_APPROVAL: commaList
    .pipe(
      z
        .array(
          z.enum(APPROVABLE_ACTIONS, {
            error: (issue) => `"${issue.input}" is not one of ${APPROVABLE_ACTIONS.join(', ')}`,
          }),
        )
        .optional(),
    )
    .transform((actions) => actions && APPROVABLE_ACTIONS.filter((action) => actions.includes(action))),
  VOICE_APPROVALS_CHANNEL_ID: channelId,
  VOICE_CHANNEL_BINDINGS: channelBindings,
  VOICE_APPROVAL_TTL_HOURS: wholeHours(1),
  VOICE_UNDO_HOURS: wholeHours(0),
  VOICE_TYPED_RELEASE: optionalText
    .pipe(z.enum(['true', 'false'], { error: 'must be true or false' }).optional())
    .transform((value) => (value === undefined ? undefined : value === 'true')),
  VOICE_SUBSCRIPTIONS: subscriptions,
};

const sandboxFields = {
  SANDBOX_PORT: port(4010),
  SANDBOX_API_KEY: z.string().min(1).default('sandbox-key'),
  SANDBOX_DATABASE_PATH: optionalText,
  SANDBOX_NUMBERS_PER_REGION: count(55, 2000).refine((value) => value > 0, 'must be at least 1'),
  SANDBOX_SEED_AGENTS: count(0, 100_000),
  SANDBOX_SEED_NUMBERS: count(0, 24_000),
};

const environmentFields = z.object({
  ...sandboxFields,
  SLACK_BOT_TOKEN: optionalText.pipe(z.string().startsWith('xoxb-', 'must start with xoxb-').optional()),
  SLACK_SIGNING_SECRET: optionalText,
  SLACK_APP_TOKEN: optionalText.pipe(z.string().startsWith('xapp-', 'must start with xapp-').optional()),
  SLACK_API_URL: url,
  PORT: port(3000),
  METRICS_PORT: optionalPort,
  METRICS_HOST: optionalText,
  METRICS_TOKEN: optionalText.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  // The API is versioned in its path; a base without /v1 would send every call to the wrong place.
  VOICE_API_BASE_URL: url.refine((value) => value === undefined || /\/v1\/?$/.test(value), {
    error: 'must end in /v1, e.g. https://api.example.com/v1',
  }),
  VOICE_API_KEY: optionalText,
  VOICE_API_TIMEOUT_MS: milliseconds(100, 120_000, 10_000),
  VOICE_API_CURSOR_PARAM: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a query parameter name')
    .default('cursor'),
  ...databaseFields,
  LEASE_TTL_S: whole(2, 600, 'must be a whole number of seconds from 2 to 600').default(30),
  SHUTDOWN_TIMEOUT_MS: milliseconds(100, 600_000, 10_000),
  ...settingFields,
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  RECONCILE_INTERVAL_S: whole(0, 86_400, 'must be a whole number of seconds from 0 (off) to 86400').default(300),
});

/** Each variable's schema, by name: where the values it accepts are written, for the reference to list them. */
export const VARIABLES = environmentFields.shape;

/** The environment, checked as a whole with what the policy file gives beside it. */
const environment = (file: PolicyFile) =>
  environmentFields.superRefine(
    (env, ctx) => {
      if (!hasSlackCredentials(env)) {
        if (env.VOICE_API_BASE_URL) {
          ctx.addIssue({
            code: 'custom',
            path: ['VOICE_API_BASE_URL'],
            message:
              'must be empty without Slack credentials: the playground runs on the sandbox only, where nothing ' +
              'real is bought (set SLACK_BOT_TOKEN and the rest to use a real provider)',
          });
        }
        return;
      }
      if (!env.SLACK_BOT_TOKEN) {
        ctx.addIssue({ code: 'custom', path: ['SLACK_BOT_TOKEN'], message: 'is required (xoxb-…)' });
      }
      if (!env.SLACK_APP_TOKEN && !env.SLACK_SIGNING_SECRET) {
        ctx.addIssue({
          code: 'custom',
          path: ['SLACK_SIGNING_SECRET'],
          message: 'is required in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)',
        });
      }
      if (env.VOICE_API_BASE_URL && !env.VOICE_API_KEY) {
        ctx.addIssue({
          code: 'custom',
          path: ['VOICE_API_KEY'],
          message: 'is required when VOICE_API_BASE_URL is set',
        });
      }
      // Approvals are asked in a channel: one given beside them, in the environment or the file.
      const channel =
        env.VOICE_APPROVALS_CHANNEL_ID ??
        env.NOTIFY_CHANNEL_ID ??
        file.settings.approvalsChannel ??
        file.settings.announcementsChannel;
      if (env.VOICE_REQUIRE_APPROVAL?.length && !channel) {
        ctx.addIssue({
          code: 'custom',
          path: ['VOICE_APPROVALS_CHANNEL_ID'],
          message: 'is required when VOICE_REQUIRE_APPROVAL is set (or set NOTIFY_CHANNEL_ID)',
        });
      }
      if (env.VOICE_REQUIRE_APPROVAL === undefined && file.settings.requireApproval?.length && !channel) {
        ctx.addIssue({
          code: 'custom',
          path: [],
          message: `${file.path}: approvalsChannel is required when requireApproval is set (or announcementsChannel)`,
        });
      }
      // Checked even when other variables are wrong, so that one start reports every problem.
    },
    { when: () => true },
  );

/** With none of Slack's credentials (unset, or empty as in a copied .env.example), `npm start` runs the playground. */
function hasSlackCredentials(env: {
  SLACK_BOT_TOKEN?: string;
  SLACK_APP_TOKEN?: string;
  SLACK_SIGNING_SECRET?: string;
}) {
  return Boolean(env.SLACK_BOT_TOKEN || env.SLACK_APP_TOKEN || env.SLACK_SIGNING_SECRET);
}

export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  slack: {
    botToken: string;
    signingSecret?: string;
    appToken?: string;
    apiUrl?: string;
    port: number;
    /** The HTTP receiver's listen address; default every interface. */
    host?: string;
  };
  /** Set when no Slack credential is: `slack` then holds credentials made up at start, known only to this process. */
  playground?: { port: number };
  /** With `port`, on a port of their own instead of Slack's; with `metricsToken`, /metrics only to its bearer. */
  probes: { port?: number; host?: string; metricsToken?: string };
  /** The real provider; absent means the embedded sandbox. */
  provider?: { baseUrl: string; apiKey: string };
  providerOptions: { timeoutMs: number; cursorParam: string };
  sandbox: {
    port: number;
    apiKey: string;
    databasePath?: string;
    numbersPerRegion: number;
    /** Written into an empty sandbox at start, for trying the app at scale. */
    seed: { agents: number; numbers: number };
  };
  /** The SQLite file: the store's without DATABASE_URL, and beside it the embedded sandbox's. */
  databasePath: string;
  /** Where the store lives: Postgres at DATABASE_URL, else the SQLite file at databasePath. */
  database: DatabaseTarget;
  /** How long a dead process's holds (background work, a change's locks) outlive it. */
  leaseTtlMs: number;
  /** How long a graceful stop waits for the work under way. */
  shutdownTimeoutMs: number;
  /** Roles, guardrails and channels the environment gives: locked, in force whatever Slack says. */
  settings: GivenSettings;
  logLevel: LogLevel;
  /** Seconds between reconciliation passes; 0 turns them off. */
  reconcileIntervalS: number;
}

/** The configured secret values, so that free text (an error's message) can be scrubbed of them before it is logged. */
export function secretValues(config: Config): string[] {
  const { slack, provider, sandbox, database } = config;
  const databasePasswords = database.kind === 'postgres' ? passwordsOf(database.url) : [];
  return [
    slack.botToken,
    slack.signingSecret,
    slack.appToken,
    provider?.apiKey,
    sandbox.apiKey,
    config.probes.metricsToken,
    ...new Set(databasePasswords),
  ].filter((value): value is string => Boolean(value));
}

/** The URL's password as written and as decoded (a log may hold either), and one passed as `?password=`. */
function passwordsOf(databaseUrl: string): string[] {
  const url = new URL(databaseUrl);
  const written = [url.password, url.searchParams.get('password') ?? ''].filter(Boolean);
  return [...written, ...written.map(decodedOrSame)];
}

function decodedOrSame(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a stray % is kept as written
  }
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Environment = Record<string, string | undefined>;

/** The environment as `schema` reads it; it and the policy file's `problems` are reported together, or it is returned. */
function validate<T>(schema: z.ZodType<T>, env: Environment, problems: string[] = []): T {
  const parsed = schema.safeParse(env);
  if (parsed.success && problems.length === 0) return parsed.data;
  const lines = [
    // A variable is named alone: the place of an item in its comma-separated list adds nothing a person needs.
    ...(parsed.error?.issues ?? []).map((issue) =>
      [String(issue.path[0] ?? ''), issue.message].filter(Boolean).join(' '),
    ),
    ...problems,
  ];
  throw new ConfigError(`Configuration is invalid (see .env.example):\n${lines.map((line) => `  ${line}`).join('\n')}`);
}

/** The policy file VOICE_POLICY_FILE names, or the default one when present. */
const policyFileOf = (env: Environment): PolicyFile => readPolicyFile(env.VOICE_POLICY_FILE?.trim() || undefined);

export function parseConfig(env: Environment): Config {
  const file = policyFileOf(env);
  const e = validate(environment(file), env, file.problems);
  const playground = !hasSlackCredentials(e);
  return {
    slack: playground
      ? {
          botToken: `xoxb-playground-${randomBytes(24).toString('hex')}`,
          signingSecret: randomBytes(32).toString('hex'),
          port: 0,
          host: '127.0.0.1',
        }
      : {
          // Present whenever a credential is: the refinement above requires it.
          botToken: e.SLACK_BOT_TOKEN ?? '',
          signingSecret: e.SLACK_SIGNING_SECRET,
          appToken: e.SLACK_APP_TOKEN,
          apiUrl: e.SLACK_API_URL,
          port: e.PORT,
        },
    ...(playground ? { playground: { port: e.PORT } } : {}),
    probes: { port: e.METRICS_PORT, host: e.METRICS_HOST, metricsToken: e.METRICS_TOKEN },
    provider:
      e.VOICE_API_BASE_URL && e.VOICE_API_KEY ? { baseUrl: e.VOICE_API_BASE_URL, apiKey: e.VOICE_API_KEY } : undefined,
    providerOptions: { timeoutMs: e.VOICE_API_TIMEOUT_MS, cursorParam: e.VOICE_API_CURSOR_PARAM },
    sandbox: sandboxSettings(e),
    databasePath: e.DATABASE_PATH ?? (playground ? PLAYGROUND_DATABASE : DEFAULT_DATABASE),
    database: databaseTarget(e, playground ? PLAYGROUND_DATABASE : DEFAULT_DATABASE),
    leaseTtlMs: e.LEASE_TTL_S * 1000,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    settings: givenSettings(e, file),
    logLevel: e.LOG_LEVEL,
    reconcileIntervalS: e.RECONCILE_INTERVAL_S,
  };
}

/** Each locked with where it comes from; a setting both give is the environment's. */
function givenSettings(e: z.infer<z.ZodObject<typeof settingFields>>, file: PolicyFile): GivenSettings {
  const given = (name: keyof Settings) => e[SETTING_VARIABLES[name]];
  const names = SETTING_NAMES.filter((name) => given(name) !== undefined);
  const fromFile = SETTING_NAMES.filter((name) => name in file.settings && !names.includes(name));
  const lockedBy: Partial<Record<keyof Settings, Lock>> = {};
  for (const name of fromFile) lockedBy[name] = { key: name, where: file.path ?? '' };
  for (const name of names) lockedBy[name] = { key: SETTING_VARIABLES[name], where: 'the environment' };
  return {
    locked: {
      ...Object.fromEntries(fromFile.map((name) => [name, file.settings[name]])),
      ...settingsSchema.partial().parse(Object.fromEntries(names.map((name) => [name, given(name)]))),
    },
    lockedBy,
    seed: {},
  };
}

/** For tools such as `npm run settings`, which need no Slack credentials. */
export function parseGivenSettings(env: Environment): GivenSettings {
  const file = policyFileOf(env);
  return givenSettings(validate(z.object(settingFields), env, file.problems), file);
}

/** The process environment, with `.env` from the working directory filled in where present. */
export function readEnvironment(envFile = '.env'): Environment {
  if (existsSync(envFile)) process.loadEnvFile(envFile);
  return process.env;
}

/** Sandbox-only settings, for `npm run sandbox`, which needs no Slack credentials. */
export function parseSandboxConfig(env: Environment): Config['sandbox'] {
  return sandboxSettings(validate(z.object(sandboxFields), env));
}

function sandboxSettings(e: z.infer<z.ZodObject<typeof sandboxFields>>): Config['sandbox'] {
  return {
    port: e.SANDBOX_PORT,
    apiKey: e.SANDBOX_API_KEY,
    databasePath: e.SANDBOX_DATABASE_PATH,
    numbersPerRegion: e.SANDBOX_NUMBERS_PER_REGION,
    seed: { agents: e.SANDBOX_SEED_AGENTS, numbers: e.SANDBOX_SEED_NUMBERS },
  };
}

function databaseTarget(e: z.infer<z.ZodObject<typeof databaseFields>>, defaultPath: string): DatabaseTarget {
  if (e.DATABASE_URL === undefined) return { kind: 'sqlite', path: e.DATABASE_PATH ?? defaultPath };
  return {
    kind: 'postgres',
    url: e.DATABASE_URL,
    poolSize: e.DATABASE_POOL_SIZE,
    statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
  };
}

/** Where the store is, alone, for tools such as `npm run audit`, which need no Slack credentials. */
export function parseDatabaseTarget(env: Environment): DatabaseTarget {
  return databaseTarget(validate(z.object(databaseFields), env), DEFAULT_DATABASE);
}
