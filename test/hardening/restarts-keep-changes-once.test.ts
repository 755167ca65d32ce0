// The app process itself (`node dist/main.js`, what `npm start` runs), killed and restarted: a confirmation survives a
// SIGKILL between request and Confirm and then changes things once; the database stays whole; and a SIGTERM during a
// provider call lets the call finish, be audited and be reported before the process exits 0. Its logs are swept for
// secrets. (That a confirmation expires after 10 minutes, however long the app was down, is computed from its stored
// expires_at: proven in-process with the app's clock in test/e2e/confirmations.test.ts.)
import { afterEach, expect, it } from 'vitest';
import { shownText, WORKING } from '../e2e/support.js';
import { APP_TOKEN, BOT_TOKEN, SIGNING_SECRET } from '../harness/app.js';
import { type AppProcess, appEnvironment, atLeast, spawnApp } from '../harness/app-process.js';
import {
  answersTo,
  askToBuy,
  availableNumber,
  buyHeldAtProvider,
  inspectDatabase,
  outcome,
  pressConfirm,
  purchased,
  useProcessBed,
} from './process-support.js';
import { until } from './support.js';

const bed = useProcessBed('voice-ops-restart-', [BOT_TOKEN, APP_TOKEN, SIGNING_SECRET]);
afterEach(() => {
  const errors = bed.started.flatMap((app) => atLeast(app.entries(), 50));
  expect(errors, 'error lines in the logs').toEqual([]);
});

/** Starts the app from the build and waits until it is ready (in Socket Mode: connected). */
async function startApp(
  mode: 'HTTP' | 'Socket Mode' = 'HTTP',
  env: Record<string, string> = {},
): Promise<AppProcess & { eventsUrl: string }> {
  const socket: Record<string, string> = mode === 'Socket Mode' ? { SLACK_APP_TOKEN: APP_TOKEN } : {};
  const app = spawnApp({
    via: 'node',
    env: { ...appEnvironment(bed.slack, bed.sandbox, bed.database.env), ...socket, ...env },
  });
  bed.started.push(app);
  return { ...app, eventsUrl: (await app.ready).eventsUrl };
}

it('a confirmation survives a SIGKILL between request and Confirm, then buys once after the restart', async () => {
  const number = await availableNumber(bed.sandbox);
  const buys = bed.sandbox.requestCount('buyNumber');

  const first = await startApp();
  const confirmationId = await askToBuy(bed.slack, first.eventsUrl, number);
  first.child.kill('SIGKILL');
  expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

  const crashed = await inspectDatabase(bed.database);
  expect(crashed.integrity).toBe('ok');
  expect(crashed.events).toHaveLength(crashed.count);
  expect(crashed.trail).toEqual(['number.buy requested']);
  expect(crashed.confirmations).toEqual([{ id: confirmationId, state: 'pending' }]);

  const second = await startApp();
  const bought = shownText(await outcome(bed.slack, await pressConfirm(bed.slack, second.eventsUrl, confirmationId)));
  expect(bought).toContain(`Bought *${number}*`);
  const again = shownText(await outcome(bed.slack, await pressConfirm(bed.slack, second.eventsUrl, confirmationId)));
  expect(again).toContain('That confirmation was already used');

  expect(bed.sandbox.requestCount('buyNumber') - buys).toBe(1);
  expect((await purchased(bed.sandbox)).filter((entry) => entry === number)).toHaveLength(1);
  second.child.kill('SIGTERM');
  expect(await second.exited).toEqual({ code: 0, signal: null });
  const after = await inspectDatabase(bed.database);
  expect(after.integrity).toBe('ok');
  expect(after.trail).toEqual(['number.buy requested', 'number.buy confirmed', 'number.buy succeeded']);
});

it.each(['HTTP', 'Socket Mode'] as const)(
  'SIGTERM during a provider call (%s) lets the buy finish, be audited and reported, then exits 0',
  async (mode) => {
    const number = await availableNumber(bed.sandbox);
    // Patient with the provider and with its own stop, so that only the test ends the held buy.
    const app = await startApp(mode, { VOICE_API_TIMEOUT_MS: '60000', SHUTDOWN_TIMEOUT_MS: '60000' });
    let exited = false;
    void app.exited.then(() => {
      exited = true;
    });
    const to = mode === 'HTTP' ? app.eventsUrl : (body: string) => bed.slack.socketMode.deliver(body);
    // The provider holds the buy until the app has begun to stop: the signal comes while the call is under way.
    const { answers: confirmed, buys } = await buyHeldAtProvider(bed, to, number);
    app.child.kill('SIGTERM');
    await until(
      () => app.entries().some((entry) => entry.msg === 'stopping: finishing changes under way'),
      Boolean,
      'the app to begin its stop',
    );
    expect(exited, 'the process waits for the buy').toBe(false);
    expect(answersTo(bed.slack, confirmed)).toEqual([expect.stringContaining(WORKING)]);
    bed.sandbox.faults.clear();

    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(bed.sandbox.requestCount('buyNumber') - buys).toBe(1);
    expect((await purchased(bed.sandbox)).filter((entry) => entry === number)).toHaveLength(1);
    const { integrity, trail } = await inspectDatabase(bed.database);
    expect(integrity).toBe('ok');
    expect(trail).toEqual(['number.buy requested', 'number.buy confirmed', 'number.buy succeeded']);
    // The requester and the channel heard about it before the process went.
    expect(answersTo(bed.slack, confirmed)).toEqual([
      expect.stringContaining(WORKING),
      expect.stringContaining(`Bought *${number}*`),
    ]);
    expect(bed.slack.calls('chat.postMessage').some((call) => shownText(call).includes(number))).toBe(true);
  },
);
