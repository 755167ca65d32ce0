// The composition root: config in, a running app out. main.ts adds the process around it.
import type { Server } from 'node:http';
import { dirname, join } from 'node:path';
import type { Config } from './config.js';
import { InFlight } from './in-flight.js';
import type { Logger } from './log.js';
import { AccessControl } from './ops/access.js';
import { createOps } from './ops/index.js';
import { ResourceLocks } from './ops/locks.js';
import { ProviderClient } from './provider/index.js';
import { type Sandbox, startSandbox } from './sandbox/server.js';
import { slackAnnouncer } from './slack/announcer.js';
import { createBoltApp, registerListeners } from './slack/app.js';
import { describeDelivery } from './slack/deliveries.js';
import { AuditLog } from './store/audit.js';
import { Confirmations } from './store/confirmations.js';
import { openDatabase } from './store/db.js';
import { DeliveryKeys } from './store/dedupe.js';
import { RoutingRecords } from './store/routes.js';

export interface RunningVoiceOps {
  /** Base URL of the HTTP receiver; undefined in Socket Mode. */
  url?: string;
  /** The embedded sandbox, when no real provider is configured. */
  sandbox?: Sandbox;
  /** Stops taking requests, lets changes under way finish and be audited, then closes everything. */
  stop(): Promise<void>;
  /** What is still running, for a stop that cannot wait any longer: Slack deliveries, and changes to the provider. */
  underWay(): { deliveries: string[]; changes: string[] };
}

export async function startVoiceOps(
  config: Config,
  options: {
    logger: Logger;
    now?: () => Date;
    /** Called by code in the running app when it cannot go on: the process stops gracefully and exits non-zero. */
    onFatal?: (reason: string, error?: unknown) => void;
  },
): Promise<RunningVoiceOps> {
  const { logger } = options;
  const now = options.now ?? (() => new Date());
  // First, so that a database the app cannot write stops it before anything else starts.
  const db = openDatabase(config.databasePath);
  const sandbox = config.provider ? undefined : await startEmbeddedSandbox(config, logger);
  const provider = new ProviderClient({
    baseUrl: config.provider?.baseUrl ?? sandbox?.url ?? '',
    apiKey: config.provider?.apiKey ?? sandbox?.apiKey ?? '',
    timeoutMs: config.providerOptions.timeoutMs,
    cursorParam: config.providerOptions.cursorParam,
    logger,
  });
  const app = createBoltApp(config.slack, logger);
  const access = new AccessControl({
    ...config.access,
    groupMembers: async (usergroup) => (await app.client.usergroups.users.list({ usergroup })).users ?? [],
    now: () => now().getTime(),
    logger,
  });
  const inFlight = new InFlight();
  const changes = new InFlight();
  const ops = createOps({
    provider,
    audit: new AuditLog(db, { now }),
    confirmations: new Confirmations(db, { now }),
    routes: new RoutingRecords(db, { now }),
    access,
    announcer: slackAnnouncer(app.client, config.notifyChannelId),
    locks: new ResourceLocks(),
    changes,
    logger,
  });
  const deliveries = new DeliveryKeys(db, { now });
  // Each delivery is tracked to its end, so that a graceful stop lets a change under way finish, be audited and
  // be reported to its requester, and nothing touches the database after it closes.
  app.use(({ body, next }) => inFlight.run(() => describeDelivery(body), next));
  registerListeners(app, { ops, client: app.client, sandbox: Boolean(sandbox), now, logger }, deliveries);

  const started = (await app.start(config.slack.port)) as Server | undefined;
  const address = config.slack.appToken ? undefined : started?.address();
  const url = address && typeof address === 'object' ? `http://127.0.0.1:${address.port}` : undefined;
  logger.info({ url, mode: config.slack.appToken ? 'socket' : 'http' }, 'Voice Ops is ready');

  return {
    url,
    sandbox,
    stop: async () => {
      await app.stop();
      await inFlight.drain();
      await provider.close();
      db.close();
      await sandbox?.close();
    },
    underWay: () => ({ deliveries: inFlight.labels(), changes: changes.labels() }),
  };
}

/** With no provider configured, the sandbox runs in-process, its state kept beside the app's database. */
async function startEmbeddedSandbox(config: Config, logger: Logger): Promise<Sandbox> {
  const databasePath =
    config.sandbox.databasePath ??
    (config.databasePath === ':memory:' ? ':memory:' : join(dirname(config.databasePath), 'sandbox.db'));
  const sandbox = await startSandbox({ port: 0, apiKey: config.sandbox.apiKey, databasePath, logger });
  logger.warn(
    { sandbox: sandbox.url },
    'No VOICE_API_BASE_URL is set: using the embedded sandbox provider. Nothing real is bought or routed.',
  );
  return sandbox;
}
