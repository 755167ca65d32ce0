// Every delivery Slack documents gets the answer Slack documents: the checks of the Request URL (url_verification,
// ssl_check), the notice that events are being dropped (app_rate_limited), events the app has no listener for, and
// deliveries Slack sends again after a timeout. An answer "at once" is told from Bolt's answer to a delivery nobody
// acknowledged (404 after three seconds over HTTP, no ack at all in Socket Mode, where the stand-in then fails the
// test), never by a clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { APP_ID, TEAM_ID } from '../harness/fake-slack.js';
import { eventCallback, newTriggerId, slashCommand, VERIFICATION_TOKEN } from '../harness/payloads.js';
import { JSON_CONTENT_TYPE } from '../harness/signing.js';
import { sandboxAgents } from './support.js';

const json = { contentType: JSON_CONTENT_TYPE };
const RATE_LIMITED = 'Slack is dropping event deliveries to the app: it is rate limited';

// shape: Slack Events API docs, app_rate_limited (no inner event; the whole payload is this).
const appRateLimited = (minute: number) =>
  JSON.stringify({
    token: VERIFICATION_TOKEN,
    type: 'app_rate_limited',
    team_id: TEAM_ID,
    minute_rate_limited: minute,
    api_app_id: APP_ID,
  });

const warnedOfRateLimit = (t: TestApp) =>
  t.logs.entries().filter((entry) => entry.level === 40 && entry.msg === RATE_LIMITED);

describe('the Request URL, in HTTP mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers url_verification with its challenge', async () => {
    // shape: Slack Events API docs, url_verification; bolt-js test/unit/receivers/AwsLambdaReceiver.spec.ts.
    const challenge = '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P';
    const body = JSON.stringify({ token: VERIFICATION_TOKEN, challenge, type: 'url_verification' });

    const answer = await t.post(body, json);

    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ challenge });
  });

  it('answers ssl_check with 200 and an empty body', async () => {
    // shape: Slack slash command docs, "ssl_check"; bolt-js test/unit/receivers/AwsLambdaReceiver.spec.ts.
    const answer = await t.post(`ssl_check=1&token=${VERIFICATION_TOKEN}`);

    expect(answer.status).toBe(200);
    expect(answer.body).toBe('');
  });

  it('acknowledges app_rate_limited with 200 and warns once per minute, naming the minute', async () => {
    const minute = 1_518_467_820;
    const before = warnedOfRateLimit(t).length;

    const answers = [await t.post(appRateLimited(minute), json), await t.post(appRateLimited(minute), json)];
    const next = await t.post(appRateLimited(minute + 60), json);

    expect([...answers, next].map((answer) => [answer.status, answer.body])).toEqual([
      [200, ''],
      [200, ''],
      [200, ''],
    ]);
    expect(warnedOfRateLimit(t).slice(before)).toEqual([
      expect.objectContaining({ minute: new Date(minute * 1000).toISOString(), teamId: TEAM_ID }),
      expect.objectContaining({ minute: new Date((minute + 60) * 1000).toISOString(), teamId: TEAM_ID }),
    ]);
  });

  it('refuses an app_rate_limited with a wrong signature with 401, and warns of nothing', async () => {
    const before = warnedOfRateLimit(t).length;

    const answer = await t.post(appRateLimited(1_518_467_940), { ...json, signature: 'v0=0000' });

    expect(answer.status).toBe(401);
    expect(warnedOfRateLimit(t)).toHaveLength(before);
  });
});

describe.each([
  { mode: 'HTTP mode', socketMode: false },
  { mode: 'Socket Mode', socketMode: true },
])('in $mode', ({ socketMode }) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ socketMode });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    // shape: bolt-js test/unit/helpers/events.ts, createDummyMemberChannelEventMiddlewareArgs.
    { type: 'member_joined_channel', user: OPERATOR, channel: 'CJOINED', channel_type: 'C', team: TEAM_ID },
    // shape: Slack Events API docs, app_mention; bolt-js test/unit/helpers/events.ts.
    { type: 'app_mention', user: OPERATOR, text: '<@UBOT> numbers', channel: 'COPS', ts: '1518467820.000100' },
  ])('acknowledges $type, which it has no listener for, and logs at debug that it ignored it', async (event) => {
    const before = t.slack.calls().length;

    const answer = await t.post(eventCallback(event), json);
    await t.settled();

    expect([answer.status, answer.body]).toEqual([200, '']);
    expect(t.logs.entries()).toContainEqual(
      expect.objectContaining({ level: 20, msg: 'ignored an event the app has no listener for', event: event.type }),
    );
    const slackCalls = t.slack.calls().slice(before);
    expect(slackCalls.map((call) => call.method)).toEqual([]);
  });

  it('publishes the Home tab once for an app_home_opened that Slack delivers again as a retry', async () => {
    const body = eventCallback({ type: 'app_home_opened', user: OPERATOR, channel: 'DOPERATOR', tab: 'home' });
    const published = () => t.slack.calls('views.publish').filter((call) => call.body.user_id === OPERATOR).length;
    const before = published();

    expect((await t.post(body, json)).status).toBe(200);
    await t.settled();
    expect((await t.post(body, { ...json, retryNum: 1 })).status).toBe(200);
    await t.settled();

    expect(published() - before).toBe(1);
  });

  it('creates one agent for a slash command that Slack delivers again as a retry', async () => {
    const name = `Retried desk ${socketMode ? 'socket' : 'http'}`;
    const body = slashCommand({
      text: `agents create "${name}" en-US`,
      userId: OPERATOR,
      triggerId: newTriggerId(),
      responseUrl: t.slack.respondUrl(`retried-${name}`),
    });

    expect((await t.post(body)).status).toBe(200);
    await t.respondedTo(`retried-${name}`);
    expect((await t.post(body, { retryNum: 1 })).status).toBe(200);
    await t.settled();

    expect((await sandboxAgents(t)).filter((agent) => agent.name === name)).toHaveLength(1);
  });
});
