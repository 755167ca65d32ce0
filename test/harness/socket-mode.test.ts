// The Socket Mode stand-in speaks Slack's protocol: checked here with a bare WebSocket client, message by message.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { APP_ID, type FakeSlack, startFakeSlack } from './fake-slack.js';
import { appHomeOpened, blockAction, slashCommand, viewSubmission } from './payloads.js';
import { JSON_CONTENT_TYPE } from './signing.js';

let fake: FakeSlack;
const clients = new Set<WebSocket>();

beforeAll(async () => {
  fake = await startFakeSlack();
});
afterEach(() => {
  for (const client of clients) client.terminate();
  clients.clear();
});
afterAll(async () => {
  await fake.close();
});

type Message = Record<string, unknown>;

/** `apps.connections.open` with an app token, as the Socket Mode client calls it. */
async function connectionsOpen(): Promise<Message> {
  const response = await fetch(`${fake.apiUrl}apps.connections.open`, {
    method: 'POST',
    headers: { authorization: 'Bearer xapp-1-test' },
  });
  return (await response.json()) as Message;
}

/** A client connected to a fresh URL, with every message it receives queued for `next()`. */
async function connect() {
  const { url } = await connectionsOpen();
  const client = new WebSocket(String(url));
  clients.add(client);
  const queue: Message[] = [];
  const waiting: ((message: Message) => void)[] = [];
  client.on('message', (data) => {
    const message = JSON.parse(String(data)) as Message;
    const waiter = waiting.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  });
  const next = () => {
    const queued = queue.shift();
    return queued ? Promise.resolve(queued) : new Promise<Message>((resolve) => waiting.push(resolve));
  };
  const hello = await next();
  return { client, hello, next };
}

const closed = (client: WebSocket) =>
  new Promise<number>((resolve) => client.once('close', (code: number) => resolve(code)));

