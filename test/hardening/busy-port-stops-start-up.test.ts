// A PORT something else holds stops the start before the app says it is ready, in one line naming the port and PORT,
// with no stack trace and exit code 1: in the playground (the page's port) and in HTTP mode (the receiver's); a
// METRICS_PORT in use is named as METRICS_PORT, and a METRICS_HOST this machine does not have as METRICS_HOST.

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { listen } from '../../src/listen.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { appEnvironment, atLeast, killLeftovers, spawnApp } from '../harness/app-process.js';
import { type FakeSlack, startFakeSlack } from '../harness/fake-slack.js';

let slack: FakeSlack;
let sandbox: Sandbox;
let dir: string;
/** What holds the port: a server of the test's own, on every interface. */
let holder: Server;
let port: number;

beforeAll(async () => {
  slack = await startFakeSlack();
  sandbox = await startSandbox({ port: 0 });
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'voice-ops-busy-port-'));
  holder = createServer();
  await listen(holder, 0);
  port = (holder.address() as AddressInfo).port;
});
afterEach(async () => {
  killLeftovers();
  await new Promise((resolve) => holder.close(resolve));
  await rm(dir, { recursive: true, force: true });
});
afterAll(async () => {
  await sandbox?.close();
  await slack?.close();
});

async function startOnBusyPort(env: Record<string, string>, variable = 'PORT') {
  const app = spawnApp({ via: 'node', env: { PORT: '0', ...env, [variable]: String(port) } });
  const startedAnyway = app.ready.then(() => {
    throw new Error(`the app said it was ready on a port in use:\n${app.output()}`);
  });
  const exit = await Promise.race([app.exited, startedAnyway]);
  return { exit, entries: app.entries(), output: app.output() };
}

function expectOneLineNamingThePort(result: Awaited<ReturnType<typeof startOnBusyPort>>, variable = 'PORT') {
  const { exit, entries, output } = result;
  expect(exit, output).toEqual({ code: 1, signal: null });
  expect(atLeast(entries, 50), output).toEqual([
    expect.objectContaining({
      msg: `Voice Ops could not start: port ${port} is already in use: stop what uses it, or set ${variable} to another port.`,
    }),
  ]);
  expect(atLeast(entries, 50)[0], 'no error object, and with it no stack trace').not.toHaveProperty('err');
  expect(output).not.toContain('Voice Ops is ready');
  expect(output).not.toMatch(/\n\s+at /);
}

it('in the playground, a PORT in use stops the start before the app says it is ready', async () => {
  const env = { HOME: process.env.HOME ?? '', DATABASE_PATH: join(dir, 'voice-ops.db'), LOG_LEVEL: 'debug' };
  expectOneLineNamingThePort(await startOnBusyPort(env));
});

it('in HTTP mode, a PORT in use stops the start the same way', async () => {
  expectOneLineNamingThePort(await startOnBusyPort(appEnvironment(slack, sandbox, join(dir, 'voice-ops.db'))));
});

it('a METRICS_PORT in use stops the start the same way, naming METRICS_PORT', async () => {
  const env = appEnvironment(slack, sandbox, join(dir, 'voice-ops.db'));
  expectOneLineNamingThePort(await startOnBusyPort(env, 'METRICS_PORT'), 'METRICS_PORT');
});

it('a METRICS_HOST this machine does not have stops the start in one line saying what to set', async () => {
  // 203.0.113.1 is a documentation address (RFC 5737): no machine has it, and nothing is sent to it.
  const env = { ...appEnvironment(slack, sandbox, join(dir, 'voice-ops.db')), METRICS_HOST: '203.0.113.1' };
  const app = spawnApp({ via: 'node', env: { PORT: '0', METRICS_PORT: '0', ...env } });
  const exit = await app.exited;
  expect(exit, app.output()).toEqual({ code: 1, signal: null });
  expect(atLeast(app.entries(), 50)).toEqual([
    expect.objectContaining({
      msg: expect.stringContaining('METRICS_HOST 203.0.113.1 is not an address of this machine'),
    }),
  ]);
  expect(app.output()).not.toMatch(/\n\s+at /);
});
