// The probes give nothing away and cost nothing extra: /readyz answers from its last checks, so that a flood of probes
// asks each dependency at most once per refresh period; its body and /metrics name no host, database, provider text
// or secret, however the provider and the database fail; METRICS_PORT takes /metrics and the probes off the Slack
// port, and METRICS_TOKEN lets only its bearer read /metrics.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from '../../src/sandbox/server.js';
import { until } from '../hardening/support.js';
import { BOT_TOKEN, SIGNING_SECRET, startTestApp, type TestApp } from '../harness/app.js';
import { stopWrites } from './support.js';

const PROBES = 200;

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const answer = await request(url, { headers });
  return { status: answer.statusCode, text: await answer.body.text() };
}

/** `voice_ops_readiness_checks_total` by dependency, from /metrics. */
async function checksRun(t: TestApp): Promise<Record<string, number>> {
  const { text } = await get(`${t.app.probesUrl}/metrics`);
  const runs = [...text.matchAll(/^voice_ops_readiness_checks_total\{dependency="(\w+)"\} (\d+)$/gm)];
  return Object.fromEntries(runs.map(([, dependency, count]) => [dependency, Number(count)]));
}

describe('a flood of /readyz probes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ readinessRefreshMs: 60_000 });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('asks each dependency once per refresh period, however many probes come', async () => {
    const providerReads = t.sandbox.requestCount('listAgents');
    const authTests = t.slack.calls('auth.test').length;

    const first = await Promise.all(Array.from({ length: PROBES }, () => get(`${t.app.url}/readyz`)));
    const again = await Promise.all(Array.from({ length: PROBES }, () => get(`${t.app.url}/readyz`)));

    expect(new Set([...first, ...again].map((answer) => answer.status))).toEqual(new Set([200]));
    expect(await checksRun(t)).toEqual({ database: 1, slack: 1, provider: 1 });
    expect(t.sandbox.requestCount('listAgents') - providerReads).toBe(1);
    expect(t.slack.calls('auth.test').length - authTests).toBeLessThanOrEqual(1);
  });
});

describe('a readiness check that hangs', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Each probe checks again (no refresh period), and the provider's calls wait a minute before they give up.
    t = await startTestApp({ readinessRefreshMs: 0, env: { VOICE_API_TIMEOUT_MS: '60000' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is not started again while it is pending: each probe says the dependency is not answering', async () => {
    t.sandbox.faults.inject('listAgents', { type: 'hold' });
    const asked = t.sandbox.requestCount('listAgents');
    const runs = (await checksRun(t)).provider ?? 0;
    try {
      for (let probe = 0; probe < 2; probe++) {
        const ready = await get(`${t.app.url}/readyz`);
        expect(ready.status).toBe(503);
        expect(JSON.parse(ready.text)).toEqual({
          ok: false,
          checks: { database: 'ok', slack: 'ok', provider: 'not answering' },
        });
      }
      expect(t.sandbox.requestCount('listAgents') - asked).toBe(1);
      expect((await checksRun(t)).provider).toBe(runs + 1);
    } finally {
      t.sandbox.faults.clear();
    }
    // Once it answers, the next probe starts a check of its own and is ready.
    await until(
      () => get(`${t.app.url}/readyz`),
      (answer) => answer.status === 200,
      'readiness once the provider answers',
    );
  });
});

