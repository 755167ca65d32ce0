// One logger for the whole app. Redaction is the last line of defence: code should not hand secrets to
// the logger at all, but if it does, these paths are censored.
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
