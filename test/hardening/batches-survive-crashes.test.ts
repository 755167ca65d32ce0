// A bulk map cut short by SIGKILL: the items under way when the app died are reconciled like any change, the items
// not yet started never start by themselves, and the requester is told where the batch stopped, with a Resume that
// plans the rest again. No change happens by surprise after the restart.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { ACTION } from '../../src/slack/ids.js';
import { type Block, buttonValues, EPHEMERAL, onlyButton, shownText } from '../e2e/support.js';
import { ADMIN, BOT_TOKEN, NOTIFY_CHANNEL, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { type AppProcess, spawnApp } from '../harness/app-process.js';
import { type TestDatabase, testDatabase } from '../harness/database.js';
import { type FakeSlack, RESPONSE_URL, type SlackCall, startFakeSlack } from '../harness/fake-slack.js';
import { blockAction, slashCommand } from '../harness/payloads.js';
import { postToSlackApp } from '../harness/signing.js';
import { numbersAndAgent } from './process-support.js';
import { until } from './support.js';

const SANDBOX_KEY = 'sandbox-key';
const NUMBERS = 10;
const TIMEOUT_MS = 1_500;

let slack: FakeSlack;
let provider: Sandbox;
let dir: string;
let database: TestDatabase;

beforeAll(async () => {
  slack = await startFakeSlack();
  provider = await startSandbox({ port: 0, apiKey: SANDBOX_KEY });
  dir = await mkdtemp(join(tmpdir(), 'voice-ops-batch-crash-'));
  database = await testDatabase(dir);
});
afterAll(async () => {
  await database?.remove();
  await provider?.close();
  await slack?.close();
  await rm(dir, { recursive: true, force: true });
});

async function startApp(timeoutMs: number): Promise<{ process: AppProcess; eventsUrl: string }> {
  const process = spawnApp({
    via: 'node',
    env: {
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      VOICE_API_BASE_URL: provider.url,
      VOICE_API_KEY: SANDBOX_KEY,
      VOICE_API_TIMEOUT_MS: String(timeoutMs),
      ...database.env,
      LEASE_TTL_S: '3',
      NOTIFY_CHANNEL_ID: NOTIFY_CHANNEL,
      VOICE_OPERATORS: OPERATOR,
      VOICE_ADMINS: ADMIN,
      RECONCILE_INTERVAL_S: '0',
    },
  });
  return { process, eventsUrl: (await process.ready).eventsUrl };
}

let counter = 0;
/** A signed request to the app; resolves with the response_url id its answers go to. */
async function send(eventsUrl: string, body: (responseUrl: string) => string): Promise<string> {
  const id = `batch-crash-${++counter}`;
  expect((await postToSlackApp(eventsUrl, SIGNING_SECRET, body(slack.respondUrl(id)))).status).toBe(200);
  return id;
}

const press = (eventsUrl: string, actionId: string, value: string) =>
  send(eventsUrl, (responseUrl) =>
    blockAction({ userId: OPERATOR, actionId, value, container: EPHEMERAL, responseUrl }),
  );

const answerTo = (id: string, match: RegExp): Promise<SlackCall> =>
  slack.waitFor(RESPONSE_URL, (call) => call.responseUrlId === id && match.test(shownText(call)), {
    timeoutMs: 20_000,
  });

async function itemStates(batchId?: string): Promise<Record<string, number>> {
  const rows = await (await database.sql()).all<{ state: string; n: number | string }>(
    `SELECT state, COUNT(*) AS n FROM batch_items ${batchId ? 'WHERE batch_id = ?' : ''} GROUP BY state`,
    batchId ? [batchId] : [],
  );
  return Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]));
}

