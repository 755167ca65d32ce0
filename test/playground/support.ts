// The playground as `npm start` runs it with no Slack credentials, in this process: config from an environment with
// none, a temporary database, a captured log. Closing it sweeps the log, the database and everything shown in
// public for secrets, as every end-to-end app's close does.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { type RunningPlayground, startPlayground } from '../../src/playground/start.js';
import { databaseText } from '../harness/database.js';
import { type CapturedLogs, captureLogs } from '../harness/logs.js';
import { sweepForSecrets } from '../harness/secrets.js';

export interface TestPlayground {
  playground: RunningPlayground;
  config: Config;
  logs: CapturedLogs;
  /** The page's address, `http://127.0.0.1:PORT/`. */
  url: string;
  close(): Promise<void>;
}

/** `env` adds to the environment, which has no Slack credential. */
export async function startTestPlayground(env: Record<string, string> = {}): Promise<TestPlayground> {
  const dir = await mkdtemp(join(tmpdir(), 'voice-ops-playground-'));
  const dbPath = join(dir, 'voice-ops.db');
  const config = parseConfig({
    PORT: '0',
    DATABASE_PATH: dbPath,
    LOG_LEVEL: 'debug',
    RECONCILE_INTERVAL_S: '0',
    ...env,
  });
  const logs = captureLogs();
  const playground = await startPlayground(config, { logger: createLogger(config.logLevel, logs.stream) });
  return {
    playground,
    config,
    logs,
    url: playground.url,
    async close() {
      const sandboxKey = playground.app.sandbox?.apiKey ?? '';
      try {
        await playground.stop();
        sweepForSecrets({
          slack: playground.slack,
          logText: logs.text(),
          databaseText: await databaseText(dbPath),
          credentials: [config.slack.botToken, config.slack.signingSecret ?? '', sandboxKey].filter(Boolean),
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
