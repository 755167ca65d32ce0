// `npm run sandbox`: the provider sandbox on its own, for trying the app or a client against it by hand.
import { pino } from 'pino';
import { ConfigError, parseSandboxConfig, readEnvironment } from '../config.js';
import { createLogger } from '../log.js';
import { endpointGuide } from './endpoints.js';
import { startSandbox } from './server.js';

let settings: ReturnType<typeof parseSandboxConfig>;
try {
  settings = parseSandboxConfig(readEnvironment());
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

// Every request at debug level on stderr, so the banner on stdout stays readable; one runs this to watch calls.
const logger = createLogger('debug', pino.destination(2));
const sandbox = await startSandbox({
  port: settings.port,
  apiKey: settings.apiKey,
  databasePath: settings.databasePath,
  logger,
});

console.log(`Provider sandbox listening on ${sandbox.url}`);
console.log(`API key: ${sandbox.apiKey}`);
console.log('This is a sandbox: nothing real is bought, no number rings and no agent answers.');
console.log('');
for (const line of endpointGuide(sandbox.url, sandbox.apiKey)) console.log(line);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void sandbox.close().then(() => console.log('Provider sandbox stopped.'));
  });
}
