// GET /metrics serves Prometheus' text format beside /healthz and /readyz, in HTTP mode and in Socket Mode: commands,
// audited steps by action and outcome, provider and Slack calls with their failures, database transactions and the
// reconciler's last pass, each counted as it happens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLACK_BUDGETS } from '../../src/slack/clients.js';
import { ADMIN, OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { askForConfirmation, buyThroughApp, confirmAs, sample, scrape, shownText, voiceNumber } from './support.js';

describe('GET /metrics on an app in HTTP mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers in the Prometheus text format, with the process metrics', async () => {
    const { status, contentType, text } = await scrape(t);
    expect(status).toBe(200);
    expect(contentType).toContain('text/plain');
    expect(text).toContain('# TYPE voice_ops_commands_total counter');
    expect(sample(text, 'voice_ops_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts each command by name', async () => {
    const before = sample((await scrape(t)).text, 'voice_ops_commands_total', { command: 'help' });
    await t.respondedTo((await t.command('help', OPERATOR)).responseUrlId);
    const after = (await scrape(t)).text;
    expect(sample(after, 'voice_ops_commands_total', { command: 'help' })).toBe(before + 1);
  });

  it('counts a buy: its audited steps, its provider call, its database transactions and its Slack calls', async () => {
    const number = await voiceNumber(t, 'GB');
    const buy = { method: 'POST', endpoint: '/buy-phone-number' };
    const before = (await scrape(t)).text;

    await buyThroughApp(t, OPERATOR, number);
    await t.settled();
    const after = (await scrape(t)).text;

    for (const outcome of ['requested', 'confirmed', 'succeeded']) {
      const step = { action: 'number.buy', outcome };
      expect(sample(after, 'voice_ops_audit_steps_total', step), outcome).toBe(
        sample(before, 'voice_ops_audit_steps_total', step) + 1,
      );
    }
    expect(sample(after, 'voice_ops_provider_request_seconds_count', buy)).toBe(
      sample(before, 'voice_ops_provider_request_seconds_count', buy) + 1,
    );
    expect(sample(after, 'voice_ops_database_transaction_seconds_count')).toBeGreaterThan(
      sample(before, 'voice_ops_database_transaction_seconds_count'),
    );
    const announced = { method: 'chat.postMessage' };
    expect(sample(after, 'voice_ops_slack_call_seconds_count', announced)).toBeGreaterThan(
      sample(before, 'voice_ops_slack_call_seconds_count', announced),
    );
  });

  it('counts a failed provider call by its kind, and the failed step', async () => {
    const number = await voiceNumber(t, 'GB', 1);
    const refused = { method: 'POST', endpoint: '/buy-phone-number', kind: 'validation' };
    const failedStep = { action: 'number.buy', outcome: 'failed' };
    const { confirmationId } = await askForConfirmation(t, OPERATOR, `numbers buy ${number}`);
    const before = (await scrape(t)).text;

    t.sandbox.faults.inject('buyNumber', { type: 'status', status: 422 }, { times: 1 });
    expect(shownText(await confirmAs(t, OPERATOR, confirmationId))).not.toMatch(/Bought/);
    const after = (await scrape(t)).text;

    expect(sample(after, 'voice_ops_provider_request_failures_total', refused)).toBe(
      sample(before, 'voice_ops_provider_request_failures_total', refused) + 1,
    );
    expect(sample(after, 'voice_ops_audit_steps_total', failedStep)).toBe(
      sample(before, 'voice_ops_audit_steps_total', failedStep) + 1,
    );
  });

  it("counts a failed Slack call by Slack's error code", async () => {
    const number = await voiceNumber(t, 'GB', 2);
    const refused = { method: 'chat.postMessage', error: 'not_in_channel' };
    const before = (await scrape(t)).text;

    // Someone with no announcement open yet, so that theirs is a new post rather than a rewrite.
    t.slack.failNext('chat.postMessage', 'not_in_channel');
    await buyThroughApp(t, ADMIN, number);
    await t.settled();
    const after = (await scrape(t)).text;

    expect(sample(after, 'voice_ops_slack_call_failures_total', refused)).toBe(
      sample(before, 'voice_ops_slack_call_failures_total', refused) + 1,
    );
  });

  it("records the reconciler's last pass and whether it read the provider", async () => {
    await t.app.reconcile();
    const text = (await scrape(t)).text;
    expect(sample(text, 'voice_ops_reconciler_last_pass_timestamp_seconds')).toBeGreaterThan(0);
    expect(sample(text, 'voice_ops_reconciler_last_pass_ok')).toBe(1);
  });
});

describe('GET /metrics on an app in Socket Mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ socketMode: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is served by the health server on PORT', async () => {
    const { status, text } = await scrape(t);
    expect(status).toBe(200);
    expect(text).toContain('# TYPE voice_ops_audit_steps_total counter');
  });
});

