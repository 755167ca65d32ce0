// The app in its own process, the way it runs for real: started as the README says (`npm start`) or straight from the
// build (`node dist/main.js`, what `npm start` execs), against the fake Slack and a sandbox of the test's own, with
// every line it wrote kept for the test. test/global-setup.ts brings dist/ up to date before any test file runs.
// The harness hands out the ports: PORT is 0 unless a test names one, and a process that listens on any port the
// system did not choose for it, or the test did not name, is not let through as ready.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sandbox } from '../../src/sandbox/server.js';
import { BOT_TOKEN, NOTIFY_CHANNEL, OPERATOR, SIGNING_SECRET } from './app.js';
import type { FakeSlack } from './fake-slack.js';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export type LogEntry = Record<string, unknown>;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Ready {
  /** The app's request URL. */
  eventsUrl: string;
  /** The pid of the node process running the app, from its log: npm's child when started with `npm start`. */
  pid: number;
}

export interface AppProcess {
  /** The process spawned: npm, or node itself. */
  child: ChildProcess;
  /** Resolves once the app logs that it is ready; rejects, with what it wrote, when it exits before. */
  ready: Promise<Ready>;
  exited: Promise<Exit>;
  /** Everything it wrote, stdout and stderr. */
  output(): string;
  /** Its JSON log lines. */
  entries(): LogEntry[];
}

export interface SpawnOptions {
  /** `npm start` as the README says, or `node` with `nodeArgs` before `dist/main.js`. */
  via: 'npm start' | 'node';
  env: Record<string, string>;
  nodeArgs?: string[];
  /** The checkout to run from, and the working directory; default the one under test. */
  cwd?: string;
  /**
   * File modes bind the process even when the tests run as root: it keeps root's identity, and with it the checkout,
   * but loses the capabilities that let root ignore modes (through setpriv, from util-linux).
   */
  fileModesApply?: boolean;
  /**
   * Runs the process with its clock moved by this many seconds (either way), through libfaketime, as a host whose
   * clock drifted would run it.
   */
  clockOffsetS?: number;
}

/** Every process a test started and has not seen exit, and the app processes they ran (npm may leave one behind). */
const running = new Set<ChildProcess>();
const appPids = new Set<number>();

/**
 * The environment of an app that talks to `slack` and `sandbox` and keeps its records where `database` says (a SQLite
 * file's path, or the variables of a TestDatabase). Leases last 3 s, so that a process started after one was killed
 * takes over the background work and the killed process's changes within seconds.
 */
export function appEnvironment(
  slack: FakeSlack,
  sandbox: Sandbox,
  database: string | Record<string, string>,
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    VOICE_API_BASE_URL: sandbox.url,
    VOICE_API_KEY: sandbox.apiKey,
    VOICE_API_TIMEOUT_MS: '5000',
    ...(typeof database === 'string' ? { DATABASE_PATH: database } : database),
    LEASE_TTL_S: '3',
    NOTIFY_CHANNEL_ID: NOTIFY_CHANNEL,
    VOICE_OPERATORS: OPERATOR,
    LOG_LEVEL: 'debug',
  };
}

const checkoutOf = (options: SpawnOptions) => options.cwd ?? REPO;

const SETPRIV = '/usr/bin/setpriv';
/**
 * libfaketime itself, preloaded into the app rather than through the `faketime` wrapper. Either names a semaphore and
 * a shared memory object after the process's pid, which a process killed by a test leaves behind; a later process of
 * the same pid then fails to start ("sem_open: File exists"). So those of processes no longer running are removed
 * before a clock is moved (see sweepFaketime).
 */
const LIBFAKETIME = [`/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/faketime/libfaketime.so.1`]
  .concat('/usr/lib/faketime/libfaketime.so.1')
  .find((path) => existsSync(path));
/** Why a test that moves the app's clock cannot run here, if it cannot. */
export const FAKETIME_MISSING = LIBFAKETIME
  ? undefined
  : "Moving the app's clock needs libfaketime (apt-get install faketime).";
/** Capabilities that let root read, write and search whatever the file modes say. */
const MODE_OVERRIDES = '-dac_override,-dac_read_search';

/** The command line to spawn: the app as asked, and as root without its power over file modes when asked. */
function commandLine(options: SpawnOptions): [string, string[]] {
  const [command, args]: [string, string[]] =
    options.via === 'npm start'
      ? ['npm', ['start']]
      : [process.execPath, [...(options.nodeArgs ?? []), join(checkoutOf(options), 'dist', 'main.js')]];
  if (!options.fileModesApply || process.getuid?.() !== 0) return [command, args];
  if (!existsSync(SETPRIV)) {
    throw new Error(
      `This test runs the app as root without the power to ignore file modes, which needs ${SETPRIV} (util-linux).`,
    );
  }
  return [SETPRIV, [`--inh-caps=${MODE_OVERRIDES}`, `--bounding-set=${MODE_OVERRIDES}`, '--', command, ...args]];
}

