// Whatever people type — any unicode, 10k-character pastes, Slack's own mention and link syntax, quotes and SQL — the
// real app answers it, never throws it back at them, never lets it ping a channel or forge a link anywhere it posts,
// and keeps its audit table intact. (Unsigned, wrongly signed and stale requests: test/e2e/audit-and-secrets.test.ts.)
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, tokenize } from '../../src/slack/command.js';
import { CALLBACK, INPUT } from '../../src/slack/ids.js';
import { AuditLog } from '../../src/store/audit.js';
import { auditRows, buyThroughApp, createAgentThroughApp, shownText, voiceNumber } from '../e2e/support.js';
import { ADMIN, NOTIFY_CHANNEL, OPERATOR, type SentRequest, startTestApp, type TestApp } from '../harness/app.js';
import { RESPONSE_URL, type SlackCall } from '../harness/fake-slack.js';
import { selectInput, textInput } from '../harness/payloads.js';
import { mrkdwnMarks } from '../harness/slack-mrkdwn.js';
import { until } from './support.js';

// Each property sends dozens of deliveries through the app; on a machine busy with the rest of the suite (and a
// Postgres server sharing its cores) that can outlast the default limit, which is only there to end a stuck test.
const PROPERTY_LIMIT_MS = 180_000;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

// ---------------------------------------------------------------------------------------------------------------
// What people type

const MARKUP = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<!subteam^S123|@ops>',
  '<@U123>',
  '<@U123|bob>',
  '<#C123>',
  '<#C123|general>',
  '<http://x|y>',
  '<https://evil.example/login|Reset your password>',
  '<tel:+14155550123|+1 415 555 0123>',
  '<mailto:a@b.example|mail>',
  '&lt;!channel&gt;',
  '&amp;lt;!here&amp;gt;',
  '<!date^1|x>',
];
const SQL_AND_QUOTES = [
  "'; DROP TABLE audit_events; --",
  "' OR '1'='1",
  '"; DELETE FROM confirmations; --',
  "Robert'); DROP TABLE routes;--",
  '"',
  '“',
  "'",
  '\\',
  '%_',
];
const FORMATTING = [
  '*bold*',
  '_it_',
  '~strike~',
  '`code`',
  '```',
  '> quoted',
  '\n',
  '\t',
  '\u0000',
  '\u202e',
  '\u200b',
];
const SCRIPTS = ['👩‍👩‍👧‍👦', '𝕏', 'é', 'ß', '日本語', 'العربية', '\ud800'];

const atom = fc.constantFrom(...MARKUP, ...SQL_AND_QUOTES, ...FORMATTING, ...SCRIPTS);
const unicode = fc.string({ unit: 'binary', maxLength: 30 });
const long = fc
  .tuple(fc.oneof(atom, fc.constant('a')), fc.integer({ min: 1000, max: 10_000 }))
  .map(([piece, length]) => piece.repeat(Math.ceil(length / piece.length)).slice(0, length));
const hostile = fc
  .oneof(
    { weight: 5, arbitrary: fc.array(fc.oneof(atom, unicode), { minLength: 1, maxLength: 6 }).map((p) => p.join(' ')) },
    { weight: 1, arbitrary: long },
    { weight: 1, arbitrary: unicode },
  )
  // So that "undefined" in a reply can only be the app's.
  .filter((text) => !/undefined/i.test(text));

/** Hostile text as the command word itself, quoted or not: help answers it, echoing the word back. */
const FIRST_WORDS = new Set(COMMANDS.map((spec) => spec.words[0]));
const commandWord = fc
  .record({ text: hostile, quoted: fc.boolean() })
  .map(({ text, quoted }) => (quoted ? `"${text}"` : text))
  .filter((text) => {
    const [first] = tokenize(text);
    return first !== undefined && !FIRST_WORDS.has(first.toLowerCase());
  });

