// Slack hangs, rate-limits and fails like any dependency. Whatever happens to an announcement or a group read, the
// requester is answered, the number is free for the next change, and no one else's modal or reply waits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import {
  askForConfirmation,
  auditRows,
  auditTrail,
  buyThroughApp,
  outcomeOf,
  press,
  shownText,
  voiceNumber,
} from '../e2e/support.js';
import { ADMIN, NOTIFY_CHANNEL, OPERATOR, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { callsSince, correlationOf } from './support.js';

// Budgets shortened from the app's (seconds) so that each hang below costs a fraction of a second.
const BUDGETS = {
  ui: { timeoutMs: 1_000, retries: 0 },
  announcements: { timeoutMs: 1_000, retries: 1 },
  groups: { timeoutMs: 300, retries: 0 },
  identity: { timeoutMs: 1_000, retries: 0 },
};
const GROUP = 'SOPS';
// Each test below buys as an operator of its own: a second change by one person within a minute would rewrite their
// announcement (chat.update) instead of posting one. Faults of chat.update are in test/e2e/announcements.test.ts.
const BUYERS = ['UBUYER1', 'UBUYER2', 'UBUYER3', 'UBUYER4'] as const;
const [RATE_LIMITED, GIVEN_UP, UNAVAILABLE, UNINVITED] = BUYERS;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    slackBudgets: BUDGETS,
    operators: [OPERATOR, GROUP, ...BUYERS],
    groups: { [GROUP]: ['UGROUPED'] },
  });
});
afterAll(async () => {
  await t?.close();
});

const announcementsOf = (number: string, since: number) =>
  callsSince(t, 'chat.postMessage', since).filter(
    (call) => call.body.channel === NOTIFY_CHANNEL && String(call.body.text).includes(number),
  );

/** The position of a call in the fake's log, to compare the order in which calls reached Slack. */
const positionOf = (app: TestApp, call: unknown) => app.slack.calls().indexOf(call as never);

describe('an announcement that never answers', () => {
  it('holds neither the buyer, nor the number, nor anyone else while Slack keeps it waiting', async () => {
    // An app that would wait for its announcement longer than the test may run: Slack holds the post until the test
    // lets it go, so all that follows provably happens while the announcement hangs.
    const patient = await startTestApp({
      slackBudgets: { ...BUDGETS, announcements: { timeoutMs: 60_000, retries: 0 } },
    });
    const release = patient.slack.hold('chat.postMessage');
    try {
      const number = await voiceNumber(patient, 'CA');
      const { confirmationId } = await askForConfirmation(patient, OPERATOR, `numbers buy ${number}`);
      const pressed = await press(patient, OPERATOR, ACTION.confirmChange, confirmationId);
      const bought = await outcomeOf(patient, pressed.responseUrlId);
      expect(shownText(bought)).toContain(`Bought *${number}*`);
      const announcement = await patient.slack.waitFor(
        'chat.postMessage',
        (call) => call.body.channel === NOTIFY_CHANNEL,
      );
      expect(positionOf(patient, bought), 'the answer reached Slack before the announcement was tried').toBeLessThan(
        positionOf(patient, announcement),
      );

      // While the announcement hangs, the number is not busy and another user's form opens.
      const releasing = await askForConfirmation(patient, ADMIN, `numbers release ${number}`);
      expect(shownText(releasing.prompt)).toContain('Release');
      const form = await patient.command('agents create', ADMIN);
      await patient.slack.waitFor('views.open', (call) => call.body.trigger_id === form.triggerId);
      expect(patient.app.underWay().deliveries, 'the announcement is still waited for').toContain(
        `block_actions confirm_change from ${OPERATOR}`,
      );
    } finally {
      release();
      await patient.close();
    }
  });

  it('is given up within its budget: the failure is audited and the buyer told', async () => {
    const release = t.slack.hold('chat.postMessage');
    try {
      const number = await voiceNumber(t, 'CA');
      const { confirmationId } = await askForConfirmation(t, OPERATOR, `numbers buy ${number}`);
      const pressed = await press(t, OPERATOR, ACTION.confirmChange, confirmationId);
      expect(shownText(await outcomeOf(t, pressed.responseUrlId))).toContain(`Bought *${number}*`);
      const note = await t.slack.waitFor(
        RESPONSE_URL,
        (call) =>
          call.responseUrlId === pressed.responseUrlId && shownText(call).includes('did not get the announcement'),
      );
      expect(shownText(note)).toContain('Slack did not answer in time');
      const correlationId = await correlationOf(t, confirmationId);
      expect((await auditTrail(t, correlationId)).map((row) => [row.action, row.outcome])).toEqual([
        ['number.buy', 'requested'],
        ['number.buy', 'confirmed'],
        ['number.buy', 'succeeded'],
        ['change.announce', 'failed'],
      ]);
      expect((await auditTrail(t, correlationId)).at(-1)?.error_code).toBe('timeout');
    } finally {
      release();
    }
  });
});

