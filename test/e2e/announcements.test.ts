// Announcements people can read: each names a number with its region and an agent by name and id, a re-route says
// from which agent to which, and one person's changes within a minute share one message, rewritten in place
// (chat.update). A rewrite Slack refuses follows the rule of every announcement: audited, and the requester told.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BURST_MS } from '../../src/slack/announcer.js';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, NOTIFY_CHANNEL, OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import type { SlackCall } from '../harness/fake-slack.js';
import {
  type Announced,
  announced,
  announcedWith,
  announcementCalls,
  askForConfirmation,
  auditRows,
  auditTrail,
  buyThroughApp,
  confirmAs,
  createAgentThroughApp,
  mapThroughApp,
  outcomeOf,
  press,
  readable,
  sandboxNumbers,
  shownText,
  voiceNumber,
} from './support.js';

let t: TestApp;
let offset = 0;
beforeAll(async () => {
  t = await startTestApp({ now: () => new Date(Date.now() + offset) });
});
afterAll(async () => {
  await t?.close();
});

/** Moves the app's clock on by a minute: whatever anyone announced before is no longer rewritten. */
function aMinuteLater(): void {
  offset += BURST_MS;
}

/** What a person reads in a message's blocks, a line each. */
const linesOf = (message: Announced | undefined) => readable(message?.blocks ?? []).split('\n');

/** The message in the channel with this ts, as it reads now. */
const messageAt = (ts: string | undefined) => announced(t).find((message) => message.ts === ts);

async function numberId(number: string): Promise<string> {
  const id = (await sandboxNumbers(t)).find((entry) => entry.number === number)?.id;
  expect(id, `${number} at the sandbox`).toMatch(/^pn_/);
  return id ?? '';
}

/** The newest audit row of the buy of `number`'s request: its correlation id ties the announcement's failure to it. */
async function buyCorrelation(number: string): Promise<string> {
  const row = (await auditRows(t)).findLast(
    (candidate) => candidate.action === 'number.buy' && candidate.target === number,
  );
  return row?.correlation_id ?? '';
}

describe('one person’s minute of changes', () => {
  it('is one message, rewritten with a line per change: regions, agents by name and id, re-routes from → to', async () => {
    aMinuteLater();
    const before = announced(t).length;
    const mark = t.slack.mark();
    const { agent: alpha } = await createAgentThroughApp(t, OPERATOR, 'Alpha desk', 'en-GB');
    const { agent: beta } = await createAgentThroughApp(t, OPERATOR, 'Beta desk', 'de-DE');
    const number = await voiceNumber(t, 'GB');
    await buyThroughApp(t, OPERATOR, number);
    const id = await numberId(number);
    await mapThroughApp(t, OPERATOR, number, alpha.id);
    const reroute = await askForConfirmation(t, OPERATOR, `map ${number} ${beta.id}`);
    await confirmAs(t, OPERATOR, reroute.confirmationId);

    const rerouted = `re-routed *${number}* (GB) from *Alpha desk* (\`${alpha.id}\`) to *Beta desk* (\`${beta.id}\`)`;
    const message = await announcedWith(t, rerouted);
    expect(announced(t).slice(before), 'one message for the five changes').toEqual([message]);
    expect(linesOf(message)).toEqual([
      `<@${OPERATOR}> made 5 changes:`,
      `• created agent *Alpha desk* (\`${alpha.id}\`, en-GB)`,
      `• created agent *Beta desk* (\`${beta.id}\`, de-DE)`,
      `• bought *${number}* (GB, id \`${id}\`)`,
      `• routed *${number}* (GB) to *Alpha desk* (\`${alpha.id}\`)`,
      `• ${rerouted}`,
      `Each with its outcome: \`/voice audit ${OPERATOR}\``,
    ]);

    // Posted once with the first change, then rewritten in place with each next one.
    const calls = announcementCalls(t, mark);
    expect(calls.map((call) => call.method)).toEqual([
      'chat.postMessage',
      'chat.update',
      'chat.update',
      'chat.update',
      'chat.update',
    ]);
    expect(shownText(calls[0] as SlackCall)).toContain(
      `<@${OPERATOR}> created agent *Alpha desk* (\`${alpha.id}\`, en-GB)`,
    );
    expect(shownText(calls[0] as SlackCall)).toContain(`More: \`/voice agents ${alpha.id}\``);
    expect(new Set(calls.slice(1).map((call) => call.body.ts))).toEqual(new Set([message.ts]));
    expect(message.edits).toBe(4);
  });

  it('leaves another person’s changes to a message of their own', async () => {
    const operators = announced(t).findLast((message) => message.text.includes(`<@${OPERATOR}>`));
    const number = await voiceNumber(t, 'DE');
    await buyThroughApp(t, ADMIN, number);

    const admins = await announcedWith(t, `<@${ADMIN}> bought *${number}* (DE, id`);
    expect(admins.ts).not.toBe(operators?.ts);
    expect(messageAt(operators?.ts), 'the operator’s message is left as it was').toEqual(operators);
    expect(linesOf(admins)).toEqual([
      `<@${ADMIN}> bought *${number}* (DE, id \`${await numberId(number)}\`)`,
      `More: \`/voice numbers ${number}\``,
    ]);
  });

  it('ends a minute after its message was posted: the next change starts a new one', async () => {
    aMinuteLater();
    const first = await voiceNumber(t, 'FR');
    await buyThroughApp(t, OPERATOR, first);
    const opened = await announcedWith(t, `<@${OPERATOR}> bought *${first}*`);
    aMinuteLater();
    const second = await voiceNumber(t, 'FR');
    await buyThroughApp(t, OPERATOR, second);

    const next = await announcedWith(t, `<@${OPERATOR}> bought *${second}*`);
    expect(next.ts).not.toBe(opened.ts);
    expect(messageAt(opened.ts), 'the earlier message is not rewritten').toEqual(opened);
    expect(next.text).not.toContain(first);
  });

  it('takes two changes finishing together as one post and one rewrite, never two posts', async () => {
    aMinuteLater();
    const mark = t.slack.mark();
    const numbers = [await voiceNumber(t, 'ES'), await voiceNumber(t, 'ES', 1)];
    const asked = await Promise.all(numbers.map((number) => askForConfirmation(t, OPERATOR, `numbers buy ${number}`)));
    const pressed = await Promise.all(
      asked.map(({ confirmationId }) => press(t, OPERATOR, ACTION.confirmChange, confirmationId)),
    );
    await Promise.all(pressed.map((sent) => outcomeOf(t, sent.responseUrlId)));
    await t.settled();

    expect(announcementCalls(t, mark).map((call) => call.method)).toEqual(['chat.postMessage', 'chat.update']);
    const message = await announcedWith(t, `bought *${numbers[0]}*`);
    expect(message.text).toContain(`<@${OPERATOR}> made 2 changes:`);
    expect(message.text).toContain(`bought *${numbers[1]}* (ES, id`);
  });
});