/** Each command word, followed by hostile text, sometimes quoted, sometimes ending in a locale (so agents get made). */
const COMMAND_WORDS = [
  '',
  'help',
  'agents',
  'agents create',
  'agents delete',
  'numbers',
  'numbers search',
  'numbers buy',
  'numbers release',
  'map',
  'audit',
  'nonsense',
];
const commandText = fc.oneof(
  fc
    .record({
      words: fc.constantFrom(...COMMAND_WORDS),
      text: hostile,
      quoted: fc.boolean(),
      locale: fc.constantFrom('', ' en-US', ' sv_se'),
    })
    .map(({ words, text, quoted, locale }) => `${words} ${quoted ? `"${text}"` : text}${locale}`),
  // Agents named with it, so that it reaches announcements, listings, the Home tab and the audit log.
  fc.array(atom, { minLength: 1, maxLength: 4 }).map((name) => `agents create "${name.join(' ')}" en-US`),
);

// ---------------------------------------------------------------------------------------------------------------
// What the app posts

/** The app's own markup: the expiry time of a confirmation and the actor of an announcement. */
// The app's own: its times, and the people and channel its settings name (the Home tab's Settings).
const OWN_MARKUP = [
  /<!date\^\d+\^\{time\}\|\d\d:\d\d UTC>/g,
  new RegExp(`<@(${ADMIN}|${OPERATOR})>`, 'g'),
  new RegExp(`<#${NOTIFY_CHANNEL}>`, 'g'),
];

/** Every mrkdwn text in a posted body: mrkdwn text objects, and a message's own `text` (Slack parses it too). */
function mrkdwnTexts(call: SlackCall): string[] {
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(walk);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    if (record.type === 'mrkdwn' && typeof record.text === 'string') found.push(record.text);
    Object.values(record).forEach(walk);
  };
  walk(call.body);
  if (typeof call.body.text === 'string') found.push(call.body.text);
  return found;
}

const POSTING = new Set([
  RESPONSE_URL,
  'chat.postMessage',
  'chat.update',
  'views.open',
  'views.update',
  'views.push',
  'views.publish',
]);

