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
  const running = await startVoiceOps(config, { logger });
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

await main();
