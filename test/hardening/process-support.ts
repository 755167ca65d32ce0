// What the tests of the app's own process share (useProcessBed), do to it and read back: a buy asked for and
// confirmed over signed requests, the sandbox's own view of the numbers, and the audit trail as a reader finds it in
// the file the process left.

import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { CONFIGURATION } from '../../src/ops/api.js';
import { type RouteName, type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { ACTION } from '../../src/slack/ids.js';
import { AuditLog } from '../../src/store/audit.js';
import { type Block, EPHEMERAL, onlyButton, shownText, WORKING } from '../e2e/support.js';
import { OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { type AppProcess, appEnvironment, killLeftovers, spawnApp } from '../harness/app-process.js';
import { type TestDatabase, testDatabase } from '../harness/database.js';
import { type FakeSlack, RESPONSE_URL, type SlackCall, startFakeSlack } from '../harness/fake-slack.js';
import { blockAction, slashCommand } from '../harness/payloads.js';
import { sweepForSecrets } from '../harness/secrets.js';
import { type AppResponse, postToSlackApp } from '../harness/signing.js';
import { until } from './support.js';

let replies = 0;

/** The app's request URL, or how to deliver a body to it otherwise (a Socket Mode envelope). */
export type AppAddress = string | ((body: string) => Promise<AppResponse>);

function deliver(to: AppAddress, body: string): Promise<AppResponse> {
  return typeof to === 'string' ? postToSlackApp(to, SIGNING_SECRET, body) : to(body);
}

/** `/voice numbers buy NUMBER` to the app; resolves with the confirmation id it answered with. */
export async function askToBuy(slack: FakeSlack, app: AppAddress, number: string): Promise<string> {
  const id = `process-ask-${++replies}`;
  const body = slashCommand({ text: `numbers buy ${number}`, userId: OPERATOR, responseUrl: slack.respondUrl(id) });
  expect((await deliver(app, body)).status).toBe(200);
  const prompt = await slack.waitFor(RESPONSE_URL, (call) => call.responseUrlId === id);
  return onlyButton((prompt.body.blocks ?? []) as Block[], ACTION.confirmChange);
}

/** Presses Confirm; returns the response_url id its answers go to. */
export async function pressConfirm(slack: FakeSlack, app: AppAddress, confirmationId: string): Promise<string> {
  const id = `process-confirm-${++replies}`;
  const body = blockAction({
    userId: OPERATOR,
    actionId: ACTION.confirmChange,
    value: confirmationId,
    container: EPHEMERAL,
    responseUrl: slack.respondUrl(id),
  });
  expect((await deliver(app, body)).status).toBe(200);
  return id;
}

/** Waits until `count` more requests than `before` have reached the sandbox's `route`. */
export function reached(sandbox: Sandbox, route: RouteName, before: number, count = 1): Promise<number> {
  return until(
    () => sandbox.requestCount(route) - before,
    (sent) => sent >= count,
    `${count} ${route} request(s) to reach the provider`,
  );
}

/**
 * A buy asked for and confirmed through `app`, held by the provider (its `hold` fault, once): resolves once the
 * provider has the request, with the number, the response_url id the answers go to, and the buys counted before it.
 */
export async function buyHeldAtProvider(
  bed: { slack: FakeSlack; sandbox: Sandbox },
  app: AppAddress,
  number: string,
): Promise<{ answers: string; buys: number }> {
  const confirmationId = await askToBuy(bed.slack, app, number);
  bed.sandbox.faults.inject('buyNumber', { type: 'hold' }, { times: 1 });
  const buys = bed.sandbox.requestCount('buyNumber');
  const answers = await pressConfirm(bed.slack, app, confirmationId);
  await reached(bed.sandbox, 'buyNumber', buys);
  return { answers, buys };
}

/** A bulk command's plan, as the app answered it on the command's response_url. */
export async function planOf(slack: FakeSlack, app: AppAddress, text: string): Promise<SlackCall> {
  const id = `process-plan-${++replies}`;
  const body = slashCommand({ text, userId: OPERATOR, responseUrl: slack.respondUrl(id) });
  expect((await deliver(app, body)).status).toBe(200);
  return slack.waitFor(RESPONSE_URL, (call) => call.responseUrlId === id && shownText(call).includes('Plan'));
}

/** Presses a plan's Apply; returns the response_url id its answers go to. */
export async function pressApply(slack: FakeSlack, app: AppAddress, plan: SlackCall): Promise<string> {
  const id = `process-apply-${++replies}`;
  const body = blockAction({
    userId: OPERATOR,
    actionId: ACTION.confirmBatch,
    value: onlyButton((plan.body.blocks ?? []) as Block[], ACTION.confirmBatch),
    container: EPHEMERAL,
    responseUrl: slack.respondUrl(id),
  });
  expect((await deliver(app, body)).status).toBe(200);
  return id;
}

/** The answer after "Working on it" posted to the response_url with this id. */
export function outcome(slack: FakeSlack, responseUrlId: string): Promise<SlackCall> {
  return slack.waitFor(
    RESPONSE_URL,
    (call) => call.responseUrlId === responseUrlId && !shownText(call).includes(WORKING),
    { timeoutMs: 10_000 },
  );
}

/** Everything posted to the response_url with this id, as the user read it. */
export function answersTo(slack: FakeSlack, responseUrlId: string): string[] {
  return slack
    .calls(RESPONSE_URL)
    .filter((call) => call.responseUrlId === responseUrlId)
    .map(shownText);
}

/** Where a sandbox answers, and its key: a Sandbox of the test's, or the one embedded in an app's process. */
export type SandboxAddress = Pick<Sandbox, 'url' | 'apiKey'>;

/** A request to the sandbox as the provider's client makes it; its JSON answer. */
export async function providerCall(
  sandbox: SandboxAddress,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

async function voiceNumbersForSale(sandbox: SandboxAddress, region: string): Promise<string[]> {
  const { data } = await providerCall(sandbox, 'GET', `/list-available-numbers?region=${region}&limit=100`);
  return (data as { number: string; capabilities: string[] }[])
    .filter((entry) => entry.capabilities.includes('voice'))
    .map((entry) => entry.number);
}

export async function availableNumber(sandbox: SandboxAddress, region = 'AU'): Promise<string> {
  const [found] = await voiceNumbersForSale(sandbox, region);
  if (!found) throw new Error(`no ${region} voice number for sale`);
  return found;
}

/** Buys `count` voice numbers of `region` at the provider, behind the app's back, and creates an agent: its id. */
export async function numbersAndAgent(
  sandbox: Sandbox,
  region: string,
  count: number,
  agent: { name: string; language: string },
): Promise<string> {
  const numbers = (await voiceNumbersForSale(sandbox, region)).slice(0, count);
  if (numbers.length < count) throw new Error(`only ${numbers.length} ${region} voice numbers for sale, not ${count}`);
  for (const number of numbers) await providerCall(sandbox, 'POST', '/buy-phone-number', { number });
  return String((await providerCall(sandbox, 'POST', '/ai-agents', agent)).id);
}

export async function purchased(sandbox: Sandbox): Promise<string[]> {
  const { data } = await providerCall(sandbox, 'GET', '/purchased-phone-numbers');
  return (data as { number: string }[]).map((entry) => entry.number);
}

/**
 * Reads the database as a reader would after the process went, through the app's row schema, with SQLite's own
 * integrity check on a file ('ok' stands for Postgres, whose server checks its own).
 */
export async function inspectDatabase(database: TestDatabase) {
  const db = await database.sql();
  const integrity =
    database.target.kind === 'sqlite'
      ? (await db.get<{ integrity_check: string }>('PRAGMA integrity_check'))?.integrity_check
      : 'ok';
  const count = (await db.get<{ n: number }>('SELECT count(*) AS n FROM audit_events'))?.n ?? 0;
  const events = [];
  for await (const event of new AuditLog(db).since(new Date(0))) events.push(event);
  const confirmations = await db.all<{ id: string; state: string }>('SELECT id, state FROM confirmations');
  // What people's requests left: the settings the configuration wrote at start are in `events`, not in the trail.
  const trail = events
    .filter((event) => event.actorId !== CONFIGURATION.userId)
    .map((event) => `${event.action} ${event.outcome}`);
  return { integrity, count, events, trail, confirmations };
}

/** What the tests of the app's own process share: one fake Slack and one sandbox, a fresh database per test. */
export interface ProcessBed {
  slack: FakeSlack;
  sandbox: Sandbox;
  /** This test's directory, removed after it. */
  dir: string;
  /** This test's database, on this run's engine. */
  database: TestDatabase;
  /** Every process this test started, for the secrets sweep over all they wrote. */
  started: AppProcess[];
}

/**
 * Registers the hooks of a file whose tests start the app's process: after each test its processes are killed and
 * everything they logged, left in the database or posted is swept for `credentials` and the sandbox's key.
 */
export function useProcessBed(prefix: string, credentials: string[]): ProcessBed {
  const bed = { started: [] } as unknown as ProcessBed;
  beforeAll(async () => {
    bed.slack = await startFakeSlack();
    bed.sandbox = await startSandbox({ port: 0 });
  });
  beforeEach(async () => {
    bed.dir = await mkdtemp(join(tmpdir(), prefix));
    bed.database = await testDatabase(bed.dir);
    bed.started = [];
  });
  afterEach(async () => {
    killLeftovers();
    bed.sandbox.faults.clear();
    try {
      const logText = bed.started.map((app) => app.output()).join('');
      sweepForSecrets({
        slack: bed.slack,
        logText,
        databaseText: await bed.database.text(),
        credentials: [...credentials, bed.sandbox.apiKey],
      });
    } finally {
      await bed.database.remove();
      await rm(bed.dir, { recursive: true, force: true });
    }
  });
  afterAll(async () => {
    await bed.sandbox?.close();
    await bed.slack?.close();
  });
  return bed;
}

/** An app process serving Slack's requests, and its request URL. */
export type Replica = AppProcess & { eventsUrl: string };

/** `count` replicas of the app on the bed's database, Slack and sandbox, each once it is ready. */
export async function startReplicas(bed: ProcessBed, count: number, env: Record<string, string> = {}) {
  const started = Array.from({ length: count }, () => {
    const app = spawnApp({ via: 'node', env: { ...appEnvironment(bed.slack, bed.sandbox, bed.database.env), ...env } });
    bed.started.push(app);
    return app;
  });
  return Promise.all(
    started.map(async (app): Promise<Replica> => ({ ...app, eventsUrl: (await app.ready).eventsUrl })),
  );
}

/** A loopback port nothing listens on now, for a process whose address the test must know before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
