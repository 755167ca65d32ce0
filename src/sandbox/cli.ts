// `npm run sandbox`: the provider sandbox on its own, for trying the app or a client against it by hand.
import { pino } from 'pino';
import { request } from 'undici';
import { ConfigError, parseSandboxConfig, readEnvironment } from '../config.js';
import { createLogger } from '../log.js';
import { availableNumberPage } from '../provider/schemas.js';
import { endpointGuide } from './guide.js';
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
  numbersPerRegion: settings.numbersPerRegion,
  seed: settings.seed,
  logger,
});

console.log(`Provider sandbox listening on ${sandbox.url}`);
console.log(`API key: ${sandbox.apiKey}`);
console.log('This is a sandbox: nothing real is bought, no number rings and no agent answers.');
console.log('');
// Asked of the sandbox itself, so that a seeded or kept sandbox's guide still names a number it sells.
const forSale = await request(`${sandbox.url}/list-available-numbers?limit=1`, {
  headers: { authorization: `Bearer ${sandbox.apiKey}` },
});
const firstForSale = availableNumberPage.parse(await forSale.body.json()).data[0]?.number ?? '';
for (const line of endpointGuide(sandbox.url, sandbox.apiKey, firstForSale)) console.log(line);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void sandbox.close().then(() => console.log('Provider sandbox stopped.'));
  });
}
