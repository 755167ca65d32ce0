// Starts Voice Ops for real: configuration from the environment (and .env), stop on SIGINT/SIGTERM.
import { ConfigError, parseConfig, readEnvironment } from './config.js';
import { createLogger } from './log.js';
import { startVoiceOps } from './server.js';
import { appTokenRefusal } from './slack/socket-mode.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof parseConfig>;
  try {
    config = parseConfig(readEnvironment());
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  const logger = createLogger(config.logLevel);
  let running: { stop(): Promise<void> } | undefined;
  let stopping = false;
  const stop = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    await running?.stop();
    logger.info('stopped');
    process.exit(exitCode);
  };
  // What the app cannot recover from while running (Slack refusing the app token): one fatal line, then the same
  // graceful stop as on a signal, and a non-zero exit for whatever supervises the process.
  const onFatal = (reason: string) => {
    if (stopping) return;
    logger.fatal(reason);
    void stop(1);
  };
  try {
    // No Slack credentials: the playground, loaded only then.
    running = config.playground
      ? await (await import('./playground/start.js')).startPlayground(config, { logger, onFatal })
      : await startVoiceOps(config, { logger, onFatal });
  } catch (error) {
    // A refused token is said in full by its sentence; a stack trace would only bury it.
    const refusal = appTokenRefusal(error);
    if (refusal) logger.fatal(`Voice Ops could not start: ${refusal}`);
    else {
      const port = config.playground?.port ?? config.slack.port;
      logger.fatal({ err: error }, `Voice Ops could not start: ${startFailure(error, port)}`);
    }
    process.exit(1);
  }
  const onSignal = (signal: string) => {
    if (stopping) return;
    logger.info({ signal }, 'stopping: finishing changes under way');
    void stop(0);
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
}

/** What to do about the usual start-up failures, in a sentence. */
function startFailure(error: unknown, port: number): string {
  const code = error instanceof Error && 'code' in error ? String(error.code) : '';
  if (code === 'EADDRINUSE') return `port ${port} is already in use: stop what uses it, or set PORT.`;
  if (code === 'EACCES') return `port ${port} needs privileges: set PORT to 1024 or above.`;
  if (code === 'SQLITE_CANTOPEN') return 'the database file cannot be opened: check DATABASE_PATH.';
  return error instanceof Error ? error.message : String(error);
}

await main();
