// The composition root: config in, a running app out. main.ts adds the process around it.
import { dirname, join } from 'node:path';
import { type Config, secretValues } from './config.js';
import type { DeliveryScope } from './delivery-scope.js';
import { Fence } from './fence.js';
import { probeRoutes, type ReadinessCheck, ReadinessChecks } from './health.js';
import { HttpFront, routed } from './http-front.js';
import { InFlight } from './in-flight.js';
import type { Logger } from './log.js';
import { PrometheusMetrics } from './metrics.js';
import {
  AccessControl,
  accountLists,
  MEMBERSHIP_TTL_MS,
  operationsOn,
  ResourceLocks,
  SeenNumbers,
  SettingsInForce,
  seedSettings,
} from './ops/api.js';
import { ProviderClient, ProviderError, type ProviderErrorKind } from './provider/index.js';
import { BackgroundLease } from './reconcile/background-lease.js';
import { PeerWatch } from './reconcile/peers.js';
import { Reconciler } from './reconcile/reconciler.js';
import { type Sandbox, startSandbox } from './sandbox/server.js';
import { slackAnnouncer } from './slack/announcer.js';
import { createBoltApp, registerListeners } from './slack/app.js';
import { expireApprovals as expireApprovalRequests } from './slack/approvals.js';
import { boltLogger } from './slack/bolt-logger.js';
import { createSlackClients, type SlackBudgets } from './slack/clients.js';
import { describeDelivery } from './slack/deliveries.js';
import { readGroupMembers } from './slack/groups.js';
import { type Recheck, SlackIdentity } from './slack/identity.js';
import { People } from './slack/people.js';
import { tellInterruptedBatch, tellRequester, tellSettledBatch } from './slack/requester.js';
import { slackStepEnds } from './slack/step-ends.js';
import { openStore } from './store/open-store.js';
import { openedText } from './store/sql.js';

export interface StartOptions {
  logger: Logger;
  now?: () => Date;
  /** Called when the running app cannot go on (Slack refused the app token); main.ts stops the process. */
  onFatal?: (reason: string, error?: unknown) => void;
  /** Slack timeouts and retries by use; tests shorten them so that a hang costs milliseconds. */
  slackBudgets?: SlackBudgets;
  /** The playground says it is ready itself, with the page's address; the app's own address is then for debugging. */
  readyLevel?: 'info' | 'debug';
  /** How often an unreachable Slack is tried again, and how long an answer of auth.test is trusted. */
  slackRecheck?: Recheck;
  /** How long /readyz answers from its last checks (default 5 s); 0 checks at every probe, one run at a time. */
  readinessRefreshMs?: number;
  /** How many log lines the log's destination dropped, for /metrics. */
  droppedLogLines?: () => number;
}

export async function startVoiceOps(config: Config, options: StartOptions) {
  // The ports are bound first, so that from this instant every request is answered (503 until the app is ready);
  // a start that fails lets them go.
  const fronts = await openFronts(config);
  try {
    return await startBehind(fronts, config, options);
  } catch (error) {
    await closeFronts(fronts);
    throw error;
  }
}

type Fronts = { slack?: HttpFront; probes?: HttpFront };

async function closeFronts(fronts: Fronts): Promise<void> {
  await Promise.all([fronts.slack?.close(), fronts.probes?.close()]);
}