describe('what the probes and /metrics say while dependencies fail', () => {
  let t: TestApp;
  let forbidden: string[];
  beforeAll(async () => {
    // auth.test is asked at every check, so that a refused token shows at once.
    t = await startTestApp({ slackRecheck: { retry: 50, ok: 0, failed: 0 } });
    const sandbox = new URL(t.sandbox.url);
    const { target } = t.database;
    const database =
      target.kind === 'sqlite'
        ? [target.path, t.dir]
        : (() => {
            const url = new URL(target.url);
            return [url.host, url.port, url.pathname.slice(1), url.password].filter(Boolean);
          })();
    forbidden = [sandbox.host, sandbox.port, t.sandbox.apiKey, BOT_TOKEN, SIGNING_SECRET, ...database];
  });
  afterAll(async () => {
    await t?.close();
  });

  const PROVIDER_TEXT = 'internal error at db-7.provider.example (key';
  const faults: [string, Fault, string][] = [
    [
      'a refused key, echoed back',
      { type: 'status', status: 401, body: { error: 'unauthorized', info: 'KEY' } },
      'key refused',
    ],
    ['a 500 with its own text', { type: 'status', status: 500, body: { message: PROVIDER_TEXT } }, 'unavailable'],
    ['a 503 as plain text', { type: 'status', status: 503, rawBody: `${PROVIDER_TEXT} down)` }, 'unavailable'],
    ['a 429', { type: 'rate_limit', retryAfterSeconds: 30 }, 'rate limited'],
    ['a body that is not JSON', { type: 'malformed_json' }, 'failing'],
    ['a body outside the contract', { type: 'contract_violation' }, 'failing'],
    ['a dropped connection', { type: 'drop_connection' }, 'unreachable'],
    ['no answer at all', { type: 'hold' }, 'not answering'],
  ];

  it.each(faults)('the provider failing with %s: named in its word, nothing else', async (_name, fault, word) => {
    const echoed =
      fault.type === 'status' && fault.body
        ? { ...fault, body: JSON.parse(JSON.stringify(fault.body).replace('KEY', t.sandbox.apiKey)) }
        : fault;
    t.sandbox.faults.inject('listAgents', echoed);
    const asked = t.sandbox.requestCount('listAgents');
    try {
      const ready = await get(`${t.app.url}/readyz`);
      const metrics = await get(`${t.app.url}/metrics`);
      expect(ready.status).toBe(503);
      const checks = (JSON.parse(ready.text) as { checks: Record<string, string> }).checks;
      expect(checks).toMatchObject({ database: 'ok', slack: 'ok' });
      // Asked once, however it fails: a probe never retries the provider.
      expect(checks.provider).toBe(word);
      expect(t.sandbox.requestCount('listAgents') - asked).toBe(1);
      for (const text of [ready.text, metrics.text]) {
        for (const secret of [...forbidden, PROVIDER_TEXT, 'provider.example']) expect(text).not.toContain(secret);
      }
    } finally {
      t.sandbox.faults.clear();
    }
    // What the probe does not say, the log does, scrubbed of the key the provider echoed.
    expect(t.logs.text()).toContain(`readiness: provider is ${word}`);
    expect(t.logs.text()).not.toContain(t.sandbox.apiKey);
  });

  it('the database refusing writes: named, without its file, host or name', async () => {
    const writable = await stopWrites(t);
    try {
      const ready = await until(
        () => get(`${t.app.url}/readyz`),
        (answer) => answer.text.includes('"database":"not writable"'),
        'readiness to say the database takes no writes',
      );
      const metrics = await get(`${t.app.url}/metrics`);
      for (const text of [ready.text, metrics.text]) for (const secret of forbidden) expect(text).not.toContain(secret);
    } finally {
      await writable();
    }
    // On Postgres the pool lets go of the sessions that were ended before readiness says ok again.
    await until(
      () => get(`${t.app.url}/readyz`),
      (answer) => answer.text.includes('"database":"ok"'),
      'the database to take writes again',
    );
  });

  it("Slack refusing the token: named, without Slack's own words", async () => {
    t.slack.failNext('auth.test', 'token_revoked');
    const ready = await get(`${t.app.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.text)).toEqual({
      ok: false,
      checks: { database: 'ok', slack: 'token refused', provider: 'ok' },
    });
    expect(ready.text).not.toContain('token_revoked');
  });
});

describe('METRICS_PORT and METRICS_TOKEN', () => {
  const TOKEN = 'a-scrape-token-of-some-length';
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { METRICS_PORT: '0', METRICS_HOST: '127.0.0.1', METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serve /metrics and the probes on a port of their own, and the Slack port no longer does', async () => {
    expect(t.app.probesUrl).not.toBe(t.app.url);
    for (const path of ['/metrics', '/healthz', '/readyz']) expect((await get(`${t.app.url}${path}`)).status).toBe(404);
    expect(await get(`${t.app.probesUrl}/healthz`)).toEqual({ status: 200, text: '{"ok":true}' });
    expect((await get(`${t.app.probesUrl}/readyz`)).status).toBe(200);
  });

  it('let only the bearer of the token read /metrics', async () => {
    expect((await get(`${t.app.probesUrl}/metrics`)).status).toBe(401);
    expect((await get(`${t.app.probesUrl}/metrics`, { authorization: 'Bearer not-the-token-at-all' })).status).toBe(
      401,
    );
    const scraped = await get(`${t.app.probesUrl}/metrics`, { authorization: `Bearer ${TOKEN}` });
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('voice_ops_commands_total');
  });

  it('leave the Slack URL where it was', async () => {
    expect((await t.command('help', 'UVIEWER')).status).toBe(200);
  });
});
