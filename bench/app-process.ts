// An app under test, alone in its process so that its memory and CPU are its own: `voice` is Voice Ops as
// `startVoiceOps` of the compiled dist/ builds it (HTTP mode, a fresh temporary SQLite file unless BENCH_DATABASE_PATH
// names one, or the Postgres database at BENCH_DATABASE_URL when given; LOG_LEVEL from the environment), `bare` is a Bolt app of the same Bolt whose `/voice` listener only
// acknowledges: the floor. `bare-respond` acknowledges and then posts a one-line reply through Bolt's respond(): the
// floor of any app that answers every command.
//
// Environment: BENCH_SLACK_API_URL, BENCH_SIGNING_SECRET, BENCH_SANDBOX_URL and BENCH_SANDBOX_KEY (voice),
// BENCH_DATABASE_PATH and BENCH_DATABASE_URL (voice, optional), BENCH_LOG_LEVEL, BENCH_LOOP_MONITOR (off: none). Requests: `memory` (after
// a GC when run with --expose-gc), `cpu`, `loopDelay`, `stop`, and `profileStart`, `profileStop` (a V8 CPU profile of
// what ran between them).
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { App, LogLevel } from '@slack/bolt';
import { ADMIN, BOT_TOKEN, OPERATOR } from './constants.js';
import { cpuMs, serveParent } from './ipc.js';

export type AppKind = 'voice' | 'bare' | 'bare-respond';

export interface AppReady {
  kind: AppKind;
  /** `${url}/slack/events` is the request URL. */
  url: string;
  /** Time for startVoiceOps (or the bare app's start) to resolve, ms. */
  startMs: number;
  /** Time from this process's start to ready, as the process sees it (module loading included), ms. */
  sinceProcessStartMs: number;
}

export interface MemorySample {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  gc: boolean;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

const gc = (globalThis as { gc?: () => void }).gc;
const MEMORY_SETTLE_MS = 1000;

/**
 * rss after a full GC and a pause: V8 and the allocator hand freed pages back to the system a little after a
 * collection, and a sample taken at once swings by ±30 MB from one run to the next (the heap does not).
 */
async function memory(): Promise<MemorySample> {
  if (gc) {
    // Twice: the first pass may only promote what the second frees.
    gc();
    gc();
    await new Promise((resolve) => setTimeout(resolve, MEMORY_SETTLE_MS));
    gc();
  }
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  return { rss, heapUsed, heapTotal, external, gc: Boolean(gc) };
}

/**
 * Voice Ops as it ships: dist/, compiled by tsc, which `npm start` runs (the bench builds it first). Through tsx the
 * sources would pay a cost the shipped code does not: esbuild's keepNames, a call that names each function as it is
 * created, on every closure of every command.
 */
async function shippedVoiceOps() {
  const load = (module: string): Promise<unknown> => import(new URL(`../dist/${module}`, import.meta.url).href);
  const [config, log, server] = await Promise.all([load('config.js'), load('log.js'), load('server.js')]);
  return {
    ...(config as Pick<typeof import('../src/config.js'), 'parseConfig'>),
    ...(log as Pick<typeof import('../src/log.js'), 'createLogger'>),
    ...(server as Pick<typeof import('../src/server.js'), 'startVoiceOps'>),
  };
}

async function startVoice(): Promise<{ url: string; stop(): Promise<void> }> {
  const { parseConfig, createLogger, startVoiceOps } = await shippedVoiceOps();
  const dir = mkdtempSync(join(tmpdir(), 'voice-ops-bench-'));
  const config = parseConfig({
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: required('BENCH_SIGNING_SECRET'),
    SLACK_API_URL: required('BENCH_SLACK_API_URL'),
    PORT: '0',
    VOICE_API_BASE_URL: required('BENCH_SANDBOX_URL'),
    VOICE_API_KEY: required('BENCH_SANDBOX_KEY'),
    DATABASE_PATH: process.env.BENCH_DATABASE_PATH ?? join(dir, 'voice-ops.db'),
    DATABASE_URL: process.env.BENCH_DATABASE_URL,
    VOICE_ADMINS: ADMIN,
    VOICE_OPERATORS: OPERATOR,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  });
  const running = await startVoiceOps(config, { logger: createLogger(config.logLevel) });
  if (!running.url) throw new Error('startVoiceOps gave no URL: not in HTTP mode');
  return {
    url: running.url,
    stop: async () => {
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startBare(reply: boolean): Promise<{ url: string; stop(): Promise<void> }> {
  const app = new App({
    token: BOT_TOKEN,
    signingSecret: required('BENCH_SIGNING_SECRET'),
    logLevel: LogLevel.WARN,
    clientOptions: { slackApiUrl: required('BENCH_SLACK_API_URL') },
  });
  app.command('/voice', async ({ ack, respond }) => {
    await ack();
    if (reply) await respond({ response_type: 'ephemeral', text: 'ok' });
  });
  const server = (await app.start(0)) as Server;
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('the bare app has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    stop: async () => {
      await app.stop();
    },
  };
}

const kind = process.argv[2] as AppKind;
if (kind !== 'voice' && kind !== 'bare' && kind !== 'bare-respond') {
  throw new Error(`usage: app-process.ts voice|bare|bare-respond (not ${kind})`);
}

// How late the event loop runs timers: a stall of the loop delays every ack behind it. Its timer wakes an idle
// process 200 times a second, which costs it about 15 ms of CPU a second: BENCH_LOOP_MONITOR=off leaves it out where
// the app's CPU time is what is measured over long idle stretches (the batch, which reads the app's own gauges).
const monitored = process.env.BENCH_LOOP_MONITOR !== 'off';
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
if (monitored) loopDelay.enable();

export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/** Event-loop delay since the last call, ms. */
function takeLoopDelay(): LoopDelay {
  if (!monitored) throw new Error('this process runs without a loop-delay monitor (BENCH_LOOP_MONITOR=off)');
  const result = { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 };
  loopDelay.reset();
  return result;
}

/** V8's sampling profiler over the inspector, started and stopped on the parent's word: a profile of one run only. */
const profiler = (() => {
  const session = new Session();
  session.connect();
  return {
    start: async () => {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
    },
    stop: async () => (await session.post('Profiler.stop')).profile,
  };
})();

const startedAt = performance.now();
const app = kind === 'voice' ? await startVoice() : await startBare(kind === 'bare-respond');
const startMs = performance.now() - startedAt;

serveParent({ kind, url: app.url, startMs, sinceProcessStartMs: performance.now() } satisfies AppReady, (request) => {
  switch (request.op) {
    case 'memory':
      return memory();
    case 'cpu':
      return cpuMs();
    case 'loopDelay':
      return takeLoopDelay();
    case 'stop':
      return app.stop();
    case 'profileStart':
      return profiler.start();
    case 'profileStop':
      return profiler.stop();
    default:
      throw new Error(`unknown request ${request.op}`);
  }
});
