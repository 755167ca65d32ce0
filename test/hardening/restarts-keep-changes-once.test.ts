// The app process itself (`node --import tsx src/main.ts`), killed and restarted: a confirmation survives a SIGKILL
// between request and Confirm and then changes things once; the database stays whole; and a SIGTERM during a provider
// call lets the call finish, be audited and be reported before the process exits 0, over HTTP and in Socket Mode.
// Its logs are swept for secrets.
// (That a confirmation expires after 10 minutes, however long the app was down, is computed from its stored
// expires_at: proven in-process with the app's clock in test/e2e/confirmations.test.ts.)
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { ACTION } from '../../src/slack/ids.js';
import { AuditLog } from '../../src/store/audit.js';
import { type Block, EPHEMERAL, onlyButton, shownText, WORKING } from '../e2e/support.js';
import { APP_TOKEN, BOT_TOKEN, NOTIFY_CHANNEL, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { type AppProcess, type Exit, parseJsonLine, spawnApp } from '../harness/app-process.js';
import { type FakeSlack, RESPONSE_URL, type SlackCall, startFakeSlack } from '../harness/fake-slack.js';
import { blockAction, slashCommand } from '../harness/payloads.js';
import { sweepForSecrets } from '../harness/secrets.js';
import { type AppResponse, postToSlackApp } from '../harness/signing.js';
import { until } from './support.js';

interface Running {
  child: ChildProcess;
  /** Sends a request body as Slack would: signed to the app's URL, or as an envelope over its Socket Mode link. */
  post(body: string): Promise<AppResponse>;
  exited: Promise<Exit>;
}

let slack: FakeSlack;
let sandbox: Sandbox;
let dir: string;
let dbPath: string;
/** Every child started by the current test, for the secrets sweep over everything they wrote. */
const children = new Set<AppProcess>();

beforeAll(async () => {
  slack = await startFakeSlack();
  sandbox = await startSandbox({ port: 0 });
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'voice-ops-restart-'));
  dbPath = join(dir, 'voice-ops.db');
});
afterEach(async () => {
  const logText = [...children].map((app) => app.stdout() + app.stderr()).join('');
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
  sandbox.faults.clear();
  try {
    // Every line the processes logged, the database they left and what they posted: no secret anywhere.
    sweepForSecrets({ slack, logText, dbPath, credentials: [BOT_TOKEN, APP_TOKEN, SIGNING_SECRET, sandbox.apiKey] });
    const errors = logText.split('\n').filter((line) => Number(parseJsonLine(line)?.level) >= 50);
    expect(errors, 'error lines in the logs').toEqual([]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
afterAll(async () => {
  await sandbox?.close();
  await slack?.close();
});

type Mode = 'HTTP' | 'Socket Mode';

/** Starts the app as `npm start` would, and resolves once it logs that it is ready (in Socket Mode: connected). */
async function startApp(mode: Mode = 'HTTP'): Promise<Running> {
  const app = spawnApp({
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    VOICE_API_BASE_URL: sandbox.url,
    VOICE_API_KEY: sandbox.apiKey,
    VOICE_API_TIMEOUT_MS: '5000',
    DATABASE_PATH: dbPath,
    NOTIFY_CHANNEL_ID: NOTIFY_CHANNEL,
    VOICE_OPERATORS: OPERATOR,
    LOG_LEVEL: 'debug',
    ...(mode === 'Socket Mode' ? { SLACK_APP_TOKEN: APP_TOKEN } : {}),
  });
  children.add(app);
  const { url } = await app.ready;
  const post =
    mode === 'Socket Mode'
      ? (body: string) => slack.socketMode.deliver(body)
      : (body: string) => postToSlackApp(`${String(url)}/slack/events`, SIGNING_SECRET, body);
  return { child: app.child, post, exited: app.exited };
}

let replies = 0;

/** `/voice numbers buy NUMBER` to the running app; resolves with the confirmation id it answered with. */
async function askToBuy(app: Running, number: string): Promise<string> {
  const id = `restart-ask-${++replies}`;
  const body = slashCommand({ text: `numbers buy ${number}`, userId: OPERATOR, responseUrl: slack.respondUrl(id) });
  expect((await app.post(body)).status).toBe(200);
  const prompt = await slack.waitFor(RESPONSE_URL, (call) => call.responseUrlId === id);
  return onlyButton((prompt.body.blocks ?? []) as Block[], ACTION.confirmChange);
}

/** Presses Confirm; returns the response_url id its answers go to. */
async function pressConfirm(app: Running, confirmationId: string): Promise<string> {
  const id = `restart-confirm-${++replies}`;
  const body = blockAction({
    userId: OPERATOR,
    actionId: ACTION.confirmChange,
    value: confirmationId,
    container: EPHEMERAL,
    responseUrl: slack.respondUrl(id),
  });
  expect((await app.post(body)).status).toBe(200);
  return id;
}

function outcome(responseUrlId: string): Promise<SlackCall> {
  return slack.waitFor(
    RESPONSE_URL,
    (call) => call.responseUrlId === responseUrlId && !shownText(call).includes(WORKING),
    { timeoutMs: 10_000 },
  );
}

async function availableNumber(): Promise<string> {
  const response = await fetch(`${sandbox.url}/list-available-numbers?region=AU&limit=100`, {
    headers: { authorization: `Bearer ${sandbox.apiKey}` },
  });
  const { data } = (await response.json()) as { data: { number: string; capabilities: string[] }[] };
  const found = data.find((entry) => entry.capabilities.includes('voice'));
  if (!found) throw new Error('no AU voice number for sale');
  return found.number;
}

async function purchased(): Promise<string[]> {
  const response = await fetch(`${sandbox.url}/purchased-phone-numbers`, {
    headers: { authorization: `Bearer ${sandbox.apiKey}` },
  });
  return ((await response.json()) as { data: { number: string }[] }).data.map((entry) => entry.number);
}

/** Opens the file as a reader would after the crash, and checks it through SQLite and the app's own row schema. */
function inspectDatabase() {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    const count = (db.prepare('SELECT count(*) AS n FROM audit_events').get() as { n: number }).n;
    const events = [...new AuditLog(db).since(new Date(0))];
    const confirmations = db.prepare('SELECT id, state FROM confirmations').all() as { id: string; state: string }[];
    return { integrity, count, events, confirmations };
  } finally {
    db.close();
  }
}

it('a confirmation survives a SIGKILL between request and Confirm, then buys once after the restart', async () => {
  const number = await availableNumber();
  const buys = sandbox.requestCount('buyNumber');

  const first = await startApp();
  const confirmationId = await askToBuy(first, number);
  first.child.kill('SIGKILL');
  expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

  const crashed = inspectDatabase();
  expect(crashed.integrity).toBe('ok');
  expect(crashed.events).toHaveLength(crashed.count);
  expect(crashed.events.map((event) => `${event.action} ${event.outcome}`)).toEqual(['number.buy requested']);
  expect(crashed.confirmations).toEqual([{ id: confirmationId, state: 'pending' }]);

  const second = await startApp();
  const bought = shownText(await outcome(await pressConfirm(second, confirmationId)));
  expect(bought).toContain(`Bought *${number}*`);
  const again = shownText(await outcome(await pressConfirm(second, confirmationId)));
  expect(again).toContain('That confirmation was already used');

  expect(sandbox.requestCount('buyNumber') - buys).toBe(1);
  expect((await purchased()).filter((entry) => entry === number)).toHaveLength(1);
  second.child.kill('SIGTERM');
  expect(await second.exited).toEqual({ code: 0, signal: null });
  const after = inspectDatabase();
  expect(after.integrity).toBe('ok');
  expect(after.events.map((event) => `${event.action} ${event.outcome}`)).toEqual([
    'number.buy requested',
    'number.buy confirmed',
    'number.buy succeeded',
  ]);
});

it.each<Mode>(['HTTP', 'Socket Mode'])(
  'SIGTERM during a provider call (%s) lets the buy finish, be audited and reported, then exits 0',
  async (mode) => {
    const number = await availableNumber();
    const app = await startApp(mode);
    const confirmationId = await askToBuy(app, number);
    const buys = sandbox.requestCount('buyNumber');
    sandbox.faults.inject('buyNumber', { type: 'delay', ms: 1500 }, { times: 1 });

    const confirmed = await pressConfirm(app, confirmationId);
    await until(
      () => sandbox.requestCount('buyNumber'),
      (count) => count > buys,
      'the buy to reach the provider',
    );
    app.child.kill('SIGTERM');

    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(await purchased()).toContain(number);
    const { integrity, events } = inspectDatabase();
    expect(integrity).toBe('ok');
    expect(events.map((event) => `${event.action} ${event.outcome}`)).toEqual([
      'number.buy requested',
      'number.buy confirmed',
      'number.buy succeeded',
    ]);
    // The requester and the channel heard about it before the process went.
    expect(
      slack
        .calls(RESPONSE_URL)
        .filter((call) => call.responseUrlId === confirmed)
        .map(shownText),
    ).toEqual([expect.stringContaining(WORKING), expect.stringContaining(`Bought *${number}*`)]);
    expect(slack.calls('chat.postMessage').some((call) => shownText(call).includes(number))).toBe(true);
  },
);
