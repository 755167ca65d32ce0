import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import { type Logger, scrubSecrets } from '../log.js';

// Bolt logs free text, which may quote a request; tokens are scrubbed from it before it reaches pino.
function render(parts: unknown[]): string {
  return scrubSecrets(
    parts
      .map((part) => (typeof part === 'string' ? part : part instanceof Error ? part.message : safeJson(part)))
      .join(' '),
  );
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

// At debug level the Web API client dumps whole request bodies and results, and the Socket Mode client every
// message and ack, which carry what users typed and what the app shows them (an agent token in its one-time
// message, for instance): those dumps are never logged.
const BODY_DUMP =
  /\b(body|result|storedResponse)\b|^(Received a message on the WebSocket|Sending a WebSocket message|Calling ack\(\))/i;

/** Bolt's Logger interface on top of our pino logger, so that every line is JSON and redacted. */
export function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'bolt' });
  return {
    debug: (...parts: unknown[]) => {
      const line = render(parts);
      if (!BODY_DUMP.test(line)) child.debug(line);
    },
    info: (...parts: unknown[]) => child.info(render(parts)),
    warn: (...parts: unknown[]) => child.warn(render(parts)),
    error: (...parts: unknown[]) => child.error(render(parts)),
    // The level is ours (LOG_LEVEL), not Bolt's.
    setLevel: () => {},
    getLevel: () => {
      const level = child.level;
      return level === 'debug' || level === 'trace' ? LogLevel.DEBUG : level === 'info' ? LogLevel.INFO : LogLevel.WARN;
    },
    setName: () => {},
  };
}
