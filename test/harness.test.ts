// The harness checked against Slack's own libraries: Bolt must accept what we sign and send, and @slack/web-api
// must get from the fake the answers it expects. End-to-end tests rely on both.
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type BlockAction, LogLevel, verifySlackRequest, webApi } from '@slack/bolt';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.js';
import { databaseText } from './harness/database.js';
import { type FakeSlack, type SlackCall, startFakeSlack } from './harness/fake-slack.js';
import { captureLogs } from './harness/logs.js';
import {
  appHomeOpened,
  blockAction,
  blockSuggestion,
  selectInput,
  slashCommand,
  textInput,
  viewClosed,
  viewSubmission,
} from './harness/payloads.js';
import { sweepForSecrets } from './harness/secrets.js';
import { FORM_CONTENT_TYPE, JSON_CONTENT_TYPE, postToSlackApp, signSlackRequest } from './harness/signing.js';

const SECRET = 'harness-signing-secret';
const TOKEN = 'xoxb-harness-token';

let fake: FakeSlack;

beforeAll(async () => {
  fake = await startFakeSlack();
});

afterAll(async () => {
  await fake.close();
});

describe('signSlackRequest', () => {
  const body = slashCommand({ text: 'numbers search US' });

  it('produces a signature that Bolt verifies', () => {
    const headers = signSlackRequest(SECRET, body);
    expect(headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(() =>
      verifySlackRequest({
        signingSecret: SECRET,
        body,
        headers: {
          'x-slack-signature': headers['x-slack-signature'],
          'x-slack-request-timestamp': Number(headers['x-slack-request-timestamp']),
        },
      }),
    ).not.toThrow();
  });

  it('is rejected by Bolt for a tampered body, another secret or a stale timestamp', () => {
    const headers = signSlackRequest(SECRET, body);
    const verify = (options: { body?: string; secret?: string; timestamp?: number }) => () =>
      verifySlackRequest({
        signingSecret: options.secret ?? SECRET,
        body: options.body ?? body,
        headers: {
          'x-slack-signature': headers['x-slack-signature'],
          'x-slack-request-timestamp': options.timestamp ?? Number(headers['x-slack-request-timestamp']),
        },
      });
    expect(verify({ body: body.replace('US', 'GB') })).toThrow(/signature mismatch/);
    expect(verify({ secret: 'another-secret' })).toThrow(/signature mismatch/);
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;
    const staleHeaders = signSlackRequest(SECRET, body, stale);
    expect(() =>
      verifySlackRequest({
        signingSecret: SECRET,
        body,
        headers: { 'x-slack-signature': staleHeaders['x-slack-signature'], 'x-slack-request-timestamp': stale },
      }),
    ).toThrow(/stale/);
  });
});

describe('fake Slack Web API, called by @slack/web-api', () => {
  let client: InstanceType<typeof webApi.WebClient>;

  beforeAll(() => {
    client = new webApi.WebClient(TOKEN, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      logLevel: webApi.LogLevel.ERROR,
    });
  });

  beforeEach(() => fake.clear());

  it('joins apiUrl and method names like Slack does', () => {
    expect(fake.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/$/);
  });

  it('answers auth.test as a bot and records the bearer token', async () => {
    const result = await client.auth.test();
    expect(result).toMatchObject({ ok: true, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T1', team: 'Test' });
    expect(fake.calls('auth.test')).toHaveLength(1);
    expect(fake.calls('auth.test')[0]?.token).toBe(TOKEN);
  });

  it('records chat.postMessage with blocks parsed back into objects, and answers channel and ts', async () => {
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: '*Bought* +14155550123' } }];
    const result = await client.chat.postMessage({ channel: 'CNOTIFY', text: '[bought] +14155550123', blocks });
    expect(result.ok).toBe(true);
    expect(result.channel).toBe('CNOTIFY');
    expect(result.ts).toMatch(/^\d+\.\d{6}$/);
    const call = await fake.waitFor('chat.postMessage');
    expect(call.body.blocks).toEqual(blocks);
    expect(call.body.text).toBe('[bought] +14155550123');
    expect(call.body.channel).toBe('CNOTIFY');
    expect(call.body).not.toHaveProperty('token');
    expect(call.at).toBeLessThanOrEqual(Date.now());
  });

  it('keeps posted messages: chat.update rewrites one still there, and answers message_not_found once it is gone', async () => {
    const posted = await client.chat.postMessage({ channel: 'CNOTIFY', text: 'one change', blocks: [] });
    const ts = posted.ts ?? '';
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'two changes' } }];
    const updated = await client.chat.update({ channel: 'CNOTIFY', ts, text: 'two changes', blocks });
    expect(updated).toMatchObject({ ok: true, channel: 'CNOTIFY', ts, message: { text: 'two changes', blocks } });
    await client.chat.update({ channel: 'CNOTIFY', ts, text: 'three changes' });
    // The blocks as given, plus the block_id Slack fills in.
    expect(fake.messages('CNOTIFY').filter((message) => message.ts === ts)).toMatchObject([
      { channel: 'CNOTIFY', ts, text: 'three changes', blocks, edits: 2 },
    ]);

    await expect(client.chat.update({ channel: 'COTHER', ts, text: 'elsewhere' })).rejects.toMatchObject({
      data: { error: 'message_not_found' },
    });
    await expect(
      client.chat.update({ channel: 'CNOTIFY', ts: '1.000001', text: 'never posted' }),
    ).rejects.toMatchObject({ data: { error: 'message_not_found' } });
    fake.removeMessage('CNOTIFY', ts);
    await expect(client.chat.update({ channel: 'CNOTIFY', ts, text: 'four changes' })).rejects.toMatchObject({
      data: { error: 'message_not_found' },
    });
    expect(fake.messages('CNOTIFY').map((message) => message.ts)).not.toContain(ts);
  });

  it('answers chat.postEphemeral with a message_ts', async () => {
    const result = await client.chat.postEphemeral({ channel: 'COPS', user: 'UADMIN', text: 'only you' });
    expect(result).toMatchObject({ ok: true, message_ts: expect.stringMatching(/^\d+\.\d+$/) });
    expect(fake.calls('chat.postEphemeral')[0]?.body).toMatchObject({ channel: 'COPS', user: 'UADMIN' });
  });

  it('gives each opened view a new id and keeps it across views.update', async () => {
    const view = {
      type: 'modal' as const,
      callback_id: 'agent_create',
      private_metadata: '{"channel":"COPS"}',
      title: { type: 'plain_text' as const, text: 'Create agent' },
      blocks: [],
    };
    const opened = await client.views.open({ trigger_id: '1.2.abc', view });
    const other = await client.views.open({ trigger_id: '1.3.abc', view });
    expect(opened.view?.id).toMatch(/^V/);
    expect(other.view?.id).not.toBe(opened.view?.id);
    expect(opened.view).toMatchObject({ callback_id: 'agent_create', private_metadata: '{"channel":"COPS"}' });

    const viewId = opened.view?.id ?? '';
    const updated = await client.views.update({ view_id: viewId, view: { ...view, callback_id: 'next' } });
    expect(updated.view?.id).toBe(viewId);
    expect(updated.view?.callback_id).toBe('next');
    expect(fake.calls('views.open')[0]?.body.view).toEqual(view);
    expect(fake.calls('views.update')[0]?.body.view_id).toBe(viewId);
  });

  it('keeps one Home view id per user across views.publish', async () => {
    const home = { type: 'home' as const, blocks: [] };
    const first = await client.views.publish({ user_id: 'UADMIN', view: home });
    const second = await client.views.publish({ user_id: 'UADMIN', view: home });
    const someoneElse = await client.views.publish({ user_id: 'UOPERATOR', view: home });
    expect(second.view?.id).toBe(first.view?.id);
    expect(someoneElse.view?.id).not.toBe(first.view?.id);
    expect(first.view?.type).toBe('home');
  });

  it('answers usergroups.users.list from setGroupMembers, and no_such_subteam otherwise', async () => {
    fake.setGroupMembers('SOPS', ['UONE', 'UTWO']);
    const result = await client.usergroups.users.list({ usergroup: 'SOPS' });
    expect(result.users).toEqual(['UONE', 'UTWO']);
    await expect(client.usergroups.users.list({ usergroup: 'SNOPE' })).rejects.toMatchObject({
      code: webApi.ErrorCode.PlatformError,
      data: { ok: false, error: 'no_such_subteam' },
    });
  });

  it('fails the next call of a method once when told to', async () => {
    fake.failNext('chat.postMessage', 'channel_not_found');
    await expect(client.chat.postMessage({ channel: 'CGONE', text: 'hi' })).rejects.toMatchObject({
      data: { error: 'channel_not_found' },
    });
    await expect(client.chat.postMessage({ channel: 'COPS', text: 'hi' })).resolves.toMatchObject({ ok: true });
    expect(fake.calls('chat.postMessage')).toHaveLength(2);
  });

  it('answers any other method with ok', async () => {
    await expect(
      client.apiCall('reactions.add', { channel: 'COPS', name: 'ok', timestamp: '1.2' }),
    ).resolves.toMatchObject({ ok: true });
    expect(fake.calls().map((call) => call.method)).toEqual(['reactions.add']);
  });

  it('delays a method when told to', async () => {
    fake.setLatency('auth.test', 150);
    const started = performance.now();
    await client.auth.test();
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    fake.setLatency('auth.test', 0);
  });
});

