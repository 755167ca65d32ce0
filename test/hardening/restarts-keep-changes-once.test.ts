// The app process itself (`node dist/main.js`, what `npm start` runs), killed and restarted: a confirmation survives a
// SIGKILL between request and Confirm and then changes things once; the database stays whole; and a SIGTERM during a
// provider call lets the call finish, be audited and be reported before the process exits 0. Its logs are swept for
// secrets. (That a confirmation expires after 10 minutes, however long the app was down, is computed from its stored
// expires_at: proven in-process with the app's clock in test/e2e/confirmations.test.ts.)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { shownText, WORKING } from '../e2e/support.js';
import { APP_TOKEN, BOT_TOKEN, SIGNING_SECRET } from '../harness/app.js';
import { type AppProcess, appEnvironment, atLeast, killLeftovers, spawnApp } from '../harness/app-process.js';
import { type FakeSlack, startFakeSlack } from '../harness/fake-slack.js';
import { sweepForSecrets } from '../harness/secrets.js';
import {
  answersTo,
  askToBuy,
  availableNumber,
  inspectDatabase,
  outcome,
  pressConfirm,
  purchased,
} from './process-support.js';
import { until } from './support.js';

let slack: FakeSlack;
let sandbox: Sandbox;
let dir: string;
let dbPath: string;
/** Every process the test started, for the secrets sweep over all they wrote. */
let started: AppProcess[];

beforeAll(async () => {
  slack = await startFakeSlack();
  sandbox = await startSandbox({ port: 0 });
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'voice-ops-restart-'));
  dbPath = join(dir, 'voice-ops.db');
  started = [];
});
afterEach(async () => {
  killLeftovers();
  sandbox.faults.clear();
  try {
    // Every line the processes logged, the database they left and what they posted: no secret anywhere.
    const logText = started.map((app) => app.output()).join('');
    sweepForSecrets({ slack, logText, dbPath, credentials: [BOT_TOKEN, APP_TOKEN, SIGNING_SECRET, sandbox.apiKey] });
    const errors = started.flatMap((app) => atLeast(app.entries(), 50));
    expect(errors, 'error lines in the logs').toEqual([]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
afterAll(async () => {
  await sandbox?.close();
  await slack?.close();
});

/** Starts the app from the build and waits until it is ready (in Socket Mode: connected). */
async function startApp(mode: 'HTTP' | 'Socket Mode' = 'HTTP'): Promise<AppProcess & { eventsUrl: string }> {
  const socket: Record<string, string> = mode === 'Socket Mode' ? { SLACK_APP_TOKEN: APP_TOKEN } : {};
  const app = spawnApp({ via: 'node', env: { ...appEnvironment(slack, sandbox, dbPath), ...socket } });
  started.push(app);
  return { ...app, eventsUrl: (await app.ready).eventsUrl };
}

it('a confirmation survives a SIGKILL between request and Confirm, then buys once after the restart', async () => {
  const number = await availableNumber(sandbox);
  const buys = sandbox.requestCount('buyNumber');

  const first = await startApp();
  const confirmationId = await askToBuy(slack, first.eventsUrl, number);
  first.child.kill('SIGKILL');
  expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

  const crashed = inspectDatabase(dbPath);
  expect(crashed.integrity).toBe('ok');
  expect(crashed.events).toHaveLength(crashed.count);
  expect(crashed.trail).toEqual(['number.buy requested']);
  expect(crashed.confirmations).toEqual([{ id: confirmationId, state: 'pending' }]);

  const second = await startApp();
  const bought = shownText(await outcome(slack, await pressConfirm(slack, second.eventsUrl, confirmationId)));
  expect(bought).toContain(`Bought *${number}*`);
  const again = shownText(await outcome(slack, await pressConfirm(slack, second.eventsUrl, confirmationId)));
  expect(again).toContain('That confirmation was already used');

  expect(sandbox.requestCount('buyNumber') - buys).toBe(1);
  expect((await purchased(sandbox)).filter((entry) => entry === number)).toHaveLength(1);
  second.child.kill('SIGTERM');
  expect(await second.exited).toEqual({ code: 0, signal: null });
  const after = inspectDatabase(dbPath);
  expect(after.integrity).toBe('ok');
  expect(after.trail).toEqual(['number.buy requested', 'number.buy confirmed', 'number.buy succeeded']);
});

it.each(['HTTP', 'Socket Mode'] as const)(
  'SIGTERM during a provider call (%s) lets the buy finish, be audited and reported, then exits 0',
  async (mode) => {
    const number = await availableNumber(sandbox);
    const app = await startApp(mode);
    const to = mode === 'HTTP' ? app.eventsUrl : (body: string) => slack.socketMode.deliver(body);
    const confirmationId = await askToBuy(slack, to, number);
    const buys = sandbox.requestCount('buyNumber');
    sandbox.faults.inject('buyNumber', { type: 'delay', ms: 1500 }, { times: 1 });

    const confirmed = await pressConfirm(slack, to, confirmationId);
    await until(
      () => sandbox.requestCount('buyNumber'),
      (count) => count > buys,
      'the buy to reach the provider',
    );
    app.child.kill('SIGTERM');

    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(await purchased(sandbox)).toContain(number);
    const { integrity, trail } = inspectDatabase(dbPath);
    expect(integrity).toBe('ok');
    expect(trail).toEqual(['number.buy requested', 'number.buy confirmed', 'number.buy succeeded']);
    // The requester and the channel heard about it before the process went.
    expect(answersTo(slack, confirmed)).toEqual([
      expect.stringContaining(WORKING),
      expect.stringContaining(`Bought *${number}*`),
    ]);
    expect(slack.calls('chat.postMessage').some((call) => shownText(call).includes(number))).toBe(true);
  },
);