/** The variables that move the process's clock by `offsetS` seconds, either way. */
function movedClock(offsetS: number): Record<string, string> {
  if (!LIBFAKETIME) throw new Error(FAKETIME_MISSING);
  sweepFaketime();
  return { LD_PRELOAD: LIBFAKETIME, FAKETIME: `${offsetS >= 0 ? '+' : ''}${offsetS}s` };
}

const SHARED_MEMORY = '/dev/shm';
const FAKETIME_OBJECT = /^(?:sem\.faketime_sem|faketime_shm)_(\d+)$/;

/** Removes the semaphores and shared memory libfaketime left for processes that no longer run. */
function sweepFaketime(): void {
  if (!existsSync(SHARED_MEMORY)) return;
  for (const name of readdirSync(SHARED_MEMORY)) {
    const pid = FAKETIME_OBJECT.exec(name)?.[1];
    if (pid && !existsSync(`/proc/${pid}`)) rmSync(join(SHARED_MEMORY, name), { force: true });
  }
}

export function spawnApp(options: SpawnOptions): AppProcess {
  const env = {
    PATH: process.env.PATH ?? '',
    PORT: '0',
    ...options.env,
    ...(options.clockOffsetS === undefined ? {} : movedClock(options.clockOffsetS)),
  };
  const [command, args] = commandLine(options);
  const child = spawn(command, args, { cwd: checkoutOf(options), env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const written: string[] = [];
  const logged: LogEntry[] = [];
  let partial = '';
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  child.stderr?.on('data', (chunk: Buffer) => written.push(chunk.toString()));
  const ready = new Promise<Ready>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      written.push(chunk.toString());
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const entry of lines.flatMap(parseEntry)) {
        logged.push(entry);
        if (entry.msg !== 'Voice Ops is ready') continue;
        const pid = Number(entry.pid);
        appPids.add(pid);
        const stray = portsNotGiven(pid, givenPorts(env));
        if (stray.length > 0) {
          reject(new Error(`the app listens on port ${stray.join(', ')}, which the harness did not give it`));
        } else resolve({ eventsUrl: `${String(entry.url)}/slack/events`, pid });
      }
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`the app exited (${code ?? signal}) before it was ready:\n${written.join('')}`)),
    );
  });
  // A test that expects no ready line (a start that must fail) need not handle this rejection.
  ready.catch(() => undefined);
  return { child, ready, exited, output: () => written.join(''), entries: () => [...logged] };
}

/** Kills whatever a test left running: the app processes (npm would not pass a SIGKILL on), then the rest. */
export function killLeftovers(): void {
  for (const pid of appPids) if (runsTheApp(pid)) process.kill(pid, 'SIGKILL');
  for (const child of running) child.kill('SIGKILL');
  appPids.clear();
  running.clear();
}

/** The ports an environment names, other than 0 (which asks the system for one). */
function givenPorts(env: Record<string, string>): number[] {
  return [env.PORT, env.SANDBOX_PORT, env.METRICS_PORT]
    .map(Number)
    .filter((port) => Number.isInteger(port) && port > 0);
}

/** The system's range for ports it picks for a listen on port 0. */
function ephemeralRange(): [number, number] {
  const [low = 32768, high = 60999] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
    .trim()
    .split(/\s+/)
    .map(Number);
  return [low, high];
}

/** The TCP ports the process `pid` listens on, from its sockets and the kernel's socket tables. */
export function listeningPorts(pid: number): number[] {
  const sockets = new Set(
    readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        return inode ? [inode] : [];
      } catch {
        return []; // closed while being read
      }
    }),
  );
  const LISTEN = '0A';
  const ports = ['tcp', 'tcp6'].flatMap((table) =>
    readFileSync(`/proc/${pid}/net/${table}`, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[3] === LISTEN && sockets.has(fields[9] ?? ''))
      .map((fields) => Number.parseInt(fields[1]?.split(':')[1] ?? '', 16)),
  );
  return [...new Set(ports)].sort((a, b) => a - b);
}

/** The ports `pid` listens on that are neither in `given` nor ones the system picked (a fixed default, say). */
export function portsNotGiven(pid: number, given: number[]): number[] {
  const [low, high] = ephemeralRange();
  return listeningPorts(pid).filter((port) => !given.includes(port) && (port < low || port > high));
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** Checked before a kill, so that a pid the system has since given to another process is left alone. */
function runsTheApp(pid: number): boolean {
  try {
    return /dist\/main\.js|scripts\/start\.mjs/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return false;
  }
}

function parseEntry(line: string): LogEntry[] {
  if (!line.startsWith('{')) return [];
  try {
    const parsed: unknown = JSON.parse(line);
    return typeof parsed === 'object' && parsed !== null ? [parsed as LogEntry] : [];
  } catch {
    return [];
  }
}

/** The log lines at level `level` (pino's numbers: 50 error, 60 fatal) and above. */
export function atLeast(entries: LogEntry[], level: number): LogEntry[] {
  return entries.filter((entry) => Number(entry.level) >= level);
}