describe('fake Slack response_url and waitFor', () => {
  beforeEach(() => fake.clear());

  it('records JSON posts to a response_url with their id', async () => {
    const url = fake.respondUrl('abc');
    expect(url.startsWith(fake.baseUrl)).toBe(true);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response_type: 'ephemeral', text: 'hello', replace_original: false }),
    });
    expect(response.status).toBe(200);
    const call = await fake.waitFor('response_url', (c) => c.responseUrlId === 'abc');
    expect(call.body).toEqual({ response_type: 'ephemeral', text: 'hello', replace_original: false });
  });

  it('answers 404 on a response_url told to fail, as Slack does for an expired one', async () => {
    fake.failNext('response_url', 'expired_url');
    const response = await fetch(fake.respondUrl(), { method: 'POST', body: '{"text":"late"}' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ ok: false, error: 'expired_url' });
  });

  it('waits for calls still to come, and only those after a mark', async () => {
    await fetch(fake.respondUrl('first'), { method: 'POST', body: '{"text":"one"}' });
    const mark = fake.mark();
    const waiting = fake.waitFor('response_url', undefined, { since: mark, timeoutMs: 2000 });
    setTimeout(() => void fetch(fake.respondUrl('second'), { method: 'POST', body: '{"text":"two"}' }), 50);
    const call = await waiting;
    expect(call.responseUrlId).toBe('second');
    expect(call.body.text).toBe('two');
  });

  it('times out with a message listing the calls it saw', async () => {
    await fetch(`${fake.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': FORM_CONTENT_TYPE },
      body: 'channel=COPS&text=hello',
    });
    const started = performance.now();
    const error = await fake.waitFor('views.open', undefined, 200).catch((e: unknown) => e);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(String(error)).toMatch(/no views\.open call within 200 ms/);
    expect(String(error)).toMatch(/chat\.postMessage \{"channel":"COPS","text":"hello"\}/);
    const described = await fake
      .waitFor('chat.postMessage', (call) => call.body.channel === 'CNOTIFY', {
        timeoutMs: 50,
        description: 'in CNOTIFY',
      })
      .catch((e: unknown) => e);
    expect(String(described)).toMatch(/no chat\.postMessage call in CNOTIFY within 50 ms; calls seen:/);
  });
});

describe('a real Bolt app driven through the harness', () => {
  let app: App;
  let eventsUrl: string;
  let startupAuthTest: SlackCall;
  const seen: {
    actions: BlockAction[];
    submissions: unknown[];
    closed: unknown[];
    homes: string[];
    suggestions: { typed: string; blockId: string; viewId?: string; user: string }[];
  } = { actions: [], submissions: [], closed: [], homes: [], suggestions: [] };

  beforeAll(async () => {
    const mark = fake.mark();
    app = new App({
      token: TOKEN,
      signingSecret: SECRET,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } },
    });
    app.command('/voice', async ({ ack, respond, command }) => {
      await ack();
      await respond({ response_type: 'ephemeral', text: `you said: ${command.text} (${command.user_id})` });
    });
    app.action('buy', async ({ ack, body, respond }) => {
      await ack();
      seen.actions.push(body as BlockAction);
      if ((body as BlockAction).response_url) await respond({ replace_original: true, text: 'bought' });
    });
    app.action('pick_region', async ({ ack, body }) => {
      await ack();
      seen.actions.push(body as BlockAction);
    });
    app.view('agent_create', async ({ ack, view }) => {
      seen.submissions.push(view);
      const name = view.state.values.name?.value?.value;
      if (!name) await ack({ response_action: 'errors', errors: { name: 'Give the agent a name' } });
      else await ack();
    });
    app.view({ callback_id: 'agent_create', type: 'view_closed' }, async ({ ack, view }) => {
      seen.closed.push(view);
      await ack();
    });
    app.options('pick_agent', async ({ ack, body }) => {
      const typed = body.value;
      seen.suggestions.push({ typed, blockId: body.block_id, viewId: body.view?.id, user: body.user.id });
      await ack({ options: [{ text: { type: 'plain_text', text: `Agent ${typed}` }, value: `agt_${typed}` }] });
    });
    app.event('app_home_opened', async ({ event, client }) => {
      seen.homes.push(event.user);
      await client.views.publish({ user_id: event.user, view: { type: 'home', blocks: [] } });
    });
    const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
    eventsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
    startupAuthTest = await fake.waitFor('auth.test', undefined, { since: mark });
  });

  afterAll(async () => {
    await app.stop();
  });

  beforeEach(() => fake.clear());

  it('made Bolt call auth.test on the fake with its token when it started', () => {
    expect(startupAuthTest.token).toBe(TOKEN);
  });

  it('acks a signed slash command and respond() lands on the fake response_url', async () => {
    const body = slashCommand({ text: 'numbers search US', userId: 'UADMIN', responseUrl: fake.respondUrl('cmd1') });
    const response = await postToSlackApp(eventsUrl, SECRET, body);
    expect(response.status).toBe(200);
    expect(response.body).toBe('');
    const call = await fake.waitFor('response_url', (c) => c.responseUrlId === 'cmd1');
    expect(call.body).toEqual({ response_type: 'ephemeral', text: 'you said: numbers search US (UADMIN)' });
  });

  it('answers 401 to a bad signature, a stale timestamp and a tampered body', async () => {
    const body = slashCommand({ text: 'agents', responseUrl: fake.respondUrl('never') });
    expect((await postToSlackApp(eventsUrl, SECRET, body, { signature: 'v0=deadbeef' })).status).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 10 * 60;
    expect((await postToSlackApp(eventsUrl, SECRET, body, { timestamp: stale })).status).toBe(401);
    expect((await postToSlackApp(eventsUrl, 'wrong-secret', body)).status).toBe(401);
    expect(fake.calls('response_url')).toHaveLength(0);
  });

  it('passes x-slack-retry-num through to the listener context', async () => {
    let retryNum: number | undefined;
    let retryReason: string | undefined;
    const probe = new App({
      token: TOKEN,
      signingSecret: SECRET,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } },
    });
    probe.command('/voice', async ({ ack, context }) => {
      retryNum = context.retryNum;
      retryReason = context.retryReason;
      await ack();
    });
    const server = (await probe.start({ port: 0, host: '127.0.0.1' })) as Server;
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
      const response = await postToSlackApp(url, SECRET, slashCommand({ text: 'agents' }), { retryNum: 1 });
      expect(response.status).toBe(200);
      expect(retryNum).toBe(1);
      expect(retryReason).toBe('http_timeout');
    } finally {
      await probe.stop();
    }
  });

  it('delivers a button click from a message with its value, channel and response_url', async () => {
    const body = blockAction({
      userId: 'UOPERATOR',
      actionId: 'buy',
      value: '+14155550123',
      container: { type: 'message', channelId: 'COPS', messageTs: '1700000000.000100', isEphemeral: true },
      responseUrl: fake.respondUrl('btn1'),
    });
    const response = await postToSlackApp(eventsUrl, SECRET, body);
    expect(response.status).toBe(200);
    const call = await fake.waitFor('response_url', (c) => c.responseUrlId === 'btn1');
    expect(call.body).toEqual({ replace_original: true, text: 'bought' });
    const action = seen.actions.at(-1);
    expect(action?.user.id).toBe('UOPERATOR');
    expect(action?.channel?.id).toBe('COPS');
    expect(action?.container).toMatchObject({ type: 'message', message_ts: '1700000000.000100', is_ephemeral: true });
    expect(action?.message).toBeUndefined();
    expect(action?.actions[0]).toMatchObject({
      type: 'button',
      action_id: 'buy',
      block_id: 'b_buy',
      value: '+14155550123',
    });
  });

  it('delivers a select in a modal with the view, its metadata and state', async () => {
    const body = blockAction({
      userId: 'UADMIN',
      actionId: 'pick_region',
      selectedOption: { value: 'GB', text: 'United Kingdom' },
      blockId: 'region',
      container: {
        type: 'view',
        viewId: 'V123',
        viewType: 'modal',
        callbackId: 'numbers_search',
        privateMetadata: '{"channel":"COPS"}',
        stateValues: { region: { pick_region: selectInput('GB', 'United Kingdom') } },
      },
    });
    const response = await postToSlackApp(eventsUrl, SECRET, body);
    expect(response.status).toBe(200);
    const action = seen.actions.at(-1);
    expect(action?.container).toEqual({ type: 'view', view_id: 'V123' });
    expect(action?.response_url).toBeUndefined();
    expect(action?.view).toMatchObject({
      id: 'V123',
      type: 'modal',
      callback_id: 'numbers_search',
      private_metadata: '{"channel":"COPS"}',
      state: { values: { region: { pick_region: { selected_option: { value: 'GB' } } } } },
    });
    expect(action?.actions[0]).toMatchObject({
      type: 'static_select',
      block_id: 'region',
      selected_option: { value: 'GB', text: { type: 'plain_text', text: 'United Kingdom' } },
    });
  });

  it('delivers a view_submission with its values, and returns the listener’s response_action', async () => {
    const ok = await postToSlackApp(
      eventsUrl,
      SECRET,
      viewSubmission({
        userId: 'UOPERATOR',
        callbackId: 'agent_create',
        privateMetadata: '{"channel":"COPS"}',
        stateValues: { name: { value: textInput('Front desk') }, language: { value: selectInput('en-US') } },
      }),
    );
    expect(ok).toMatchObject({ status: 200, body: '' });
    expect(seen.submissions.at(-1)).toMatchObject({
      type: 'modal',
      callback_id: 'agent_create',
      private_metadata: '{"channel":"COPS"}',
      state: {
        values: {
          name: { value: { type: 'plain_text_input', value: 'Front desk' } },
          language: { value: { type: 'static_select', selected_option: { value: 'en-US' } } },
        },
      },
    });

    const invalid = await postToSlackApp(
      eventsUrl,
      SECRET,
      viewSubmission({
        userId: 'UOPERATOR',
        callbackId: 'agent_create',
        stateValues: { name: { value: textInput(null) }, language: { value: selectInput(null) } },
      }),
    );
    expect(invalid.status).toBe(200);
    expect(invalid.json).toEqual({ response_action: 'errors', errors: { name: 'Give the agent a name' } });
  });

  it('delivers a block_suggestion to the options listener, and returns its options in the acknowledgement', async () => {
    const response = await postToSlackApp(
      eventsUrl,
      SECRET,
      blockSuggestion({
        userId: 'UOPERATOR',
        actionId: 'pick_agent',
        blockId: 'agent',
        value: 'desk',
        container: { type: 'view', viewId: 'VMAP', viewType: 'modal' },
      }),
    );
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      options: [{ text: { type: 'plain_text', text: 'Agent desk' }, value: 'agt_desk' }],
    });
    expect(seen.suggestions.at(-1)).toEqual({ typed: 'desk', blockId: 'agent', viewId: 'VMAP', user: 'UOPERATOR' });
  });

  it('delivers a view_closed', async () => {
    const response = await postToSlackApp(
      eventsUrl,
      SECRET,
      viewClosed({ userId: 'UADMIN', callbackId: 'agent_create', privateMetadata: 'meta' }),
    );
    expect(response.status).toBe(200);
    expect(seen.closed.at(-1)).toMatchObject({ callback_id: 'agent_create', private_metadata: 'meta' });
  });

  it('delivers app_home_opened as a signed JSON event', async () => {
    const response = await postToSlackApp(eventsUrl, SECRET, appHomeOpened({ userId: 'UADMIN' }), {
      contentType: JSON_CONTENT_TYPE,
    });
    expect(response.status).toBe(200);
    const publish = await fake.waitFor('views.publish');
    expect(publish.body).toMatchObject({ user_id: 'UADMIN', view: { type: 'home' } });
    expect(publish.token).toBe(TOKEN);
    expect(seen.homes).toContain('UADMIN');
  });
});

describe('captureLogs', () => {
  it('collects every line the app logger writes', () => {
    const logs = captureLogs();
    const logger = createLogger('debug', logs.stream);
    logger.info({ route: 'numbers.buy' }, 'bought');
    logger.debug('details');
    expect(logs.lines()).toHaveLength(2);
    expect(logs.entries()[0]).toMatchObject({ msg: 'bought', route: 'numbers.buy' });
    expect(logs.text()).toContain('"msg":"details"');
    logger.info({ apiKey: 'sk-secret' }, 'configured');
    expect(logs.text()).not.toContain('sk-secret');
    logs.clear();
    expect(logs.lines()).toEqual([]);
  });
});

describe('the secrets sweep run when each end-to-end app closes', () => {
  const token = `atk_${'ab12'.repeat(8)}`;
  const shownIn = (text: string) => ({
    type: 'modal' as const,
    title: { type: 'plain_text' as const, text: 'Agent created' },
    blocks: [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text } }],
  });
  let dir: string;
  let dbPath: string;
  let client: InstanceType<typeof webApi.WebClient>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sweep-'));
    dbPath = join(dir, 'app.db');
    new Database(dbPath).exec('CREATE TABLE notes (text TEXT)').close();
    client = new webApi.WebClient(TOKEN, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  beforeEach(() => fake.clear());

  const sweep =
    (logText = '') =>
    async () =>
      sweepForSecrets({ slack: fake, logText, databaseText: await databaseText(dbPath), credentials: [SECRET] });

  it('accepts a token shown only to its creator', async () => {
    await client.views.open({
      trigger_id: 't',
      view: shownIn(token),
    });
    await expect(sweep()()).resolves.toBeUndefined();
  });

  it('finds a token shown to the creator and then posted to a channel, logged or stored', async () => {
    await client.views.open({
      trigger_id: 't',
      view: shownIn(token),
    });
    await client.chat.postMessage({ channel: 'C1', text: `leak ${token}` });
    await expect(sweep()()).rejects.toThrow(/atk_ab12.* in a chat\.postMessage call/);
    fake.clear();
    await client.views.open({
      trigger_id: 't',
      view: shownIn(token),
    });
    await expect(sweep(`{"msg":"${token}"}`)()).rejects.toThrow(/in the logs/);
    const db = new Database(dbPath);
    db.prepare('INSERT INTO notes VALUES (?)').run(token);
    db.close();
    await expect(sweep()()).rejects.toThrow(/in the database/);
  });

  it('finds a credential anywhere, even in the requester’s own messages', async () => {
    await client.views.open({
      trigger_id: 't',
      view: shownIn(SECRET),
    });
    await expect(sweep()()).rejects.toThrow(/shown to a user/);
  });
});
