// The one place that reads the environment. Every problem is reported at once, by variable name.
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { APPROVABLE_ACTIONS, type BuyLimit, type PolicyConfig } from './ops/policy-config.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const optionalText = z.preprocess((value) => (value === '' ? undefined : value), z.string().trim().optional());
const milliseconds = (min: number, max: number, fallback: number) => {
  const error = `must be a whole number of milliseconds from ${min} to ${max}`;
  return z.coerce.number({ error }).int(error).min(min, error).max(max, error).default(fallback);
};
const PORT_ERROR = 'must be a port number from 0 to 65535';
const RECONCILE_ERROR = 'must be a whole number of seconds from 0 (off) to 86400';
const port = (fallback: number) =>
  z.coerce.number({ error: PORT_ERROR }).int(PORT_ERROR).min(0, PORT_ERROR).max(65535, PORT_ERROR).default(fallback);
const databasePath = z.string().min(1).default('data/voice-ops.db');
const url = optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional());

const idList = (what: string, pattern = /^[UWS][A-Z0-9]{2,}$/) =>
  optionalText.transform((value, ctx) => {
    const ids = (value ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean);
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
const buyLimit = optionalText.transform((value, ctx): BuyLimit | undefined => {
  if (value === undefined) return undefined;
  const match = /^(\d{1,6})\s*\/\s*(day|week)$/i.exec(value);
  if (!match) {
    ctx.addIssue({ code: 'custom', message: BUY_LIMIT_ERROR });
    return undefined;
  }
  return { count: Number(match[1]), window: match[2]?.toLowerCase() === 'week' ? 'week' : 'day' };
});

const channelId = optionalText.pipe(
  z
    .string()
    .regex(/^[CG][A-Z0-9]{2,}$/, 'must be a channel id (C… or G…)')
    .optional(),
);
const APPROVAL_TTL_ERROR = 'must be a whole number of hours from 1 to 720';

const sandboxFields = {
  SANDBOX_PORT: port(4010),
  SANDBOX_API_KEY: z.string().min(1).default('sandbox-key'),
  SANDBOX_DATABASE_PATH: optionalText,
  SANDBOX_NUMBERS_PER_REGION: count(55, 2000).refine((value) => value > 0, 'must be at least 1'),
  SANDBOX_SEED_AGENTS: count(0, 100_000),
  SANDBOX_SEED_NUMBERS: count(0, 24_000),
};

const environment = z
  .object({
    ...sandboxFields,
    SLACK_BOT_TOKEN: z.string({ error: 'is required (xoxb-…)' }).startsWith('xoxb-', 'must start with xoxb-'),
    SLACK_SIGNING_SECRET: optionalText,
    SLACK_APP_TOKEN: optionalText.pipe(z.string().startsWith('xapp-', 'must start with xapp-').optional()),
    SLACK_API_URL: url,
    PORT: port(3000),
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
    DATABASE_PATH: databasePath,
    SHUTDOWN_TIMEOUT_MS: milliseconds(100, 600_000, 10_000),
    NOTIFY_CHANNEL_ID: channelId,
    VOICE_ADMINS: idList('user or user-group id (U…, W… or S…)'),
    VOICE_OPERATORS: idList('user or user-group id (U…, W… or S…)'),
    VOICE_BUY_LIMIT: buyLimit,
    VOICE_BUY_LIMIT_PER_USER: buyLimit,
    VOICE_CHANGE_CHANNELS: idList('channel id (C… or G…)', /^[CG][A-Z0-9]{2,}$/),
    VOICE_REQUIRE_APPROVAL: optionalText.transform((value, ctx) => {
      const actions = (value ?? '')
        .split(',')
        .map((action) => action.trim())
        .filter(Boolean);
      const known: readonly string[] = APPROVABLE_ACTIONS;
      for (const action of actions) {
        if (!known.includes(action)) {
          ctx.addIssue({ code: 'custom', message: `"${action}" is not one of ${APPROVABLE_ACTIONS.join(', ')}` });
        }
      }
      return APPROVABLE_ACTIONS.filter((action) => actions.includes(action));
    }),
    VOICE_APPROVALS_CHANNEL_ID: channelId,
    VOICE_APPROVAL_TTL_HOURS: z.coerce
      .number({ error: APPROVAL_TTL_ERROR })
      .int(APPROVAL_TTL_ERROR)
      .min(1, APPROVAL_TTL_ERROR)
      .max(720, APPROVAL_TTL_ERROR)
      .default(24),
    VOICE_TYPED_RELEASE: optionalText
      .pipe(z.enum(['true', 'false'], { error: 'must be true or false' }).optional())
      .transform((value) => value === 'true'),
    LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    RECONCILE_INTERVAL_S: z.coerce
      .number({ error: RECONCILE_ERROR })
      .int(RECONCILE_ERROR)
      .min(0, RECONCILE_ERROR)
      .max(86_400, RECONCILE_ERROR)
      .default(300),
  })
  .superRefine(
    (env, ctx) => {
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
      if (env.VOICE_REQUIRE_APPROVAL.length > 0 && !env.VOICE_APPROVALS_CHANNEL_ID && !env.NOTIFY_CHANNEL_ID) {
        ctx.addIssue({
          code: 'custom',
          path: ['VOICE_APPROVALS_CHANNEL_ID'],
          message: 'is required when VOICE_REQUIRE_APPROVAL is set (or set NOTIFY_CHANNEL_ID)',
        });
      }
      // Checked even when other variables are wrong, so that one start reports every problem.
    },
    { when: () => true },
  );

export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  slack: { botToken: string; signingSecret?: string; appToken?: string; apiUrl?: string; port: number };
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
  databasePath: string;
  /** How long a graceful stop may wait for the work under way before the process gives up on it. */
  shutdownTimeoutMs: number;
  notifyChannelId?: string;
  access: { admins: string[]; operators: string[] };
  policy: PolicyConfig;
  logLevel: LogLevel;
  /** Seconds between reconciliation passes; 0 turns them off. */
  reconcileIntervalS: number;
}

/** The configured secret values, so that free text (an error's message) can be scrubbed of them before it is logged. */
export function secretValues(config: Config): string[] {
  const { slack, provider, sandbox } = config;
  return [slack.botToken, slack.signingSecret, slack.appToken, provider?.apiKey, sandbox.apiKey].filter(
    (value): value is string => Boolean(value),
  );
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Environment = Record<string, string | undefined>;

function validate<T>(schema: z.ZodType<T>, env: Environment): T {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')} ${issue.message}`);
  throw new ConfigError(`Configuration is invalid (see .env.example):\n${lines.join('\n')}`);
}

export function parseConfig(env: Environment): Config {
  const e = validate(environment, env);
  return {
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
      port: e.PORT,
    },
    provider:
      e.VOICE_API_BASE_URL && e.VOICE_API_KEY ? { baseUrl: e.VOICE_API_BASE_URL, apiKey: e.VOICE_API_KEY } : undefined,
    providerOptions: { timeoutMs: e.VOICE_API_TIMEOUT_MS, cursorParam: e.VOICE_API_CURSOR_PARAM },
    sandbox: sandboxSettings(e),
    databasePath: e.DATABASE_PATH,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    notifyChannelId: e.NOTIFY_CHANNEL_ID,
    access: { admins: e.VOICE_ADMINS, operators: e.VOICE_OPERATORS },
    policy: {
      buyLimit: e.VOICE_BUY_LIMIT,
      buyLimitPerUser: e.VOICE_BUY_LIMIT_PER_USER,
      changeChannels: e.VOICE_CHANGE_CHANNELS,
      typedRelease: e.VOICE_TYPED_RELEASE,
      requireApproval: e.VOICE_REQUIRE_APPROVAL,
      approvalsChannelId: e.VOICE_APPROVALS_CHANNEL_ID ?? e.NOTIFY_CHANNEL_ID,
      approvalTtlHours: e.VOICE_APPROVAL_TTL_HOURS,
    },
    logLevel: e.LOG_LEVEL,
    reconcileIntervalS: e.RECONCILE_INTERVAL_S,
  };
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

/** The database path alone, for tools such as `npm run audit`, which need no Slack credentials. */
export function parseDatabasePath(env: Environment): string {
  return validate(z.object({ DATABASE_PATH: databasePath }), env).DATABASE_PATH;
}
