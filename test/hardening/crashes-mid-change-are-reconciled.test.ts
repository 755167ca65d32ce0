// The app process SIGKILLed while a buy, a release, a map, an agent deletion or creation is at the provider, then
// restarted.
// With an external provider the change goes through without the app; with the embedded sandbox it dies with the
// app. Either way the restarted app finds out from the provider what really happened, audits it as reconciled,
// announces only what happened, and tells the requester on the interaction they were left waiting on.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RouteName, type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { ACTION } from '../../src/slack/ids.js';
import { type Block, EPHEMERAL, onlyButton, shownText, WORKING } from '../e2e/support.js';
import { ADMIN, BOT_TOKEN, NOTIFY_CHANNEL, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { type AppProcess, spawnApp } from '../harness/app-process.js';
import { type TestDatabase, testDatabase } from '../harness/database.js';
import { type FakeSlack, RESPONSE_URL, startFakeSlack } from '../harness/fake-slack.js';
import { blockAction, slashCommand } from '../harness/payloads.js';
import { sweepForSecrets } from '../harness/secrets.js';
import { postToSlackApp } from '../harness/signing.js';
import { availableNumber, providerCall } from './process-support.js';
import { until } from './support.js';

// The provider holds the change until the test lets it go; the first app, patient far beyond that, is killed while
// the call is in flight. The restarted app resolves intents older than its own provider timeout (and a margin), so
// its timeout is short. Nothing here races a clock: each step waits for the one before it to be seen.
const PATIENT_MS = 60_000;
const TIMEOUT_MS = 1_500;
const SANDBOX_KEY = 'sandbox-key';

let slack: FakeSlack;
let external: Sandbox;
let dir: string;
const logs: string[] = [];

beforeAll(async () => {
  slack = await startFakeSlack();
  external = await startSandbox({ port: 0, apiKey: SANDBOX_KEY });
  dir = await mkdtemp(join(tmpdir(), 'voice-ops-crash-'));
});
afterAll(async () => {
  try {
    for (const database of databases.values()) {
      sweepForSecrets({
        slack,
        logText: logs.join('\n'),
        databaseText: await (await database).text(),
        credentials: [BOT_TOKEN, SIGNING_SECRET, SANDBOX_KEY],
      });
    }
  } finally {
    for (const database of databases.values()) await (await database).remove();
    await external?.close();
    await slack?.close();
    await rm(dir, { recursive: true, force: true });
  }
});

/** Each case's database, on this run's engine, made with its folder the first time it is asked for. */
const databases = new Map<string, Promise<TestDatabase>>();
function databaseOf(home: string): Promise<TestDatabase> {
  let database = databases.get(home);
  if (database === undefined) {
    database = mkdir(home, { recursive: true }).then(() => testDatabase(home));
    databases.set(home, database);
  }
  return database;
}

type Provider = 'external' | 'embedded';
type Kind = 'buy' | 'release' | 'map' | 'delete' | 'create';

interface Running {
  process: AppProcess;
  eventsUrl: string;
  /** The provider's base URL (…/v1) as this app uses it. */
  providerUrl: string;
}

async function startApp(provider: Provider, home: string, timeoutMs = TIMEOUT_MS): Promise<Running> {
  const process = spawnApp({
    via: 'node',
    env: {
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      ...(provider === 'external' ? { VOICE_API_BASE_URL: external.url, VOICE_API_KEY: SANDBOX_KEY } : {}),
      VOICE_API_TIMEOUT_MS: String(timeoutMs),
      ...(await databaseOf(home)).env,
      // Beside the case's own files on either engine (on Postgres it would otherwise be the checkout's data/).
      SANDBOX_DATABASE_PATH: join(home, 'sandbox.db'),
      LEASE_TTL_S: '3',
      NOTIFY_CHANNEL_ID: NOTIFY_CHANNEL,
      VOICE_OPERATORS: OPERATOR,
      VOICE_ADMINS: ADMIN,
      RECONCILE_INTERVAL_S: '0',
      LOG_LEVEL: 'info',
    },
  });
  const { eventsUrl } = await process.ready;
  const embedded = process.entries().find((entry) => typeof entry.sandbox === 'string')?.sandbox;
  return { process, eventsUrl, providerUrl: provider === 'external' ? external.url : String(embedded) };
}

async function stop(app: Running): Promise<void> {
  app.process.child.kill('SIGTERM');
  expect(await app.process.exited).toEqual({ code: 0, signal: null });
  logs.push(app.process.output());
}

const call = (app: Running, method: string, path: string, body?: unknown) =>
  providerCall({ url: app.providerUrl, apiKey: SANDBOX_KEY }, method, path, body);

const list = async (app: Running, path: string) => (await call(app, 'GET', path)).data as Record<string, string>[];

/** Holds the next request to `route` at the provider the app uses, through the sandbox's control endpoint. */
async function hold(app: Running, route: RouteName): Promise<void> {
  const control = new URL('/_control/faults', app.providerUrl);
  const fault = { route, fault: { type: 'hold' }, times: 1 };
  const response = await fetch(control, {
    method: 'POST',
    headers: { authorization: `Bearer ${SANDBOX_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  expect(response.ok).toBe(true);
}

let counter = 0;
const post = (app: Running, body: string) => postToSlackApp(app.eventsUrl, SIGNING_SECRET, body);

/** `/voice TEXT`; resolves with the response_url id its answers go to. */
async function command(app: Running, user: string, text: string): Promise<string> {
  const id = `crash-${++counter}`;
  expect((await post(app, slashCommand({ text, userId: user, responseUrl: slack.respondUrl(id) }))).status).toBe(200);
  return id;
}

async function confirm(app: Running, user: string, promptId: string): Promise<string> {
  const prompt = await slack.waitFor(RESPONSE_URL, (entry) => entry.responseUrlId === promptId);
  const confirmationId = onlyButton((prompt.body.blocks ?? []) as Block[], ACTION.confirmChange);
  const id = `crash-${++counter}`;
  const body = blockAction({
    userId: user,
    actionId: ACTION.confirmChange,
    value: confirmationId,
    container: EPHEMERAL,
    responseUrl: slack.respondUrl(id),
  });
  expect((await post(app, body)).status).toBe(200);
  return id;
}

async function openIntents(home: string): Promise<number> {
  const db = await (await databaseOf(home)).sql();
  return (await db.get<{ n: number }>('SELECT count(*) AS n FROM intents WHERE closed_at IS NULL'))?.n ?? 0;
}

async function auditOf(home: string, action: string) {
  const db = await (await databaseOf(home)).sql();
  return db.all<{ outcome: string; source: string; params: string | null }>(
    'SELECT outcome, source, params FROM audit_events WHERE action = ? ORDER BY id',
    [action],
  );
}

interface Scene {
  /** What the provider has before the change's route is held. */
  before?(app: Running): Promise<void>;
  /** Sends the change; resolves with the response_url id the requester waits on. */
  start(app: Running): Promise<string>;
  route: RouteName;
  action: string;
  /** Whether the provider now has the change. */
  made(app: Running): Promise<boolean>;
  /** What the requester is told when it was made, and when it was not. */
  saysMade: RegExp;
  saysNot: RegExp;
  /** What the reconciler's outcome row keeps of the change beside its target, as the change's own answer would. */
  params(): Record<string, unknown>;
}

const voiceNumber = (app: Running, region: string) =>
  availableNumber({ url: app.providerUrl, apiKey: SANDBOX_KEY }, region);

/** Each kind of change, set up at the provider directly and then asked for through the app. */
function scene(kind: Kind, region: string): Scene {
  let number = '';
  let agentId = '';
  const owned = async (app: Running) => (await list(app, '/purchased-phone-numbers')).some((n) => n.number === number);
  switch (kind) {
    case 'buy':
      return {
        route: 'buyNumber',
        action: 'number.buy',
        async start(app) {
          number = await voiceNumber(app, region);
          return confirm(app, OPERATOR, await command(app, OPERATOR, `numbers buy ${number}`));
        },
        made: owned,
        saysMade: /Bought \*\+\d+\*/,
        saysNot: /was not bought/,
        params: () => ({}),
      };
    case 'release':
      return {
        route: 'releaseNumber',
        action: 'number.release',
        async start(app) {
          number = await voiceNumber(app, region);
          await call(app, 'POST', '/buy-phone-number', { number });
          return confirm(app, ADMIN, await command(app, ADMIN, `numbers release ${number}`));
        },
        made: async (app) => !(await owned(app)),
        saysMade: /Released \*\+\d+\*/,
        saysNot: /was not released/,
        params: () => ({ numberId: expect.any(String) }),
      };
    case 'map':
      return {
        route: 'mapNumber',
        action: 'routing.map',
        async start(app) {
          number = await voiceNumber(app, region);
          await call(app, 'POST', '/buy-phone-number', { number });
          agentId = String((await call(app, 'POST', '/ai-agents', { name: 'Crash desk', language: 'en-US' })).id);
          return command(app, OPERATOR, `map ${number} ${agentId}`);
        },
        // Routing cannot be read: re-sending the map makes it, either way.
        made: async () => true,
        saysMade: /Routed \*\+\d+\*/,
        saysNot: /was not routed/,
        params: () => ({ agentId, agentName: 'Crash desk' }),
      };
    case 'delete':
      return {
        route: 'deleteAgent',
        action: 'agent.delete',
        async start(app) {
          agentId = String((await call(app, 'POST', '/ai-agents', { name: 'Doomed desk', language: 'en-US' })).id);
          return confirm(app, ADMIN, await command(app, ADMIN, `agents delete ${agentId}`));
        },
        made: async (app) => !(await list(app, '/ai-agents')).some((agent) => agent.id === agentId),
        saysMade: /Deleted agent/,
        saysNot: /was not deleted/,
        params: () => ({ name: 'Doomed desk' }),
      };
    case 'create':
      return {
        route: 'createAgent',
        action: 'agent.create',
        // Another agent of the same name exists already: the new one is told apart from it.
        async before(app) {
          await call(app, 'POST', '/ai-agents', { name: 'Crash twin', language: 'en-US' });
        },
        start: (app) => command(app, OPERATOR, 'agents create "Crash twin" en-US'),
        made: async (app) =>
          (await list(app, '/ai-agents')).filter((agent) => agent.name === 'Crash twin').length === 2,
        saysMade: /Created agent \*Crash twin\*.+its token went with the answer/,
        saysNot: /was not created: no new agent of that name is listed/,
        params: () => ({ name: 'Crash twin', language: 'en-US' }),
      };
  }
}

const REGIONS: Record<Provider, Record<Kind, string>> = {
  external: { buy: 'US', release: 'CA', map: 'GB', delete: 'DE', create: 'US' },
  embedded: { buy: 'FR', release: 'ES', map: 'IT', delete: 'NL', create: 'FR' },
};

describe.each<Provider>(['external', 'embedded'])('SIGKILL mid-change, provider %s', (provider) => {
  it.each<Kind>(['buy', 'release', 'map', 'delete', 'create'])(
    '%s: the restarted app finds out, audits, announces and tells',
    async (kind) => {
      const home = join(dir, `${provider}-${kind}`);
      const change = scene(kind, REGIONS[provider][kind]);
      const first = await startApp(provider, home, PATIENT_MS);
      await change.before?.(first);
      await hold(first, change.route);
      const calls = external.requestCount(change.route);
      const waiting = await change.start(first);
      await until(
        () => openIntents(home),
        (open) => open === 1,
        'the change to be under way',
      );
      // The intent is written just before the provider is called. The external provider shows the call arriving;
      // the embedded one dies with the app whether or not the call reached it.
      const providerMade = provider === 'external';
      if (providerMade) {
        await until(
          () => external.requestCount(change.route),
          (count) => count > calls,
          'the call to reach the provider',
        );
      }
      first.process.child.kill('SIGKILL');
      await first.process.exited;
      logs.push(first.process.output());

      if (providerMade) {
        external.faults.clear();
        await until(() => change.made(first), Boolean, 'the provider to finish the change');
      }
      const announcedBefore = slack
        .calls('chat.postMessage')
        .filter((entry) => entry.body.channel === NOTIFY_CHANNEL).length;

      const second = await startApp(provider, home);
      const told = await slack.waitFor(
        RESPONSE_URL,
        (entry) => entry.responseUrlId === waiting && shownText(entry).includes('checked with the provider'),
        { timeoutMs: 4 * TIMEOUT_MS + 5_000 },
      );
      const made = await change.made(second);
      expect(made).toBe(providerMade || kind === 'map');
      expect(shownText(told)).toMatch(made ? change.saysMade : change.saysNot);
      expect(shownText(told)).not.toContain(WORKING);
      expect(told.body.replace_original, 'it takes the place of "Working on it…"').toBe(true);

      await until(
        () => openIntents(home),
        (open) => open === 0,
        'the intent to be closed',
      );
      const last = (await auditOf(home, change.action)).at(-1);
      expect(last).toMatchObject({ outcome: made ? 'succeeded' : 'failed', source: 'system' });
      // The row alone tells what the change did: the agent a number was routed to, say.
      expect(JSON.parse(last?.params ?? '{}')).toEqual({ reconciled: true, ...change.params() });
      await stop(second);
      const announced = slack.calls('chat.postMessage').filter((entry) => entry.body.channel === NOTIFY_CHANNEL);
      expect(announced.length - announcedBefore, 'announced once if it happened, else not at all').toBe(made ? 1 : 0);
    },
  );
});
