// The harness that starts the app's own process keeps the suite independent of the machine it runs on: the app gets
// its ports from the system unless a test names one (a server already on 3000 is no one's problem), a process that
// listens on a port nobody gave it is caught, and a test that needs file modes to bind root still runs from a checkout
// in a private folder.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { APP_TOKEN } from './app.js';
import {
  appEnvironment,
  atLeast,
  killLeftovers,
  listeningPorts,
  portsNotGiven,
  REPO,
  spawnApp,
} from './app-process.js';
import { type FakeSlack, startFakeSlack } from './fake-slack.js';

const DEFAULT_PORT = 3000;

let slack: FakeSlack;
let sandbox: Sandbox;
const dirs: string[] = [];
const others: ChildProcess[] = [];

beforeAll(async () => {
  slack = await startFakeSlack();
  sandbox = await startSandbox({ port: 0 });
});
afterEach(async () => {
  killLeftovers();
  for (const child of others.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
afterAll(async () => {
  await sandbox?.close();
  await slack?.close();
});

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voice-ops-harness-'));
  dirs.push(dir);
  return dir;
}

/** Listens on `port` on every address, as the app's default would; undefined when something already does. */
async function occupy(port: number): Promise<Server | undefined> {
  const server = createServer();
  try {
    server.listen(port);
    await once(server, 'listening');
    return server;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return undefined;
    throw error;
  }
}

describe('ports', () => {
  it("gives the app a port from the system when the test names none, so a server on the default port is no one's problem", async () => {
    const taken = await occupy(DEFAULT_PORT);
    try {
      const env = appEnvironment(slack, sandbox, join(await freshDir(), 'voice-ops.db'));
      // Socket Mode, as the revoked-token tests run it: the health server is the only one, on PORT.
      const app = spawnApp({ via: 'node', env: { ...env, SLACK_APP_TOKEN: APP_TOKEN } });
      const { pid } = await app.ready;
      const ports = listeningPorts(pid);
      expect(ports.length, app.output()).toBeGreaterThan(0);
      expect(ports).not.toContain(DEFAULT_PORT);
      expect(portsNotGiven(pid, [])).toEqual([]);
    } finally {
      taken?.close();
    }
  });

  it('catches a process that listens on a port neither the system nor the test chose', async () => {
    const port = await freeFixedPort();
    const child = spawn(
      process.execPath,
      ['-e', `require('node:net').createServer().listen(${port}, '127.0.0.1', () => console.log('up'))`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    others.push(child);
    await once(child.stdout, 'data');
    const pid = child.pid ?? 0;

    expect(listeningPorts(pid)).toEqual([port]);
    expect(portsNotGiven(pid, [])).toEqual([port]);
    expect(portsNotGiven(pid, [port]), 'a port the test named is given').toEqual([]);
  });
});

describe('file modes', () => {
  it('bind the app even as root, which still starts from a checkout inside a private (0700) folder', async () => {
    const hidden = await freshDir();
    await chmod(hidden, 0o700);
    const checkout = join(hidden, 'checkout');
    await symlink(REPO, checkout);
    const data = join(await freshDir(), 'data');
    await mkdir(data, { mode: 0o555 });
    const dbPath = join(data, 'new', 'voice-ops.db');

    const app = spawnApp({
      via: 'node',
      cwd: checkout,
      env: appEnvironment(slack, sandbox, dbPath),
      fileModesApply: true,
    });
    const exit = await app.exited;

    // It ran (its log says so) and the read-only folder stopped it, root or not.
    expect(exit, app.output()).toEqual({ code: 1, signal: null });
    expect(atLeast(app.entries(), 60), app.output()).toEqual([
      expect.objectContaining({ msg: expect.stringContaining(`The database ${dbPath} cannot be opened or created`) }),
    ]);
  });
});

/** A port outside the system's range for port 0 that nothing listens on now. */
async function freeFixedPort(): Promise<number> {
  for (let port = 20_000; port < 20_200; port++) {
    const server = await occupy(port);
    if (!server) continue;
    server.close();
    await once(server, 'close');
    return port;
  }
  throw new Error('no free port from 20000 to 20199');
}