describe('connecting', () => {
  it('hands out a ws:// URL on the fake, greets each connection with hello, and counts them', async () => {
    const before = fake.socketMode.connections();
    const answer = await connectionsOpen();
    expect(answer).toMatchObject({ ok: true });
    expect(String(answer.url)).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/link/\\?ticket=.+&app_id=${APP_ID}$`));
    expect(fake.calls('apps.connections.open').at(-1)?.token).toBe('xapp-1-test');

    const { hello } = await connect();
    expect(hello).toMatchObject({ type: 'hello', num_connections: 1, connection_info: { app_id: APP_ID } });
    expect(fake.socketMode.connections()).toBe(before + 1);
    expect(fake.socketMode.connected()).toBe(true);
    await expect(fake.socketMode.waitForConnection(before + 1)).resolves.toBeUndefined();
  });

  it('refuses a URL used twice, or one it never handed out', async () => {
    const { url } = await connectionsOpen();
    const first = new WebSocket(String(url));
    clients.add(first);
    await new Promise((resolve) => first.once('message', resolve));
    for (const reused of [String(url), String(url).replace(/ticket=[^&]+/, 'ticket=forged')]) {
      const client = new WebSocket(reused);
      const refused = await new Promise<number>((resolve) =>
        client.once('unexpected-response', (request, response) => {
          request.destroy();
          resolve(response.statusCode ?? 0);
        }),
      );
      expect(refused).toBe(401);
    }
  });

  it('answers invalid_auth when told to, as for a revoked token', async () => {
    fake.failNext('apps.connections.open', 'invalid_auth');
    expect(await connectionsOpen()).toEqual({ ok: false, error: 'invalid_auth' });
    expect(await connectionsOpen()).toMatchObject({ ok: true });
  });

  it('times out waiting for a connection that never comes, saying how many came', async () => {
    const count = fake.socketMode.connections();
    await expect(fake.socketMode.waitForConnection(count + 1, 50)).rejects.toThrow(
      `${count} connections within 50 ms, waited for ${count + 1}`,
    );
  });
});

describe('envelopes and acks', () => {
  it('sends an envelope on the newest connection and resolves with the ack of its envelope_id', async () => {
    const { client, next } = await connect();
    const acked = fake.socketMode.send('interactive', { type: 'view_submission', view: { id: 'V1' } });
    const envelope = await next();
    expect(envelope).toMatchObject({
      type: 'interactive',
      payload: { type: 'view_submission', view: { id: 'V1' } },
      accepts_response_payload: true,
    });
    // An ack for another envelope settles nothing.
    client.send(JSON.stringify({ envelope_id: 'someone-else', payload: {} }));
    client.send(JSON.stringify({ envelope_id: envelope.envelope_id, payload: { response_action: 'clear' } }));
    const ack = await acked;
    expect(ack.envelopeId).toBe(envelope.envelope_id);
    expect(ack.payload).toEqual({ response_action: 'clear' });
  });

  it('turns Slack’s HTTP bodies into the envelopes Slack sends in Socket Mode', async () => {
    const { client, next } = await connect();
    client.on('message', (data) => {
      const { envelope_id } = JSON.parse(String(data)) as { envelope_id: string };
      client.send(JSON.stringify({ envelope_id, payload: {} }));
    });
    const command = slashCommand({ text: 'numbers search US', userId: 'UADMIN', responseUrl: 'http://r/1' });
    const button = blockAction({
      userId: 'UADMIN',
      actionId: 'buy',
      value: '+1',
      container: { type: 'message', channelId: 'C1' },
    });
    const submission = viewSubmission({ userId: 'UADMIN', callbackId: 'cb', stateValues: {} });
    const home = appHomeOpened({ userId: 'UADMIN' });

    const answers = [
      await fake.socketMode.deliver(command),
      await fake.socketMode.deliver(button, { retryNum: 2 }),
      await fake.socketMode.deliver(submission),
      await fake.socketMode.deliver(home, { contentType: JSON_CONTENT_TYPE }),
    ];
    const envelopes = [await next(), await next(), await next(), await next()];
    expect(envelopes.map((envelope) => [envelope.type, envelope.accepts_response_payload])).toEqual([
      ['slash_commands', true],
      ['interactive', false],
      ['interactive', true],
      ['events_api', false],
    ]);
    expect(envelopes[0]?.payload).toMatchObject({ command: '/voice', text: 'numbers search US', user_id: 'UADMIN' });
    expect(envelopes[1]).toMatchObject({ retry_attempt: 2, retry_reason: 'timeout' });
    expect(envelopes[1]?.payload).toMatchObject({
      type: 'block_actions',
      actions: [{ action_id: 'buy', value: '+1' }],
    });
    expect(envelopes[2]?.payload).toMatchObject({ type: 'view_submission', view: { callback_id: 'cb' } });
    expect(envelopes[3]?.payload).toMatchObject({ type: 'event_callback', event: { type: 'app_home_opened' } });
    expect(answers.map((answer) => [answer.status, answer.body])).toEqual([
      [200, ''],
      [200, ''],
      [200, ''],
      [200, ''],
    ]);
    await expect(fake.socketMode.deliver(command, { signature: 'v0=x' })).rejects.toThrow('no signature');
  });

  it('rejects an envelope that is not acked in time, or whose connection closes first', async () => {
    const { client, next } = await connect();
    await expect(fake.socketMode.send('events_api', {}, { timeoutMs: 50 })).rejects.toThrow(/no ack .* within 50 ms/);
    await next();
    const pending = fake.socketMode.send('slash_commands', {});
    await next();
    client.close();
    await expect(pending).rejects.toThrow('the connection closed before envelope');
  });

  it('fails to send when the app has no connection', async () => {
    const { client } = await connect();
    const closing = closed(client);
    client.close();
    await closing;
    await expect(fake.socketMode.send('slash_commands', {})).rejects.toThrow('no open connection');
  });
});

describe('ending connections and keeping them alive', () => {
  it('sends Slack’s disconnect message with its reason', async () => {
    const { next } = await connect();
    fake.socketMode.requestReconnect('refresh_requested');
    expect(await next()).toMatchObject({ type: 'disconnect', reason: 'refresh_requested' });
  });

  it('drops the socket without a close frame', async () => {
    const { client } = await connect();
    const code = closed(client);
    fake.socketMode.drop();
    expect(await code).toBe(1006);
    expect(fake.socketMode.connected()).toBe(false);
  });

  it('pings the app and takes its pong; answers the app’s pings unless told not to', async () => {
    const { client } = await connect();
    await fake.socketMode.ping();

    let pongs = 0;
    client.on('pong', () => {
      pongs += 1;
    });
    const pings = fake.socketMode.pingsReceived();
    client.ping();
    await expect.poll(() => pongs).toBe(1);
    expect(fake.socketMode.pingsReceived()).toBe(pings + 1);

    fake.socketMode.answerPings(false);
    client.ping();
    await expect.poll(() => fake.socketMode.pingsReceived()).toBe(pings + 2);
    fake.socketMode.answerPings(true);
    client.ping();
    // Frames arrive in order: once the third ping's pong is in, the second one's would have been too.
    await expect.poll(() => pongs).toBe(2);
    expect(fake.socketMode.pingsReceived()).toBe(pings + 3);
  });
});
