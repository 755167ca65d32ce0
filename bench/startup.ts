// Start-up time to ready, two ways:
// - in-process: startVoiceOps resolving (fresh temporary database; modules already loaded), what a restart of the
//   composition root costs;
// - a new process from spawn until its "Voice Ops is ready" log line, on the embedded sandbox (no
//   VOICE_API_BASE_URL): `npm start` as the README says (npm, then the build's freshness check and dist/main.js in
//   one process), and `node dist/main.js` alone.
// `node -e 0` is timed as the floor of any new process.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startVoiceOps } from '../src/server.js';
import { ADMIN, BOT_TOKEN, OPERATOR, SIGNING_SECRET } from './constants.js';
import { REPO_ROOT } from './ipc.js';
import { type Distribution, distribution } from './stats.js';

export interface StartupResult {
  startVoiceOps: Distribution;
  /** The first startVoiceOps in the app-under-test's own process (its modules just loaded). */
  startVoiceOpsInFreshProcess: number;
  /** The app-under-test's process from its start to ready, as it measured itself (module loading included). */
  appProcessToReady: number;
  npmStart: Distribution;
  nodeDist: Distribution;
  nodeFloor: Distribution;
}

const READY_LINE = 'Voice Ops is ready';

/** Spawns a process and resolves with the ms until `readyWhen` matches a stdout line (or it exits, for no match). */
function timeProcess(
  [command, ...args]: [string, ...string[]],
  env: Record<string, string>,
  readyWhen?: string,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let readyAt: number | undefined;
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (readyWhen !== undefined && readyAt === undefined && output.includes(readyWhen)) {
        readyAt = performance.now() - started;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('exit', () => {
      clearTimeout(timer);
      const ms = readyWhen === undefined ? performance.now() - started : readyAt;
      if (ms === undefined) reject(new Error(`no "${readyWhen}" line; the process wrote:\n${output.slice(0, 2000)}`));
      else resolve(ms);
    });
  });
}

/** The environment of a started app: nothing of this process's but what node itself needs. */
function baseEnvironment(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG'];
  return Object.fromEntries(keep.flatMap((key) => (process.env[key] ? [[key, process.env[key] as string]] : [])));
}

export async function measureStartup(options: {
  slackApiUrl: string;
  sandboxUrl: string;
  sandboxKey: string;
  appReady: { startMs: number; sinceProcessStartMs: number };
  runs: number;
}): Promise<StartupResult> {
  const dirs: string[] = [];
  const freshDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'voice-ops-bench-start-'));
    dirs.push(dir);
    return dir;
  };
  try {
    const inProcess: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      const config = parseConfig({
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: options.slackApiUrl,
        PORT: '0',
        VOICE_API_BASE_URL: options.sandboxUrl,
        VOICE_API_KEY: options.sandboxKey,
        DATABASE_PATH: join(freshDir(), 'voice-ops.db'),
        VOICE_ADMINS: ADMIN,
        VOICE_OPERATORS: OPERATOR,
        LOG_LEVEL: 'silent',
      });
      const started = performance.now();
      const running = await startVoiceOps(config, { logger: createLogger(config.logLevel) });
      inProcess.push(performance.now() - started);
      await running.stop();
    }

    const appEnv = () => ({
      ...baseEnvironment(),
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: options.slackApiUrl,
      PORT: '0',
      DATABASE_PATH: join(freshDir(), 'voice-ops.db'),
      VOICE_ADMINS: ADMIN,
      LOG_LEVEL: 'info',
    });
    const npmStart: [string, ...string[]] = ['npm', 'start'];
    const nodeDist: [string, ...string[]] = [process.execPath, 'dist/main.js'];
    await timeProcess(npmStart, appEnv(), READY_LINE); // builds dist/ first if a source changed since
    const viaNpm: number[] = [];
    const viaNode: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < options.runs; i++) viaNpm.push(await timeProcess(npmStart, appEnv(), READY_LINE));
    for (let i = 0; i < options.runs; i++) viaNode.push(await timeProcess(nodeDist, appEnv(), READY_LINE));
    for (let i = 0; i < options.runs; i++) {
      floor.push(await timeProcess([process.execPath, '-e', '0'], baseEnvironment()));
    }

    return {
      startVoiceOps: distribution(inProcess),
      startVoiceOpsInFreshProcess: options.appReady.startMs,
      appProcessToReady: options.appReady.sinceProcessStartMs,
      npmStart: distribution(viaNpm),
      nodeDist: distribution(viaNode),
      nodeFloor: distribution(floor),
    };
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}
