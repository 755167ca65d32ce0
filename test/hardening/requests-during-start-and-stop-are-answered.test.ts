// Every request is answered, from the first instant to the last: while the app starts (held here at Slack's
// auth.test, after its ports are bound) and while it stops (held by a listing the provider has not answered), the
// Slack URL and /readyz answer 503 with Retry-After, /healthz 200, and nothing is left waiting on an open connection.
// Start and stop are held by events (a held Slack method, a held provider answer), never by a clock.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { type RunningVoiceOps, startVoiceOps } from '../../src/server.js';
import { BOT_TOKEN, SIGNING_SECRET } from '../harness/app.js';
import { type TestDatabase, testDatabase } from '../harness/database.js';
import { type FakeSlack, RESPONSE_URL, startFakeSlack } from '../harness/fake-slack.js';
import { captureLogs } from '../harness/logs.js';
import { slashCommand } from '../harness/payloads.js';
import { postToSlackApp } from '../harness/signing.js';
import { freePort } from './process-support.js';
import { until } from './support.js';

async function get(url: string): Promise<{ status: number; retryAfter?: string }> {
  const answer = await request(url);
  await answer.body.dump();
  const retryAfter = answer.headers['retry-after'];
  return { status: answer.statusCode, ...(typeof retryAfter === 'string' ? { retryAfter } : {}) };
}

const listing = (slack: FakeSlack, id: string) =>
  slashCommand({ text: 'agents', userId: 'UVIEWER', responseUrl: slack.respondUrl(id) });

let slack: FakeSlack;
let sandbox: Sandbox;
let database: TestDatabase;
let dir: string;
let app: RunningVoiceOps | undefined;
let url: string;

beforeAll(async () => {
  slack = await startFakeSlack();
  sandbox = await startSandbox({ port: 0 });
  dir = await mkdtemp(join(tmpdir(), 'voice-ops-edges-'));
  database = await testDatabase(dir);
});
afterAll(async () => {
  await app?.stop();
  await database?.remove();
  await rm(dir, { recursive: true, force: true });
  await sandbox?.close();
  await slack?.close();
});

describe('while the app starts and stops', () => {
  it('answers every request at once', async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const config = parseConfig({
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(port),
      VOICE_API_BASE_URL: sandbox.url,
      VOICE_API_KEY: sandbox.apiKey,
      ...database.env,
      DATABASE_PATH: join(dir, 'voice-ops.db'),
    });
    const releaseSlack = slack.hold('auth.test');
    const starting = startVoiceOps(config, {
      logger: createLogger('debug', captureLogs().stream),
      slackBudgets: {
        ui: { timeoutMs: 5_000, retries: 0 },
        announcements: { timeoutMs: 5_000, retries: 0 },
        groups: { timeoutMs: 5_000, retries: 0 },
        identity: { timeoutMs: 60_000, retries: 0 },
      },
      readinessRefreshMs: 0,
    });
    await slack.waitFor('auth.test', () => true);

    // Starting: the ports are bound, the app is not ready.
    const early = await postToSlackApp(`${url}/slack/events`, SIGNING_SECRET, listing(slack, 'starting'));
    expect([early.status, early.headers['retry-after']]).toEqual([503, '5']);
    expect(await get(`${url}/healthz`)).toEqual({ status: 200 });
    expect(await get(`${url}/readyz`)).toEqual({ status: 503, retryAfter: '5' });
    expect((await get(`${url}/metrics`)).status).toBe(503);

    releaseSlack();
    app = await starting;
    expect(app.url).toBe(url);
    expect(await get(`${url}/readyz`)).toEqual({ status: 200 });

    // Stopping: a listing the provider holds keeps the stop waiting for it.
    const reads = sandbox.requestCount('listAgents');
    sandbox.faults.inject('listAgents', { type: 'hold' });
    expect((await postToSlackApp(`${url}/slack/events`, SIGNING_SECRET, listing(slack, 'held'))).status).toBe(200);
    await until(
      async () => sandbox.requestCount('listAgents'),
      (count) => count > reads,
      'the listing to reach the provider',
    );
    const stopping = app.stop();
    app = undefined;
    const late = await postToSlackApp(`${url}/slack/events`, SIGNING_SECRET, listing(slack, 'stopping'));
    expect([late.status, late.headers['retry-after']]).toEqual([503, '5']);
    expect(await get(`${url}/healthz`)).toEqual({ status: 200 });
    expect(await get(`${url}/readyz`)).toEqual({ status: 503, retryAfter: '5' });

    sandbox.faults.clear();
    await stopping;
    // The listing under way was answered before the app stopped; after it, the port is closed, not left hanging.
    expect(slack.calls(RESPONSE_URL).some((call) => call.responseUrlId === 'held')).toBe(true);
    await expect(request(`${url}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
