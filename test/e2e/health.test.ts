// GET /healthz says the process answers; GET /readyz says it can do its work: the database takes writes, Slack
// knows the token (auth.test), the provider answers. A Slack that cannot be reached at start is said so in plain
// words, nothing is handled meanwhile, and the app becomes ready once Slack answers; a token Slack refuses stops
// the start with a sentence naming SLACK_BOT_TOKEN.
import { createServer } from 'node:http';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../../src/listen.js';
import { freePort } from '../hardening/process-support.js';
import { callsSince, responseUrlPostsSince, until } from '../hardening/support.js';
import { startTestApp, type TestApp } from '../harness/app.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { stopWrites } from './support.js';

const FAST_RECHECK = { retry: 50, ok: 0, failed: 0 };

async function get(t: TestApp, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const { statusCode, body } = await request(`${t.app.url}${path}`);
  return { status: statusCode, body: (await body.json()) as Record<string, unknown> };
}

describe('a running app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ slackRecheck: FAST_RECHECK });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is alive and ready when the database, Slack and the provider all answer', async () => {
    expect(await get(t, '/healthz')).toEqual({ status: 200, body: { ok: true } });
    expect(await get(t, '/readyz')).toEqual({
      status: 200,
      body: { ok: true, checks: { database: 'ok', slack: 'ok', provider: 'ok' } },
    });
  });

  it('is not ready while the provider fails, and says so', async () => {
    t.sandbox.faults.inject('listAgents', { type: 'status', status: 503 }, { times: 5 });
    try {
      const { status, body } = await get(t, '/readyz');
      expect(status).toBe(503);
      expect(body.checks).toMatchObject({ database: 'ok', slack: 'ok' });
      expect(String((body.checks as Record<string, string>).provider)).not.toBe('ok');
    } finally {
      t.sandbox.faults.clear();
    }
    expect((await get(t, '/readyz')).status).toBe(200);
  });

  it('is not ready while Slack refuses the token', async () => {
    t.slack.failNext('auth.test', 'token_revoked');
    const { status, body } = await get(t, '/readyz');
    expect(status).toBe(503);
    expect(body.checks).toMatchObject({ slack: 'token refused' });
    expect((await get(t, '/readyz')).status).toBe(200);
  });

  it('is not ready while the database cannot be written, and still alive', async () => {
    const writable = await stopWrites(t);
    try {
      // Postgres ends the app's sessions, and the pool may find one dead before it opens a new, read-only one.
      const refusing = (report: Awaited<ReturnType<typeof get>>) =>
        (report.body.checks as Record<string, string>).database === 'not writable';
      const report = await until(() => get(t, '/readyz'), refusing, 'readiness to say writes are refused');
      expect(report.status).toBe(503);
      expect((await get(t, '/healthz')).status).toBe(200);
    } finally {
      await writable();
    }
    // Readiness returns by itself: on Postgres, once the pool has let go of the sessions that were ended.
    await until(
      () => get(t, '/readyz'),
      (report) => report.status === 200,
      'readiness to return',
    );
  });
});

describe('an app in Socket Mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ socketMode: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers the health routes on PORT too', async () => {
    expect(await get(t, '/healthz')).toEqual({ status: 200, body: { ok: true } });
    expect(await get(t, '/readyz')).toEqual({
      status: 200,
      body: { ok: true, checks: { database: 'ok', slack: 'ok', provider: 'ok' } },
    });
  });
});

describe('Slack unreachable at start', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      slackRecheck: FAST_RECHECK,
      slackBudgets: {
        ui: { timeoutMs: 1_000, retries: 0 },
        announcements: { timeoutMs: 1_000, retries: 0 },
        groups: { timeoutMs: 1_000, retries: 0 },
        identity: { timeoutMs: 300, retries: 0 },
      },
      // auth.test answers nothing until the test lets it.
      beforeStart: (slack) => slack.setLatency('auth.test', 60_000),
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is said in plain words, handles nothing meanwhile, and is ready once Slack answers', async () => {
    const said = t.logs.entries().find((entry) => String(entry.msg).includes("Slack's Web API cannot be reached"));
    expect(said, 'a plain warning at start').toMatchObject({ level: 40 });
    expect(String(said?.msg)).toContain('/readyz answers 503');
    const unready = await get(t, '/readyz');
    expect(unready.status).toBe(503);
    expect(unready.body.checks).toMatchObject({ slack: 'unreachable' });

    const early = await t.command('help');
    expect(JSON.parse(early.body)).toMatchObject({ text: expect.stringContaining('cannot reach Slack right now') });
    await t.settled();
    expect(responseUrlPostsSince(t, 0), 'nothing handled while Slack was unknown').toEqual([]);

    t.slack.setLatency('auth.test', 0);
    await until(
      () => get(t, '/readyz'),
      (ready) => ready.status === 200,
      'readiness once auth.test answers again',
    );
    expect(t.logs.lines().some((line) => line.includes('Slack is reachable again'))).toBe(true);
    const since = t.slack.mark();
    const sent = await t.command('help');
    expect(sent.status).toBe(200);
    await t.settled();
    expect(callsSince(t, RESPONSE_URL, since)).toHaveLength(1);
  });
});

describe('a bot token Slack refuses', () => {
  it('stops the start with a sentence naming SLACK_BOT_TOKEN, and lets go of the port it had bound', async () => {
    const port = await freePort();
    await expect(
      startTestApp({
        env: { PORT: String(port) },
        beforeStart: (slack) => slack.failNext('auth.test', 'invalid_auth'),
      }),
    ).rejects.toThrow(/Slack refused SLACK_BOT_TOKEN \(invalid_auth\)/);
    const server = createServer();
    await listen(server, port);
    await new Promise((resolve) => server.close(resolve));
  });
});