/** Database statements the app has run, as /metrics counts them. */
const statements = async (t: TestApp) => sample((await scrape(t)).text, 'voice_ops_database_statement_seconds_count');

describe('the database work of a command', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No background work while the command is counted: no reconciler passes, and no lease renewal due.
    t = await startTestApp({
      env: { RECONCILE_INTERVAL_S: '0', LEASE_TTL_S: '600', VOICE_API_TIMEOUT_MS: '60000' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('`/voice help` runs one database statement, its delivery key, on either engine', async () => {
    const count = () => statements(t);
    const help = async () => {
      const { responseUrlId } = await t.command('help', OPERATOR);
      expect(shownText(await t.respondedTo(responseUrlId))).toContain('/voice');
      await t.settled();
    };
    await help(); // the first delivery also prunes old delivery keys, once an hour
    const before = await count();
    await help();
    expect((await count()) - before).toBe(1);
  });

  it('`/voice agents` runs two database statements: its delivery key, and one read of its page of records', async () => {
    const agents = async () => {
      const { responseUrlId } = await t.command('agents', OPERATOR);
      expect(shownText(await t.respondedTo(responseUrlId))).toContain('agents');
      await t.settled();
    };
    await agents();
    const before = await statements(t);
    await agents();
    expect((await statements(t)) - before).toBe(2);
  });

  it('says which replica holds the background lease: this one, the only one', async () => {
    const text = (await scrape(t)).text;
    expect(text).toMatch(/^voice_ops_background_lease_held\{replica="[0-9a-f-]{36}"\} 1$/m);
  });
});

describe('the database work before an acknowledgement', () => {
  const GROUP = 'SOPERATORS';
  const MEMBER = 'UGROUPMEMBER';
  let t: TestApp;
  beforeAll(async () => {
    // A buy limit makes help read how much of it is used: statements after the ack. The caller's role comes through a
    // user group, read from Slack after the ack and before those statements, and Slack holds that read until the test
    // lets it go (the read's budget only ends a test that is stuck).
    t = await startTestApp({
      operators: [GROUP],
      groups: { [GROUP]: [MEMBER] },
      slackBudgets: { ...SLACK_BUDGETS, groups: { timeoutMs: 60_000, retries: 0 } },
      env: { RECONCILE_INTERVAL_S: '0', LEASE_TTL_S: '600', VOICE_BUY_LIMIT: '5/day' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('`/voice help` runs one database statement before its acknowledgement, its delivery key, on either engine', async () => {
    // The first delivery also prunes old delivery keys, once an hour; an admin's role needs no group read.
    await t.respondedTo((await t.command('help', ADMIN)).responseUrlId);
    await t.settled();
    const release = t.slack.hold('usergroups.users.list');
    try {
      const before = await statements(t);
      const since = t.slack.mark();

      const { status, responseUrlId } = await t.command('help', MEMBER);
      expect(status).toBe(200);
      // Read once the work after the ack waits on the held group read, before the buy limit's statements.
      await t.slack.waitFor('usergroups.users.list', undefined, { since });
      const atAck = await statements(t);
      expect(t.slack.calls(RESPONSE_URL).filter((call) => call.responseUrlId === responseUrlId)).toEqual([]);
      release();
      expect(shownText(await t.respondedTo(responseUrlId))).toContain('Buying');
      await t.settled();

      expect(atAck - before).toBe(1);
      expect((await statements(t)) - atAck, 'the buy limit read after the ack').toBeGreaterThan(0);
    } finally {
      release();
    }
  });
});
