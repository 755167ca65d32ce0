// The guardrails set in the environment hold in the playground too, and its help and Home tab state them; the
// channels they name are the playground's own, since a real workspace's channels do not exist there.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOUNCEMENTS, OPERATOR, OPS_CHANNEL } from '../../src/playground/people.js';
import type { PageState } from '../../src/playground/render.js';
import { startTestPlayground, type TestPlayground } from './support.js';

let t: TestPlayground;
let origin: string;

beforeAll(async () => {
  t = await startTestPlayground({
    VOICE_BUY_LIMIT: '3/day',
    VOICE_REQUIRE_APPROVAL: 'number.buy',
    VOICE_APPROVALS_CHANNEL_ID: 'CREALAPPROVALS',
    VOICE_CHANGE_CHANNELS: 'CREALOPS',
    VOICE_TYPED_RELEASE: 'true',
  });
  origin = t.url.replace(/\/$/, '');
});

afterAll(async () => {
  await t.close();
});

const post = (path: string, body: unknown) =>
  request(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify(body),
  });

async function stateOf(userId: string): Promise<PageState> {
  const response = await request(`${origin}/api/state?user=${userId}`);
  return (await response.body.json()) as PageState;
}

/** The words a person reads in what the page draws: every text in it, in order. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return value.map(shown).join('');
  if (value === null || typeof value !== 'object') return '';
  const { text, ...rest } = value as Record<string, unknown>;
  return (typeof text === 'string' ? text : shown(text)) + Object.values(rest).map(shown).join('');
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

const RULES = [
  'Buying: 0 of 3 today (VOICE_BUY_LIMIT)',
  `Buying needs a second approver, asked in #${ANNOUNCEMENTS.name} (VOICE_REQUIRE_APPROVAL)`,
  `Changes only in #${OPS_CHANNEL.name} (VOICE_CHANGE_CHANNELS)`,
  'asks for its last four digits (VOICE_TYPED_RELEASE)',
];

describe('the playground with guardrails set', () => {
  it('states them in help, naming its own channels', async () => {
    await post('/api/type', { user: OPERATOR.id, channel: OPS_CHANNEL.id, text: '/voice help' });
    const help = await until(async () => {
      const messages = (await stateOf(OPERATOR.id)).conversations[OPS_CHANNEL.id] ?? [];
      return messages.find((message) => message.via === 'response_url');
    }, 'the help');
    for (const rule of RULES) expect(shown(help.blocks)).toContain(rule);
  });

  it('states them on the Home tab, and Slack refused nothing it was sent', async () => {
    await post('/api/home', { user: OPERATOR.id });
    const home = await until(async () => (await stateOf(OPERATOR.id)).home, 'the Home tab');
    for (const rule of RULES) expect(shown(home)).toContain(rule);
    expect((await stateOf(OPERATOR.id)).refusals).toEqual([]);
  });
});
