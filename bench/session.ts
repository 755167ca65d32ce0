// What every measurement shares: the stub process (fake Slack + sandbox), the apps under test, and the
// load driver wired to them, plus the wait for the app's work after the acks to land at the fake.
import type { AppKind, AppReady, LoopDelay } from './app-process.js';
import { ADMIN, SIGNING_SECRET } from './constants.js';
import type { Child } from './ipc.js';
import { type LoadResult, runLoad } from './load.js';
import { runPaced } from './paced.js';
import { sleep } from './stats.js';
import type { StubCounts, StubsReady } from './stubs-process.js';

export interface Session {
  stubs: Child<StubsReady>;
  apps: Record<AppKind, Child<AppReady>>;
  /** Voice Ops on a Postgres database, when Postgres is installed. */
  voicePostgres?: Child<AppReady>;
}

export interface DriveOptions {
  kind: AppKind;
  /** The process to drive, when not the session's app of this kind (the Voice Ops on each engine, bench/engines.ts). */
  app?: Child<AppReady>;
  text: string;
  connections: number;
  seconds?: number;
  warmupSeconds?: number;
  amount?: number;
  /** Open loop: commands at this steady rate (bench/paced.ts) instead of autocannon's closed loop. */
  rate?: number;
  repeatTriggerId?: boolean;
}

export interface Driven extends LoadResult {
  kind: AppKind;
  text: string;
  /** CPU time the app's process spent per acknowledged command, including the work after the ack, ms. */
  appCpuMsPerCommand: number;
  /** The same for the stub process (fake Slack + sandbox), which shares the machine's two cores. */
  stubsCpuMsPerCommand: number;
  /** Replies that reached the person for this run's commands: response_url posts, and replies carried in acks. */
  delivered: number;
  /** Time after the last ack until the app's posts stopped arriving, ms. */
  settleMs: number;
  /** How late the app's event loop ran timers during the load, ms. */
  appLoopDelay: LoopDelay;
}

/** Runs one load, then waits until the app's posts after the acks have landed, so the next run starts quiet. */
export async function drive(session: Session, options: DriveOptions): Promise<Driven> {
  const app = options.app ?? session.apps[options.kind];
  const before = await session.stubs.request<StubCounts>({ op: 'responses' });
  const cpuBefore = await app.request<number>({ op: 'cpu' });
  await app.request<LoopDelay>({ op: 'loopDelay' });
  const load = {
    url: app.ready.url,
    connections: options.connections,
    seconds: options.seconds,
    warmupSeconds: options.warmupSeconds,
    amount: options.amount,
    text: options.text,
    userId: ADMIN,
    responseUrl: session.stubs.ready.responseUrl,
    signingSecret: SIGNING_SECRET,
    repeatTriggerId: options.repeatTriggerId,
  };
  const result = options.rate === undefined ? await runLoad(load) : await runPaced({ ...load, rate: options.rate });
  const appLoopDelay = await app.request<LoopDelay>({ op: 'loopDelay' });
  // The bare app posts nothing; repeats are dropped, so only the first command of the run answers; a reply carried
  // in its ack is not posted.
  const answered = options.repeatTriggerId ? Math.min(1, result.okTotal) : result.okTotal;
  const expected = options.kind === 'bare' ? 0 : answered - result.answeredInAck;
  const settled = await settle(session, before.responses, expected);
  const cpuAfter = await app.request<number>({ op: 'cpu' });
  const perCommand = (ms: number) => (result.okTotal > 0 ? ms / result.okTotal : Number.NaN);
  return {
    ...result,
    kind: options.kind,
    text: options.text,
    appCpuMsPerCommand: perCommand(cpuAfter - cpuBefore),
    stubsCpuMsPerCommand: perCommand(settled.counts.cpuMs - before.cpuMs),
    delivered: settled.counts.responses - before.responses + result.answeredInAck,
    settleMs: settled.ms,
    appLoopDelay,
  };
}

/**
 * Waits until at least `expected` response_url posts arrived since `before` and no more arrive for a moment
 * (a run cut off by its duration may leave a few commands that were received but not counted as answered).
 */
async function settle(session: Session, before: number, expected: number, timeoutMs = 30_000) {
  const started = performance.now();
  let last = await session.stubs.request<StubCounts>({ op: 'responses' });
  let quietSince = performance.now();
  while (performance.now() - started < timeoutMs) {
    await sleep(100);
    const now = await session.stubs.request<StubCounts>({ op: 'responses' });
    if (now.responses !== last.responses) quietSince = performance.now();
    last = now;
    if (now.responses - before >= expected && performance.now() - quietSince >= 300) break;
  }
  return { counts: last, ms: Math.max(0, quietSince - started) };
}