it('reconciles the items under way, starts no other, and offers Resume, which plans the rest', async () => {
  const agentId = await numbersAndAgent(provider, 'BR', NUMBERS, { name: 'Rio desk', language: 'pt-BR' });

  const first = await startApp(60_000);
  const planId = await send(first.eventsUrl, (responseUrl) =>
    slashCommand({ text: `map BR to ${agentId}`, userId: OPERATOR, responseUrl }),
  );
  const plan = await answerTo(planId, /Plan/);
  provider.faults.inject('mapNumber', { type: 'hold' });
  await press(
    first.eventsUrl,
    ACTION.confirmBatch,
    onlyButton((plan.body.blocks ?? []) as Block[], ACTION.confirmBatch),
  );
  await until(itemStates, (states) => (states.running ?? 0) >= 4, 'four items to be under way');
  await until(
    () => Promise.resolve(provider.requestCount('mapNumber')),
    (count) => count >= 4,
    'the four maps to reach the provider',
  );
  first.process.child.kill('SIGKILL');
  await first.process.exited;
  provider.faults.clear();
  const reachedBeforeRestart = provider.requestCount('mapNumber');

  const second = await startApp(TIMEOUT_MS);
  const told = await slack.waitFor(
    'chat.postEphemeral',
    (call) => call.body.user === OPERATOR && shownText(call).includes('stopped at'),
    { timeoutMs: 20_000 },
  );
  expect(shownText(told)).toContain(`stopped at 4 of ${NUMBERS}`);
  await until(itemStates, (states) => (states.succeeded ?? 0) === 4, 'the items under way to be reconciled');
  expect(await itemStates()).toEqual({ succeeded: 4, pending: NUMBERS - 4 });
  // Only the four under way were sent again (a map is re-sent to be sure of it); nothing else was started.
  expect(provider.requestCount('mapNumber') - reachedBeforeRestart).toBeLessThanOrEqual(4);

  const resume = buttonValues((told.body.blocks ?? []) as Block[], ACTION.planAgain);
  expect(resume).toHaveLength(1);
  const replanned = await answerTo(await press(second.eventsUrl, ACTION.planAgain, resume[0] ?? ''), /Plan/);
  expect(shownText(replanned)).toContain(`${NUMBERS - 4} numbers to route`);
  const applied = await press(
    second.eventsUrl,
    ACTION.confirmBatch,
    onlyButton((replanned.body.blocks ?? []) as Block[], ACTION.confirmBatch),
  );
  const result = await answerTo(applied, /Routed/);
  expect(shownText(result)).toContain(`Routed ${NUMBERS - 4} of ${NUMBERS - 4} numbers`);

  second.process.child.kill('SIGTERM');
  expect(await second.process.exited).toEqual({ code: 0, signal: null });
});

it('stops a batch under way when the app is asked to stop: the items not started are cancelled, and Resume offered', async () => {
  const agentId = await numbersAndAgent(provider, 'JP', NUMBERS, { name: 'Tokyo desk', language: 'ja-JP' });

  const app = await startApp(60_000);
  const planId = await send(app.eventsUrl, (responseUrl) =>
    slashCommand({ text: `map JP to ${agentId}`, userId: OPERATOR, responseUrl }),
  );
  const plan = await answerTo(planId, /Plan/);
  const batchId = onlyButton((plan.body.blocks ?? []) as Block[], ACTION.confirmBatch);
  const before = provider.requestCount('mapNumber');
  provider.faults.inject('mapNumber', { type: 'hold' });
  const applied = await press(app.eventsUrl, ACTION.confirmBatch, batchId);
  await until(
    () => Promise.resolve(provider.requestCount('mapNumber') - before),
    (count) => count >= 4,
    'four maps to reach the provider',
  );
  app.process.child.kill('SIGTERM');
  // The calls under way are let go only once the app has begun to stop: the items after them then never start.
  await until(
    () => Promise.resolve(app.process.entries()),
    (entries) => entries.some((entry) => entry.msg === 'stopping: finishing changes under way'),
    'the app to begin stopping',
  );
  provider.faults.clear();
  expect(await app.process.exited).toEqual({ code: 0, signal: null });

  expect(provider.requestCount('mapNumber') - before, 'only the items under way reached the provider').toBe(4);
  expect(await itemStates(batchId)).toEqual({ succeeded: 4, cancelled: NUMBERS - 4 });
  const result = await answerTo(applied, /Stopped/);
  expect(shownText(result)).toContain(`Stopped: 4 of ${NUMBERS} routed`);
  expect(buttonValues((result.body.blocks ?? []) as Block[], ACTION.planAgain)).toHaveLength(1);
});