async function startBehind(fronts: Fronts, config: Config, options: StartOptions) {
  const { logger } = options;
  const metrics = new PrometheusMetrics(options.droppedLogLines);
  const slack = createSlackClients(config.slack, boltLogger(logger), options.slackBudgets, (call) =>
    metrics.slackCall(call),
  );
  // A database the app cannot write, or a token Slack refuses, stops it before anything else starts.
  const store = await openStore(config.database, {
    now: options.now,
    onIdleError: (error) => logger.warn({ err: error }, 'the database failed outside any request'),
    onStatement: (seconds) => metrics.databaseStatement(seconds),
    onLiveness: (held, error) => {
      metrics.liveness(held);
      if (held) logger.info('this replica holds its liveness again: it sends changes to the provider again');
      else logger.error({ err: error }, 'this replica lost its liveness: it sends the provider no change meanwhile');
    },
  });
  logger.info({ store: store.opened }, `opened the store: ${openedText(store.opened)}`);
  metrics.liveness(store.liveness.held);
  const fence = new Fence(store.liveness);
  // Every expiry and record that several replicas compare is on the database's clock, not this host's.
  const { now } = store;
  const identity = new SlackIdentity(slack.identity, logger, options.slackRecheck);
  await identity.connect().catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const sandbox = config.provider ? undefined : await startEmbeddedSandbox(config, logger);
  const provider = new ProviderClient({
    baseUrl: config.provider?.baseUrl ?? sandbox?.url ?? '',
    apiKey: config.provider?.apiKey ?? sandbox?.apiKey ?? '',
    timeoutMs: config.providerOptions.timeoutMs,
    cursorParam: config.providerOptions.cursorParam,
    logger,
    onRequest: (request) => metrics.providerCall(request),
    mayChange: () => fence.mayChange(),
    onWithheld: (because) => {
      metrics.changeWithheld();
      logger.warn(
        because === 'lease'
          ? "a change was not sent to the provider: its leases lapsed (was this process paused?), and it is the reconciler's to settle"
          : 'a change was not sent to the provider: this replica lost its liveness, now or since it began',
      );
    },
  });
  const readiness = new ReadinessChecks(
    {
      // A replica that lost its liveness may have been taken over: it is not ready until it holds it again. A
      // database that cannot be reached at all is said first: that is what ended the session.
      database: async () => {
        const writable = await store.checkWritable();
        if (!writable.ok || store.liveness.held) return writable;
        return {
          ok: false,
          state: 'liveness lost',
          detail: "this replica's liveness session ended: it sends no change",
        };
      },
      slack: async () => {
        const status = await identity.check();
        if (status.ok) return status;
        return { ok: false, state: status.refused ? 'token refused' : 'unreachable', detail: status.reason };
      },
      provider: providerCheck(provider),
    },
    {
      refreshMs: options.readinessRefreshMs,
      logger,
      secrets: secretValues(config),
      onCheck: (dependency) => metrics.readinessCheck(dependency),
    },
  );
  const probes = probeRoutes({
    readiness,
    metrics: metrics.registry,
    metricsToken: config.probes.metricsToken,
  });
  // Without a hook (tests), a fatal failure is logged and the app stays up without a Slack connection.
  const onFatal = options.onFatal ?? ((reason: string) => logger.fatal(reason));
  const { app, events } = createBoltApp(config.slack, {
    logger,
    identity,
    onFatal,
    onRefused: (reason) => metrics.requestRefused(reason),
    onUnprovenBodies: (count) => metrics.unprovenBodies(count),
  });
  const clock = () => now().getTime();
  const people = new People(slack.groups, { ttlMs: MEMBERSHIP_TTL_MS, now: clock, logger });
  const access = new AccessControl({
    groupMembers: (usergroup, teamId) => readGroupMembers(slack.groups, usergroup, teamId),
    isGuest: (userId) => people.isGuest(userId),
    standing: (userId) => people.standing(userId, identity.current),
    now: clock,
    logger,
  });
  const inFlight = new InFlight();
  const changesUnderWay = new InFlight();
  // A change's provider call ends within its timeout; twice that, and nothing can still be under way: not after its
  // intent opened, nor after its leases lapsed (a sender sends nothing once they are about to, see ops/locks.ts).
  const settleMs = 2 * config.providerOptions.timeoutMs;
  const settings = new SettingsInForce(store.settings, config.settings, logger);
  const opsDeps = {
    provider,
    lists: accountLists(provider, store.routes),
    store,
    metrics,
    seen: new SeenNumbers(),
    access,
    announcer: slackAnnouncer(slack.announcements, store, now),
    stepEnds: slackStepEnds(slack.announcements),
    locks: new ResourceLocks(store.leases, { ttlMs: config.leaseTtlMs, settleMs }, logger, fence),
    changesUnderWay,
    settings,
    now,
    logger,
  };
  // What the configuration gives is in the store before the first request, so that every replica reads the same.
  await seedSettings(opsDeps);
  await settings.current();
  const ops = operationsOn(opsDeps);
  const lease = new BackgroundLease(store.liveness, store.leases, config.leaseTtlMs, logger, metrics);
  const reconciler = new Reconciler(opsDeps, tellRequester(slack, logger, now), {
    intervalS: config.reconcileIntervalS,
    settleMs,
    now,
    lease,
    tellInterrupted: tellInterruptedBatch(slack, logger),
    tellSettled: tellSettledBatch(slack, logger),
  });
  // A replica found dead is taken over at once: its leases were freed, so the background lease may be this one's
  // now, and a pass resolves its changes and tells its requesters.
  const peers = new PeerWatch(store, logger, async (newlyDead) => {
    metrics.replicaTakenOver(newlyDead);
    await reconciler.pass();
  });
  // Each delivery is tracked to its end, so that a graceful stop lets a change under way finish, be audited and
  // be reported to its requester, and nothing touches the database after it closes.
  app.use(({ body, next }) => inFlight.run(() => describeDelivery(body), next));
  const slackDeps = {
    ops,
    opsFor: (delivery: DeliveryScope) =>
      operationsOn({ ...opsDeps, delivery, settings: settings.forDelivery(delivery) }),
    slack,
    people,
    homePositions: new Map(),
    searches: new Map(),
    settingsShown: new Map(),
    sandbox: Boolean(sandbox),
    now,
    logger,
    metrics,
  };
  registerListeners(app, slackDeps, { deliveries: store.deliveries, identity });
  // Requests for approval nobody decided in time are ended (messages updated, requesters told) once a minute.
  const expireApprovals = () =>
    inFlight.run(
      () => 'expiring approvals',
      () => expireApprovalRequests(slackDeps),
    );
  const sweep = async () => {
    if (!(await lease.hold())) return;
    await expireApprovals().catch((error: unknown) => logger.warn({ err: error }, 'could not end expired approvals'));
  };
  // Always swept: an admin may ask for approvals in Slack at any time, and an empty sweep is one small statement.
  const approvalSweep = setInterval(() => void sweep(), 60_000);
  approvalSweep.unref();

  const socketMode = Boolean(config.slack.appToken);
  // In Socket Mode Bolt connects to Slack; over HTTP the front serves Bolt's receiver itself.
  if (socketMode) await app.start();
  fronts.slack?.serve(routed([...(events ? [events] : []), ...(fronts.probes ? [] : probes)]));
  fronts.probes?.serve(routed(probes));
  const url = fronts.slack?.url ?? '';
  const probesUrl = fronts.probes?.url ?? url;
  logger[options.readyLevel ?? 'info']({ url, probesUrl, mode: socketMode ? 'socket' : 'http' }, 'Voice Ops is ready');
  lease.start();
  reconciler.start();
  peers.start();

  return {
    /** Base URL of what listens on PORT; empty in Socket Mode with METRICS_PORT. */
    url,
    /** Base URL of `/healthz`, `/readyz` and `/metrics`: METRICS_PORT's when it is set, else `url`. */
    probesUrl,
    /** The operations, as the Slack layer calls them. */
    ops,
    /** The embedded sandbox, when no real provider is configured. */
    sandbox,
    /** Resolves once no delivery is being handled: every answer, announcement and Home refresh done. */
    idle: () => inFlight.drain(),
    /** Runs a reconciliation pass now (or waits for the one under way). */
    reconcile: () => reconciler.pass(),
    /** Ends now the requests for approval whose time is up (also done once a minute). */
    expireApprovals,
    /** Stops taking requests, lets changes under way finish and be audited, then closes everything. */
    stop: async () => {
      // New requests are answered 503 from now on, and a batch under way stops taking items, so that it ends as
      // stopped (with Resume) within the stop's time.
      fronts.slack?.closing();
      fronts.probes?.closing();
      changesUnderWay.close();
      clearInterval(approvalSweep);
      identity.stop();
      await peers.stop();
      await reconciler.stop();
      await lease.stop();
      if (socketMode) await app.stop();
      await inFlight.drain();
      await provider.close();
      await store.close();
      await sandbox?.close();
      await closeFronts(fronts);
    },
    /** What is still running, for a stop that cannot wait any longer: Slack deliveries, and changes to the provider. */
    underWay: () => ({ deliveries: inFlight.labels(), changes: changesUnderWay.labels() }),
  };
}

