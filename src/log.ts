// One logger for the whole app. Redaction is the last line of defence: code should not hand secrets to
// the logger at all, but if it does, these paths are censored.
import { inspect } from 'node:util';
import { type DestinationStream, type Logger, pino } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger } from 'pino';

const SECRET_KEYS = [
  'agent_token',
  'agentToken',
  'apiKey',
  'api_key',
  'authorization',
  'Authorization',
  'token',
  'botToken',
  'appToken',
  'signingSecret',
  'client_secret',
  // A Workflow Builder step's interactor carries Slack's secret beside the person's id.
  'secret',
];

export const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((key) => `*.${key}`),
  ...SECRET_KEYS.map((key) => `*.*.${key}`),
  'headers.authorization',
  'req.headers.authorization',
];

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      // The pid tells a supervisor's collected lines apart, and names the process to signal.
      base: { app: 'voice-ops', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    destination,
  );
}

// Free text (Bolt's lines, an error's message or stack) may quote a secret, and redaction by key cannot see inside it:
// Slack-shaped tokens and the configured secret values are cut out before the text reaches pino.
const SLACK_TOKEN = /\bx(?:ox[abpors]|app)-[A-Za-z0-9-]+/g;

export function scrubSecrets(text: string, secrets: readonly string[] = []): string {
  let scrubbed = text.replace(SLACK_TOKEN, '[redacted]');
  for (const secret of secrets) scrubbed = scrubbed.replaceAll(secret, '[redacted]');
  return scrubbed;
}

/** Anything thrown, as a log field whose text is scrubbed of secrets. */
export function errorField(
  error: unknown,
  secrets: readonly string[],
): { type: string; message: string; stack?: string } {
  if (!(error instanceof Error)) {
    return {
      type: typeof error,
      message: scrubSecrets(inspect(error, { breakLength: Number.POSITIVE_INFINITY }), secrets),
    };
  }
  return {
    type: error.name,
    message: scrubSecrets(error.message, secrets),
    ...(error.stack ? { stack: scrubSecrets(error.stack, secrets) } : {}),
  };
}
