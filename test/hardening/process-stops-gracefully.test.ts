// The app's own process and every way out of it. Started exactly as the README says (`npm start`), SIGTERM or SIGINT
// to npm stops the app gracefully and leaves nothing behind. An unhandled rejection or an uncaught exception is one
// fatal log line, with no secret in it, then the same graceful stop and exit code 1. And a stop waits no longer than
// SHUTDOWN_TIMEOUT_MS: then it names what was still running and exits 1. The faults are made by a module loaded
// before the app (fixtures/fault-on-signal.ts), so the app's code is exactly what production runs.
import { describe, expect, it } from 'vitest';
import { WORKING } from '../e2e/support.js';
import { BOT_TOKEN, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import {
  type AppProcess,
  appEnvironment,
  atLeast,
  isAlive,
  type SpawnOptions,
  spawnApp,
} from '../harness/app-process.js';
import { answersTo, availableNumber, buyHeldAtProvider, inspectDatabase, useProcessBed } from './process-support.js';
import { until } from './support.js';

const FATAL = 60;
const ERROR = 50;
const FAULT_MODULE = './test/hardening/fixtures/fault-on-signal.ts';

const bed = useProcessBed('voice-ops-lifecycle-', [BOT_TOKEN, SIGNING_SECRET]);

async function startApp(options: Partial<SpawnOptions> & { env?: Record<string, string> } = {}) {
  const app = spawnApp({
    via: 'node',
    ...options,
    env: { ...appEnvironment(bed.slack, bed.sandbox, bed.database.env), ...options.env },
  });
  bed.started.push(app);
  return { ...app, ...(await app.ready) };
}

const messages = (app: AppProcess) => app.entries().map((entry) => entry.msg);

/** Patient with the provider and with its own stop: only the test, or a shorter SHUTDOWN_TIMEOUT_MS, ends a held buy. */
const PATIENT = { VOICE_API_TIMEOUT_MS: '60000', SHUTDOWN_TIMEOUT_MS: '60000' };

/**
 * Asks to buy a number and confirms, with the provider holding the buy until the faults are cleared; resolves once
 * it is there, with the number of buys the provider had seen before it.
 */
async function buyUnderWay(app: { eventsUrl: string }) {
  const number = await availableNumber(bed.sandbox);
  const { answers: confirmed, buys } = await buyHeldAtProvider(bed, app.eventsUrl, number);
  return { number, confirmed, buys };
}

/** Whether the process has exited, as of now. */
function watchExit(app: AppProcess): () => boolean {
  let exited = false;
  void app.exited.then(() => {
    exited = true;
  });
  return () => exited;
}

describe('`npm start`, as the README says', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'stops gracefully on %s to npm, and leaves no process behind',
    async (signal) => {
      const app = await startApp({ via: 'npm start' });
      expect(app.pid, 'the app runs in a process of its own, under npm').not.toBe(app.child.pid);

      app.child.kill(signal);

      expect(await app.exited).toEqual({ code: 0, signal: null });
      expect(isAlive(app.pid), 'the app process is gone').toBe(false);
      expect(app.entries()).toContainEqual(
        expect.objectContaining({ msg: 'stopping: finishing changes under way', signal }),
      );
      expect(messages(app).filter((msg) => msg === 'stopped')).toHaveLength(1);
      expect(atLeast(app.entries(), ERROR)).toEqual([]);
    },
  );
});

describe('an error nothing handled', () => {
  it('an unhandled rejection is one fatal line, then the change under way finishes and the process exits 1', async () => {
    const app = await startApp({
      nodeArgs: ['--import', 'tsx', '--import', FAULT_MODULE],
      env: { FAULT: 'rejection', ...PATIENT },
    });
    const exited = watchExit(app);
    const { number, confirmed, buys } = await buyUnderWay(app);

    // The rejection comes while the provider holds the buy, which it lets go once the app has begun to stop.
    process.kill(app.pid, 'SIGUSR2');
    await until(
      () => atLeast(app.entries(), FATAL).length,
      (lines) => lines > 0,
      'the fatal line',
    );
    expect(exited(), 'the process waits for the buy').toBe(false);
    expect(answersTo(bed.slack, confirmed)).toEqual([expect.stringContaining(WORKING)]);
    bed.sandbox.faults.clear();

    expect(await app.exited).toEqual({ code: 1, signal: null });
    expect(bed.sandbox.requestCount('buyNumber') - buys, 'bought once').toBe(1);
    const fatal = atLeast(app.entries(), FATAL);
    expect(fatal).toEqual([
      expect.objectContaining({
        msg: 'Voice Ops cannot go on (unhandled promise rejection): stopping',
        err: expect.objectContaining({ message: 'lost while holding [redacted] and [redacted]' }),
      }),
    ]);
    // The graceful stop: the buy was finished, audited and reported before the process went.
    expect(messages(app)).toContain('stopped');
    expect((await inspectDatabase(bed.database)).trail).toEqual([
      'number.buy requested',
      'number.buy confirmed',
      'number.buy succeeded',
    ]);
    expect(answersTo(bed.slack, confirmed)).toEqual([
      expect.stringContaining(WORKING),
      expect.stringContaining(`Bought *${number}*`),
    ]);
  });

  it('an uncaught exception is one fatal line, then a graceful stop and exit code 1', async () => {
    const app = await startApp({
      nodeArgs: ['--import', 'tsx', '--import', FAULT_MODULE],
      env: { FAULT: 'exception' },
    });

    process.kill(app.pid, 'SIGUSR2');

    expect(await app.exited).toEqual({ code: 1, signal: null });
    expect(atLeast(app.entries(), FATAL)).toEqual([
      expect.objectContaining({
        msg: 'Voice Ops cannot go on (uncaught exception): stopping',
        err: expect.objectContaining({ message: 'lost while holding [redacted] and [redacted]' }),
      }),
    ]);
    expect(messages(app)).toContain('stopped');
  });
});

describe('SHUTDOWN_TIMEOUT_MS', () => {
  it('bounds the stop: what is still running is named, and the process exits 1', async () => {
    // The provider holds the buy for the rest of the test, and the app would wait for it far longer than its stop.
    const app = await startApp({ env: { ...PATIENT, SHUTDOWN_TIMEOUT_MS: '300' } });
    const { number } = await buyUnderWay(app);

    app.child.kill('SIGTERM');

    expect(await app.exited).toEqual({ code: 1, signal: null });
    expect(atLeast(app.entries(), ERROR)).toEqual([
      expect.objectContaining({
        msg: 'SHUTDOWN_TIMEOUT_MS (300 ms) passed with work still running: exiting without it',
        changes: [expect.stringMatching(new RegExp(`^number\\.buy \\${number} by ${OPERATOR} correlation \\S+$`))],
        deliveries: [`block_actions confirm_change from ${OPERATOR}`],
      }),
    ]);
    expect(messages(app)).not.toContain('stopped');
  });
});