export type RunningVoiceOps = Awaited<ReturnType<typeof startVoiceOps>>;

/** The embedded sandbox's database: the one configured, else `sandbox.db` beside the app's. */
export function sandboxDatabasePath(config: Config): string {
  return (
    config.sandbox.databasePath ??
    (config.databasePath === ':memory:' ? ':memory:' : join(dirname(config.databasePath), 'sandbox.db'))
  );
}

/** With no provider configured, the sandbox runs in-process, its state kept beside the app's database. */
async function startEmbeddedSandbox(config: Config, logger: Logger): Promise<Sandbox> {
  const databasePath = sandboxDatabasePath(config);
  const { apiKey, numbersPerRegion, seed } = config.sandbox;
  const sandbox = await startSandbox({ port: 0, apiKey, databasePath, numbersPerRegion, seed, logger });
  logger.warn(
    { sandbox: sandbox.url },
    'No VOICE_API_BASE_URL is set: using the embedded sandbox provider. Nothing real is bought or routed.',
  );
  return sandbox;
}

/** PORT's front and METRICS_PORT's. If the second cannot be bound, the first is let go. */
async function openFronts(config: Config): Promise<Fronts> {
  const { slack, probes } = config;
  const socketMode = Boolean(slack.appToken);
  const onSlackPort = !(socketMode && probes.port !== undefined);
  const front = onSlackPort ? await HttpFront.open(slack.port, slack.host) : undefined;
  if (probes.port === undefined) return { slack: front };
  try {
    return { slack: front, probes: await HttpFront.open(probes.port, probes.host) };
  } catch (error) {
    await front?.close();
    throw error;
  }
}

/** The provider is ready when it answers a read with the app's key; what it said goes to the log only. */
function providerCheck(provider: ProviderClient): ReadinessCheck {
  return async () => {
    try {
      await provider.listAgents({ once: true });
      return { ok: true };
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return { ok: false, state: error instanceof ProviderError ? providerState(error) : 'failing', detail };
    }
  };
}

/** What /readyz says of the provider: a few fixed words, never the provider's own text. */
function providerState(error: ProviderError): string {
  const words: Record<ProviderErrorKind, string> = {
    auth: 'key refused',
    rate_limited: 'rate limited',
    unavailable: 'unavailable',
    timeout: 'not answering',
    network: 'unreachable',
    not_found: 'failing',
    conflict: 'failing',
    validation: 'failing',
    bad_response: 'failing',
    withheld: 'failing',
  };
  return words[error.kind];
}
