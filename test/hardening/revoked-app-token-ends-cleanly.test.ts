// A revoked app token, through the app's own process in Socket Mode: whether Slack refuses it at start or on a
// reconnection while the app runs, the process says so in one fatal JSON line that tells what to do, and exits 1:
// no stack trace, nothing on stderr.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { shownText } from '../e2e/support.js';
import { ADMIN, APP_TOKEN, BOT_TOKEN, SIGNING_SECRET } from '../harness/app.js';
import { type AppProcess, spawnApp } from '../harness/app-process.js';
import { databaseText } from '../harness/database.js';
import { type FakeSlack, RESPONSE_URL, startFakeSlack } from '../harness/fake-slack.js';
import { slashCommand } from '../harness/payloads.js';
import { sweepForSecrets } from '../harness/secrets.js';

const FATAL = 60;

let slack: FakeSlack;
let sandbox: Sandbox;
let dir: string;
let app: AppProcess | undefined;

beforeAll(async () => {
  slack = await startFakeSlack();
  sandbox = await startSandbox({ port: 0 });
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'voice-ops-revoked-'));
});
afterEach(async () => {
  if (app && app.child.exitCode === null && app.child.signalCode === null) app.child.kill('SIGKILL');
  try {
    const logText = app ? app.output() : '';
    const credentials = [BOT_TOKEN, APP_TOKEN, SIGNING_SECRET, sandbox.apiKey];
    sweepForSecrets({ slack, logText, databaseText: await databaseText(join(dir, 'voice-ops.db')), credentials });
  } finally {
    app = undefined;
    await rm(dir, { recursive: true, force: true });
  }
});
afterAll(async () => {
  await sandbox?.close();
  await slack?.close();
});

function startInSocketMode(): AppProcess {
  app = spawnApp({
    via: 'node',
    env: {
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_APP_TOKEN: APP_TOKEN,
      SLACK_API_URL: slack.apiUrl,
      VOICE_API_BASE_URL: sandbox.url,
      VOICE_API_KEY: sandbox.apiKey,
      DATABASE_PATH: join(dir, 'voice-ops.db'),
      LOG_LEVEL: 'debug',
    },
  });
  return app;
}

/** The process ended as it should on a refused token: exit 1, one fatal line saying what to do, no stack. */
async function expectOneClearFatalExit(running: AppProcess): Promise<Record<string, unknown>> {
  expect(await running.exited).toEqual({ code: 1, signal: null });
  const fatal = running.entries().filter((entry) => entry.level === FATAL);
  expect(fatal, 'fatal lines').toHaveLength(1);
  const [line] = fatal as [Record<string, unknown>];
  expect(line.msg).toContain('Slack refused the app token (invalid_auth)');
  expect(line.msg).toContain('generate a new SLACK_APP_TOKEN');
  expect(line.err, 'no error object, so no stack').toBeUndefined();
  const output = running.output();
  expect(output, 'no stack trace anywhere').not.toMatch(/\\n\s+at |\bat .+:\d+:\d+\)|"stack"/);
  // Every line the process wrote, to stdout or stderr, is a JSON log line.
  expect(output.trim().split('\n').length).toBe(running.entries().length);
  return line;
}

it('a token refused at start ends the process with one fatal line and exit 1', async () => {
  slack.failNext('apps.connections.open', 'invalid_auth');
  const running = startInSocketMode();
  const line = await expectOneClearFatalExit(running);
  expect(line.msg).toMatch(/^Voice Ops could not start: /);
  expect(running.entries().some((entry) => entry.msg === 'Voice Ops is ready')).toBe(false);
});

it('a token revoked while running ends the process at the next reconnection, after a graceful stop', async () => {
  const running = startInSocketMode();
  await running.ready;
  const sent = slashCommand({ text: 'help', userId: ADMIN, responseUrl: slack.respondUrl('revoked-help') });
  const acked = await slack.socketMode.deliver(sent);
  expect(acked.status).toBe(200);
  slack.showAcknowledgement('revoked-help', acked.json);
  const help = await slack.waitFor(RESPONSE_URL, (call) => call.responseUrlId === 'revoked-help');
  expect(shownText(help)).toContain('Voice Ops commands');

  // Slack closes the connections of a revoked token and refuses new ones.
  slack.failNext('apps.connections.open', 'invalid_auth');
  slack.socketMode.drop();

  await expectOneClearFatalExit(running);
  const messages = running.entries().map((entry) => entry.msg);
  expect(messages).toContain('Socket Mode: reconnecting to Slack');
  expect(messages.at(-1)).toBe('stopped');
});
