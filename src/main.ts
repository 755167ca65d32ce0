// Starts Voice Ops for real: configuration from the environment (and .env), and the process's way out (src/lifecycle.ts)
// for signals, for anything the app cannot go on after, and for start-up failures.
import { isatty } from 'node:tty';
import { type Config, ConfigError, parseConfig, readEnvironment, secretValues } from './config.js';
import { Lifecycle } from './lifecycle.js';
import { createLogger } from './log.js';
import { logDestination } from './log-destination.js';
import { readableLines } from './log-lines.js';
import { startVoiceOps } from './server.js';
import { SlackRefusedToken } from './slack/identity.js';
import { appTokenRefusal } from './slack/socket-mode.js';
import { DatabaseUnusable } from './store/db.js';
import { SchemaVersionError } from './store/migrations.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof parseConfig>;
  try {
    config = parseConfig(readEnvironment());
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  // A person at a terminal reads lines; anything else (a pipe, a collector, a file) gets JSON lines to parse, written
  // so that a stalled or closed pipe never holds the app up (log-destination.ts).
  const destination = isatty(1) ? undefined : logDestination();
  const logger = createLogger(config.logLevel, destination ?? readableLines(process.stdout));
  const lifecycle = new Lifecycle({
    logger,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    secrets: secretValues(config),
    flushLogs: (timeoutMs) => destination?.flush(timeoutMs) ?? Promise.resolve(),
  });
  process.on('unhandledRejection', (reason) => lifecycle.fatal('unhandled promise rejection', reason));
  process.on('uncaughtException', (error) => lifecycle.fatal('uncaught exception', error));
  process.on('SIGINT', () => lifecycle.signal('SIGINT'));
  process.on('SIGTERM', () => lifecycle.signal('SIGTERM'));
  const options = {
    logger,
    onFatal: (reason: string, error?: unknown) => lifecycle.fatal(reason, error),
    droppedLogLines: () => destination?.dropped() ?? 0,
  };
  try {
    // No Slack credentials: the playground, loaded only then.
    lifecycle.started(
      config.playground
        ? await (await import('./playground/start.js')).startPlayground(config, options)
        : await startVoiceOps(config, options),
    );
  } catch (error) {
    // A refused token is said in full by its sentence; a stack trace would only bury it.
    const refusal = appTokenRefusal(error) ?? (error instanceof SlackRefusedToken ? error.message : undefined);
    if (refusal) lifecycle.startFailed(refusal);
    // The usual failures are said in a sentence of what to do; only the unforeseen keep their stack trace.
    const known = knownStartFailure(error, config);
    if (known) lifecycle.startFailed(known);
    lifecycle.startFailed(error instanceof Error ? error.message : String(error), error);
  }
}

/** What to do about the usual start-up failures, in a sentence; undefined for any other failure. */
function knownStartFailure(error: unknown, config: Config): string | undefined {
  if (error instanceof DatabaseUnusable || error instanceof SchemaVersionError) return error.message;
  const code = error instanceof Error && 'code' in error ? String(error.code) : '';
  // Node's listen error names the port it could not bind: PORT's, or METRICS_PORT's.
  const failed = error instanceof Error && 'port' in error ? Number(error.port) : undefined;
  const port = failed ?? config.playground?.port ?? config.slack.port;
  const name = failed !== undefined && failed === config.probes.port ? 'METRICS_PORT' : 'PORT';
  if (code === 'EADDRINUSE')
    return `port ${port} is already in use: stop what uses it, or set ${name} to another port.`;
  if (code === 'EACCES') return `port ${port} needs privileges: set ${name} to 1024 or above.`;
  // Only METRICS_HOST names a listen address; an address this machine does not have cannot be bound.
  if (['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN'].includes(code) && config.probes.host) {
    return (
      `METRICS_HOST ${config.probes.host} is not an address of this machine: set it to one of its addresses ` +
      '(127.0.0.1 for this machine only), or leave it empty for every interface.'
    );
  }
  if (code === 'SQLITE_CANTOPEN') return 'the database file cannot be opened: check DATABASE_PATH.';
  return undefined;
}

await main();