describe('a 429 on an announcement', () => {
  it("is waited out on the announcements' own queue: another user's views.open goes out meanwhile", async () => {
    const number = await voiceNumber(t, 'GB');
    const since = t.slack.mark();
    const { confirmationId } = await askForConfirmation(t, RATE_LIMITED, `numbers buy ${number}`);
    t.slack.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const pressed = await press(t, RATE_LIMITED, ACTION.confirmChange, confirmationId);
    expect(shownText(await outcomeOf(t, pressed.responseUrlId))).toContain(`Bought *${number}*`);
    // The announcement now waits out its Retry-After; meanwhile another user opens a form.
    await t.slack.waitFor('chat.postMessage', (call) => String(call.body.text).includes(number));
    const form = await t.command('agents create', ADMIN);
    const opened = await t.slack.waitFor('views.open', (call) => call.body.trigger_id === form.triggerId);
    await t.settled();
    const [limited, retried] = announcementsOf(number, since);
    expect(announcementsOf(number, since), 'the rate-limited post and its one retry').toHaveLength(2);
    expect(positionOf(t, limited)).toBeLessThan(positionOf(t, opened));
    expect(positionOf(t, opened), 'the modal opened while the announcement waited').toBeLessThan(
      positionOf(t, retried),
    );
    expect((await auditRows(t)).filter((row) => row.action === 'change.announce' && row.target === number)).toEqual([]);
  });

  it('with a long Retry-After is given up at once, audited as rate-limited, and the requester told', async () => {
    const number = await voiceNumber(t, 'DE');
    const { confirmationId } = await askForConfirmation(t, GIVEN_UP, `numbers buy ${number}`);
    t.slack.failNext('chat.postMessage', { status: 429, retryAfter: 20 });
    const pressed = await press(t, GIVEN_UP, ACTION.confirmChange, confirmationId);
    const note = await t.slack.waitFor(
      RESPONSE_URL,
      (call) =>
        call.responseUrlId === pressed.responseUrlId && shownText(call).includes('did not get the announcement'),
    );
    expect(shownText(note)).toContain('limiting how often the app may post');
    await t.settled();
    const failed = (await auditTrail(t, await correlationOf(t, confirmationId))).at(-1);
    expect(failed).toMatchObject({ action: 'change.announce', outcome: 'failed', error_code: 'ratelimited' });
  });
});

describe('a 5xx on an announcement', () => {
  it('is retried within its budget and posted once', async () => {
    const number = await voiceNumber(t, 'FR');
    const since = t.slack.mark();
    t.slack.failNext('chat.postMessage', { status: 503 });
    await buyThroughApp(t, UNAVAILABLE, number);
    const posts = announcementsOf(number, since);
    expect(posts).toHaveLength(2);
    expect((await auditRows(t)).filter((row) => row.action === 'change.announce' && row.target === number)).toEqual([]);
  });
});

describe('a channel the app is not in', () => {
  it('tells the requester to invite the app, and audits the announcement as failed', async () => {
    const number = await voiceNumber(t, 'ES');
    const { confirmationId } = await askForConfirmation(t, UNINVITED, `numbers buy ${number}`);
    t.slack.failNext('chat.postMessage', 'not_in_channel');
    const pressed = await press(t, UNINVITED, ACTION.confirmChange, confirmationId);
    const note = await t.slack.waitFor(
      RESPONSE_URL,
      (call) =>
        call.responseUrlId === pressed.responseUrlId && shownText(call).includes('did not get the announcement'),
    );
    expect(shownText(note)).toContain(`<#${NOTIFY_CHANNEL}>`);
    expect(shownText(note)).toContain('/invite @Voice Ops');
    expect(note.body.replace_original, 'the note leaves the answer in place').toBe(false);
    await t.settled();
    const failed = (await auditTrail(t, await correlationOf(t, confirmationId))).at(-1);
    expect(failed).toMatchObject({ action: 'change.announce', outcome: 'failed', error_code: 'not_in_channel' });
  });
});

describe('user group reads that never answer', () => {
  it('leave no viewer unanswered, grant nothing, and are logged once for the outage', async () => {
    const release = t.slack.hold('usergroups.users.list');
    try {
      const warnings = () => t.logs.lines().filter((line) => line.includes('could not read user group members')).length;
      const before = warnings();
      for (const user of [VIEWER, 'UGROUPED', 'UOTHER']) {
        const sent = await t.command('help', user);
        const help = await t.respondedTo(sent.responseUrlId);
        expect(shownText(help)).toContain('viewer');
      }
      const denied = await t.command('numbers buy +14155550100', 'UGROUPED');
      expect(shownText(await t.respondedTo(denied.responseUrlId))).toContain('You need the operator role');
      expect(warnings() - before).toBe(1);
    } finally {
      release();
    }
  });
});