describe('a rewrite Slack does not take', () => {
  it('is audited and the requester told; the message keeps what it had and the next change posts anew', async () => {
    aMinuteLater();
    const kept = await voiceNumber(t, 'IT');
    await buyThroughApp(t, OPERATOR, kept);
    const message = await announcedWith(t, `<@${OPERATOR}> bought *${kept}*`);

    const lost = await voiceNumber(t, 'IT');
    const { confirmationId } = await askForConfirmation(t, OPERATOR, `numbers buy ${lost}`);
    t.slack.failNext('chat.update', { status: 429, retryAfter: 20 });
    const pressed = await press(t, OPERATOR, ACTION.confirmChange, confirmationId);
    expect(shownText(await outcomeOf(t, pressed.responseUrlId))).toContain(`Bought *${lost}*`);
    const note = await t.slack.waitFor(
      'response_url',
      (call) =>
        call.responseUrlId === pressed.responseUrlId && shownText(call).includes('did not get the announcement'),
    );
    expect(shownText(note)).toContain(`<#${NOTIFY_CHANNEL}> did not get the announcement`);
    expect(shownText(note)).toContain('limiting how often the app may post');
    await t.settled();
    expect(
      (await auditTrail(t, await buyCorrelation(lost))).map((row) => [row.action, row.outcome, row.error_code]),
    ).toEqual([
      ['number.buy', 'requested', null],
      ['number.buy', 'confirmed', null],
      ['number.buy', 'succeeded', null],
      ['change.announce', 'failed', 'ratelimited'],
    ]);
    expect(messageAt(message.ts), 'the message still reads the change it had').toEqual(message);

    const after = await voiceNumber(t, 'IT');
    await buyThroughApp(t, OPERATOR, after);
    const next = await announcedWith(t, `<@${OPERATOR}> bought *${after}*`);
    expect(next.ts).not.toBe(message.ts);
    expect(next.edits).toBe(0);
  });

  it('is tried again after a 5xx within its budget, and then reads both changes, nothing audited', async () => {
    aMinuteLater();
    const first = await voiceNumber(t, 'NL');
    await buyThroughApp(t, OPERATOR, first);
    const second = await voiceNumber(t, 'NL');
    const mark = t.slack.mark();
    t.slack.failNext('chat.update', { status: 503 });
    await buyThroughApp(t, OPERATOR, second);

    const message = await announcedWith(t, `bought *${second}*`);
    expect(message.text).toContain(`<@${OPERATOR}> made 2 changes:`);
    expect(message.text).toContain(`bought *${first}*`);
    expect(announcementCalls(t, mark).map((call) => call.method)).toEqual(['chat.update', 'chat.update']);
    expect((await auditTrail(t, await buyCorrelation(second))).map((row) => row.action)).not.toContain(
      'change.announce',
    );
  });

  it('because the message was deleted from the channel posts the change anew, nothing audited', async () => {
    aMinuteLater();
    const first = await voiceNumber(t, 'AU');
    await buyThroughApp(t, OPERATOR, first);
    const removed = await announcedWith(t, `<@${OPERATOR}> bought *${first}*`);
    t.slack.removeMessage(NOTIFY_CHANNEL, removed.ts);
    const mark = t.slack.mark();
    const second = await voiceNumber(t, 'AU');
    await buyThroughApp(t, OPERATOR, second);

    const next = await announcedWith(t, `<@${OPERATOR}> bought *${second}*`);
    expect(next.text).not.toContain(first);
    expect(announcementCalls(t, mark).map((call) => call.method)).toEqual(['chat.update', 'chat.postMessage']);
    expect((await auditTrail(t, await buyCorrelation(second))).map((row) => row.action)).not.toContain(
      'change.announce',
    );
  });
});