/** Every post is well formed, says something, and carries no markup but the app's own. */
function expectSafe(calls: SlackCall[]): void {
  for (const call of calls.filter((candidate) => POSTING.has(candidate.method))) {
    const where = `${call.method} ${JSON.stringify(call.body).slice(0, 300)}`;
    if (call.method === RESPONSE_URL || call.method.startsWith('chat.')) {
      expect(typeof call.body.text === 'string' && call.body.text.trim() !== '', `text of ${where}`).toBe(true);
      expect(Array.isArray(call.body.blocks), `blocks of ${where}`).toBe(true);
    } else {
      const view = call.body.view as { type?: string; blocks?: unknown } | undefined;
      expect(view?.type, `view of ${where}`).toMatch(/^(modal|home)$/);
      expect(Array.isArray(view?.blocks), `blocks of ${where}`).toBe(true);
    }
    expect(shownText(call), where).not.toMatch(/undefined|\n\s+at |\.ts:\d+/);
    for (const text of mrkdwnTexts(call)) {
      const bare = OWN_MARKUP.reduce((rest, markup) => rest.replace(markup, ''), text);
      // `<` opens every mention, channel link, broadcast and link; the app escapes each one it did not write.
      expect(bare, `mrkdwn in ${where}`).not.toMatch(/<[!@#a-z]/i);
      expect(bare, `mrkdwn in ${where}`).not.toContain('<');
    }
  }
}

/** Every post that answered one request, once the request has finished all it will do. */
async function settled(mark: number, sent: SentRequest): Promise<SlackCall[]> {
  const since = () => t.slack.calls().slice(mark);
  const answered = (calls: SlackCall[]) =>
    calls.some(
      (call) =>
        (call.method === RESPONSE_URL && call.responseUrlId === sent.responseUrlId) ||
        (call.method === 'views.open' && call.body.trigger_id === sent.triggerId),
    );
  const calls = await until(since, answered, 'the answer to the request');
  // The map form opens loading and is filled in when the provider has answered.
  const loading = calls.find((call) => call.method === 'views.open' && shownText(call).includes('Loading'));
  if (loading) await until(since, (later) => later.some((call) => call.method === 'views.update'), 'the form');
  // The announcement follows the answer: wait until the app is done with the request.
  await t.settled();
  return finished(mark);
}

/** How a change reaches the channel: a new message, or its author's message of the last minute rewritten. */
const ANNOUNCING = ['chat.postMessage', 'chat.update'];

/** After a change, the actor's Home tab is refreshed once the answer is shown: wait for that too. */
async function finished(mark: number): Promise<SlackCall[]> {
  const since = () => t.slack.calls().slice(mark);
  const changed = since().some((call) => ANNOUNCING.includes(call.method));
  if (changed) await until(since, (calls) => calls.some((call) => call.method === 'views.publish'), 'the Home tab');
  return since();
}

const errorLines = () =>
  t.logs.entries().filter((entry) => typeof entry.level === 'number' && entry.level >= 50).length;

// ---------------------------------------------------------------------------------------------------------------

/** Sends `/voice TEXT` and returns every post that answered it, each checked by `expectSafe`. */
async function sendSafely(text: string): Promise<{ sent: SentRequest; calls: SlackCall[] }> {
  const mark = t.slack.mark();
  const sent = await t.command(text, ADMIN);
  expect(sent.status).toBe(200);
  const calls = await settled(mark, sent);
  expectSafe(calls);
  return { sent, calls };
}

/** The reply to `/voice TEXT` among the calls that answered it. */
function replyTo(sent: SentRequest, calls: SlackCall[]): SlackCall {
  const reply = calls.find((call) => call.method === RESPONSE_URL && call.responseUrlId === sent.responseUrlId);
  expect(reply, 'a reply through response_url').toBeDefined();
  return reply as SlackCall;
}

describe('hostile text as /voice command text', () => {
  it(
    'is answered, never thrown back, and never pings, links or formats anything, wherever it is echoed',
    async () => {
      const errors = errorLines();
      // Help echoing a plain unknown word: what every echo of a hostile one must look like to Slack.
      const plain = await sendSafely('zzz');
      const plainEcho = mrkdwnMarks(replyTo(plain.sent, plain.calls).body);
      await fc.assert(
        fc.asyncProperty(commandWord, commandText, async (word, text) => {
          // In the command word's place, every run: help echoes it.
          const echoed = await sendSafely(word);
          const echo = replyTo(echoed.sent, echoed.calls);
          expect(shownText(echo)).toContain("I don't know");
          expect(mrkdwnMarks(echo.body), `the echo of ${JSON.stringify(word)}`).toEqual(plainEcho);
          // After a command word: whatever command it makes.
          await sendSafely(text);
        }),
        // A user id typed into the audit filter is echoed in the page's heading.
        { numRuns: 60, examples: [['<!channel>', 'audit <@U123|bob>']] },
      );
      expect(errorLines(), 'no error logged by any listener').toBe(errors);
      // Some of those runs made changes, and listings and the audit log echoed them back: check those too.
      const mark = t.slack.mark();
      for (const text of ['agents', 'audit', 'numbers']) expectSafe(await settled(mark, await t.command(text)));
    },
    PROPERTY_LIMIT_MS,
  );

  it('an agent named with markup and SQL is created, announced and listed escaped, and stored as typed', async () => {
    const name = "<!channel> '; DROP TABLE audit_events; -- <http://x|y>";
    const mark = t.slack.mark();
    const sent = await t.command(`agents create "${name}" en-US`, OPERATOR);
    const calls = await settled(mark, sent);
    const announced = calls.filter((call) => ANNOUNCING.includes(call.method));
    expect(announced).toHaveLength(1);
    expect(shownText(announced[0] as SlackCall)).toContain('&lt;!channel&gt;');
    expectSafe(calls);
    const stored = (await auditRows(t)).filter((row) => row.action === 'agent.create' && row.outcome === 'requested');
    expect(stored.some((row) => JSON.parse(row.params ?? '{}').name === name)).toBe(true);
  });
});

describe('hostile text in the create-agent form', () => {
  const form = fc.record({
    name: fc.oneof(
      hostile,
      hostile.map((text) => text.slice(0, 100)),
    ),
    picked: fc.constantFrom(null, 'en-US', 'sv-SE'),
    other: fc.option(fc.oneof(hostile, fc.constantFrom('de-DE', 'pt_br', 'EN-us')), { nil: null }),
  });
  let views = 0;

  it(
    'answers with inline errors or the outcome in the modal, escaped, and never throws',
    async () => {
      const errors = errorLines();
      await fc.assert(
        fc.asyncProperty(form, async ({ name, picked, other }) => {
          const viewId = `VHOSTILE${++views}`;
          const mark = t.slack.mark();
          const answer = await t.submit({
            userId: OPERATOR,
            callbackId: CALLBACK.createAgent,
            viewId,
            privateMetadata: '{}',
            stateValues: {
              [INPUT.agentName.block]: { [INPUT.agentName.action]: textInput(name) },
              [INPUT.agentLanguage.block]: { [INPUT.agentLanguage.action]: selectInput(picked) },
              [INPUT.agentLanguageOther.block]: { [INPUT.agentLanguageOther.action]: textInput(other) },
            },
          });
          expect(answer.status).toBe(200);
          const ack = answer.json as { response_action?: string; errors?: Record<string, unknown> };
          if (ack.response_action === 'errors') {
            const messages = Object.values(ack.errors ?? {});
            expect(messages.length).toBeGreaterThan(0);
            for (const message of messages) {
              expect(typeof message).toBe('string');
              expect(message).not.toMatch(/undefined/);
            }
            return;
          }
          expect(ack.response_action).toBe('update');
          await until(
            () => t.slack.calls().slice(mark),
            (calls) => calls.some((call) => call.method === 'views.update' && call.body.view_id === viewId),
            'the outcome in the modal',
          );
          expectSafe(await finished(mark));
        }),
        // A lone surrogate in a name once stopped a creation on Postgres, where the name went into a lock's text.
        { numRuns: 40, examples: [[{ name: '\ud800 ', picked: 'sv-SE', other: null }]] },
      );
      expect(errorLines(), 'no error logged by any listener').toBe(errors);
    },
    PROPERTY_LIMIT_MS,
  );
});

describe('after all that', () => {
  it('the database passes its integrity check and every audit row is still there and readable', async () => {
    const db = await t.database.sql();
    if (t.database.target.kind === 'sqlite') {
      expect(await db.get('PRAGMA integrity_check')).toEqual({ integrity_check: 'ok' });
    }
    expect(JSON.parse(await t.database.text())).toEqual(
      expect.objectContaining({
        audit_events: expect.any(Array),
        confirmations: expect.any(Array),
        routes: expect.any(Array),
      }),
    );
    const count = (await db.get<{ n: number }>('SELECT count(*) AS n FROM audit_events'))?.n ?? 0;
    expect(count).toBeGreaterThan(20);
    // Read back through the app's own schema, row by row.
    const events = [];
    for await (const event of new AuditLog(db).since(new Date(0))) events.push(event);
    expect(events).toHaveLength(count);
    expect(Math.max(...(await auditRows(t)).map((row) => row.id))).toBe(count);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Text that looks right

describe('an id or a number with a hidden or look-alike character', () => {
  const answerTo = async (text: string) => {
    const sent = await t.command(text, ADMIN);
    return shownText(await t.respondedTo(sent.responseUrlId));
  };

  it('shows the character, so that the person sees why it was not found', async () => {
    const { agent } = await createAgentThroughApp(t, ADMIN, 'Lookalike desk');
    const number = await voiceNumber(t, 'NL', 4);
    await buyThroughApp(t, ADMIN, number);
    const hidden = `${agent.id}\u200B`;
    const fullWidth = `${number.slice(0, -1)}\uFF11`;

    expect(await answerTo(`map ${number} ${hidden}`)).toContain(`No agent is named "${agent.id}[U+200B]"`);
    expect(await answerTo(`agents ${hidden}`)).toContain(`name contains \`${agent.id}[U+200B]\``);
    expect(await answerTo(`numbers ${fullWidth}`)).toContain(`Number "${number.slice(0, -1)}[U+FF11]" must be`);
    expect(await answerTo(`numbers buy ${fullWidth}`)).toContain('[U+FF11]');
    expect(await answerTo(`numbers release ${fullWidth}`)).toContain('[U+FF11]');
    expect(await answerTo(`map ${fullWidth} ${agent.id}`)).toContain('[U+FF11]');
    // Plain text reads as typed.
    expect(await answerTo(`map ${number} agt_nosuch`)).toContain('No agent is named "agt_nosuch",');
  });
});
