// The playground's page server: loopback only, its own page under a strict content policy, no requests for other
// host names or from other origins; and what a person types reaches the real app as a signed Slack request whose
// reply only that person sees.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR, OPS_CHANNEL, VIEWER } from '../../src/playground/people.js';
import type { PageState } from '../../src/playground/render.js';
import { startTestPlayground, type TestPlayground } from './support.js';

let t: TestPlayground;
let origin: string;

beforeAll(async () => {
  t = await startTestPlayground();
  origin = t.url.replace(/\/$/, '');
});

afterAll(async () => {
  await t.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  request(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin, ...headers },
    body: JSON.stringify(body),
  });

async function stateOf(userId: string): Promise<PageState> {
  const response = await request(`${origin}/api/state?user=${userId}`);
  return (await response.body.json()) as PageState;
}

async function until<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = await read();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the playground page server', () => {
  it('listens on loopback and serves its page under a content security policy', async () => {
    expect(t.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await request(t.url);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(await page.body.text()).toContain('Nothing real is bought or routed');
    const script = await request(`${origin}/page/app.js`);
    expect(script.headers['content-type']).toContain('text/javascript');
    await script.body.dump();
    const unknown = await request(`${origin}/page/../../config.ts`);
    expect(unknown.statusCode).toBe(404);
    await unknown.body.dump();
  });

  it('refuses another host name, other origins, and anything but JSON', async () => {
    const rebound = await request(t.url, { headers: { host: 'attacker.example' } });
    expect(rebound.statusCode).toBe(403);
    await rebound.body.dump();
    const typed = { user: OPERATOR.id, channel: OPS_CHANNEL.id, text: 'hello' };
    const foreign = await post('/api/type', typed, { origin: 'http://attacker.example' });
    expect(foreign.statusCode).toBe(403);
    await foreign.body.dump();
    const form = await post('/api/type', typed, { 'content-type': 'text/plain' });
    expect(form.statusCode).toBe(403);
    await form.body.dump();
    const stranger = await post('/api/type', { ...typed, user: 'USOMEONE' });
    expect(stranger.statusCode).toBe(400);
    await stranger.body.dump();
    expect((await stateOf(OPERATOR.id)).conversations[OPS_CHANNEL.id]).toEqual([]);
  });

  it('sends a typed /voice command to the app as a signed request, and shows the reply to that person only', async () => {
    // The app refuses what is not signed with its secret, so a reply proves the playground signed the request.
    const unsigned = await request(`${t.playground.app.url}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'command=%2Fvoice&text=help',
    });
    expect(unsigned.statusCode).toBe(401);
    await unsigned.body.dump();

    const sent = await post('/api/type', { user: OPERATOR.id, channel: OPS_CHANNEL.id, text: '/voice help' });
    expect(await sent.body.json()).toEqual({ ok: true });
    const reply = await until(async () => {
      const messages = (await stateOf(OPERATOR.id)).conversations[OPS_CHANNEL.id] ?? [];
      return messages.find((message) => message.via === 'response_url');
    }, 'the reply');
    expect(reply).toMatchObject({ ephemeral: true, author: { name: 'Voice Ops', app: true } });
    expect(JSON.stringify(reply.blocks)).toContain('Voice Ops commands');
    expect((await stateOf(VIEWER.id)).conversations[OPS_CHANNEL.id]).toEqual([]);
  });

  it('takes a click on the Home tab as drawn before the app published it again, as Slack does', async () => {
    const homeOf = async () => (await stateOf(OPERATOR.id)).home;
    await post('/api/home', { user: OPERATOR.id });
    const drawn = await until(homeOf, 'the Home tab');
    const tools = drawn.blocks.find(
      (block) =>
        block.t === 'actions' && block.elements.some((element) => 'text' in element && element.text === 'Buy a number'),
    );
    const buy = tools?.t === 'actions' ? tools.elements.find((element) => element.t === 'button') : undefined;
    if (tools?.t !== 'actions' || buy?.t !== 'button') throw new Error('the Home tab has no Buy a number button');

    await post('/api/home', { user: OPERATOR.id });
    await until(async () => ((await homeOf())?.revision ?? 0) > drawn.revision || undefined, 'the Home tab again');
    const clicked = await post('/api/act', {
      user: OPERATOR.id,
      target: { kind: 'view', viewId: drawn.id },
      blockId: tools.blockId,
      actionId: buy.actionId,
    });
    expect(await clicked.body.json()).toEqual({ ok: true });
    const form = await until(async () => (await stateOf(OPERATOR.id)).modal, 'the search form');
    expect(form.title).toBe('Search numbers');
    await post('/api/close', { user: OPERATOR.id, viewId: form.id, all: true });
  });

  it('says a click on a button no longer drawn, or on a message gone, sent nothing, and what to do', async () => {
    await post('/api/home', { user: OPERATOR.id });
    const home = await until(async () => (await stateOf(OPERATOR.id)).home, 'the Home tab');
    await t.playground.app.idle();
    const calls = t.playground.slack.calls().length;
    const gone = await post('/api/act', {
      user: OPERATOR.id,
      target: { kind: 'view', viewId: home.id },
      blockId: 'no_such_block',
      actionId: 'no_such_button',
    });
    expect(await gone.body.json()).toEqual({
      ok: false,
      reason: expect.stringMatching(
        /^That button or menu is gone: the app replaced .* Nothing was sent to the app; use/,
      ),
    });
    const cleared = await post('/api/act', {
      user: OPERATOR.id,
      target: { kind: 'message', channel: OPS_CHANNEL.id, ts: '1.000001' },
      blockId: 'no_such_block',
      actionId: 'no_such_button',
    });
    expect(await cleared.body.json()).toEqual({
      ok: false,
      reason: expect.stringMatching(
        /^That message is gone: .*Start over cleared the page\. Nothing was sent to the app\.$/,
      ),
    });
    await t.playground.app.idle();
    expect(t.playground.slack.calls().length).toBe(calls);
  });

  it('answers another slash command as Slackbot does, and posts plain text for everyone without telling the app', async () => {
    const calls = t.playground.slack.calls().length;
    await post('/api/type', { user: VIEWER.id, channel: OPS_CHANNEL.id, text: '/weather' });
    await post('/api/type', { user: VIEWER.id, channel: OPS_CHANNEL.id, text: 'hello <b>team</b>' });
    const seen = (await stateOf(VIEWER.id)).conversations[OPS_CHANNEL.id] ?? [];
    expect(seen.map((message) => [message.via, message.author.name, message.text])).toEqual([
      [
        'slack',
        'Slackbot',
        [{ t: 'text', text: '/weather is not a valid command. In the playground, only /voice works.' }],
      ],
      ['message', VIEWER.name, [{ t: 'text', text: 'hello <b>team</b>' }]],
    ]);
    const operatorSees = (await stateOf(OPERATOR.id)).conversations[OPS_CHANNEL.id] ?? [];
    expect(operatorSees.filter((message) => message.via === 'message')).toHaveLength(1);
    expect(t.playground.slack.calls().length).toBe(calls);
  });
});
