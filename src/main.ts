// Starts Voice Ops for real: configuration from the environment (and .env), stop on SIGINT/SIGTERM.
import { ConfigError, parseConfig, readEnvironment } from './config.js';
import { createLogger } from './log.js';
import { startVoiceOps } from './server.js';

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
  let running: Awaited<ReturnType<typeof startVoiceOps>>;
  try {
    running = await startVoiceOps(config, { logger });
  } catch (error) {
    logger.fatal({ err: error }, `Voice Ops could not start: ${startFailure(error, config.slack.port)}`);
    process.exit(1);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: finishing changes under way');
    await running.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
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
