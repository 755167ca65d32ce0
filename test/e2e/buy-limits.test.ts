// Spending limits: a buy over VOICE_BUY_LIMIT or VOICE_BUY_LIMIT_PER_USER is refused before any confirmation, saying
// how many were bought and when the window frees up; the last slot cannot be taken twice by two confirmations at
// once; the window ends at UTC midnight (a clock the test controls). Every test runs with the limits given by the
// environment and again with the same limits set in Slack: they hold the same; only the refusal's naming differs.
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, NOTIFY_CHANNEL, OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import {
  askForConfirmation,
  auditRows,
  blocksOf,
  buyThroughApp,
  confirmAs,
  onlyButton,
  outcomeOf,
  press,
  rowsOf,
  ruleWords,
  SETTINGS_SOURCES,
  shownText,
  voiceNumber,
} from './support.js';

const OTHER_OPERATOR = 'UOPERATOR2';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

let clock = new Date('2026-11-23T10:00:00.000Z');

const confirmationCount = async (app: TestApp): Promise<number> =>
  (await rowsOf<{ n: number }>(app, 'SELECT COUNT(*) AS n FROM confirmations'))[0]?.n ?? 0;

describe.each(SETTINGS_SOURCES)('limits from %s', (settingsFrom) => {
  const words = ruleWords(settingsFrom);

  async function start(env: Record<string, string>): Promise<TestApp> {
    clock = new Date('2026-11-23T10:00:00.000Z');
    t = await startTestApp({
      env,
      settingsFrom,
      now: () => clock,
      operators: [OPERATOR, OTHER_OPERATOR],
      sandboxLatencyMs: 30,
    });
    return t;
  }

  it('refuses a buy over the workspace limit before any confirmation, saying how many and when it frees up', async () => {
    const app = await start({ VOICE_BUY_LIMIT: '2/day' });
    await buyThroughApp(app, OPERATOR, await voiceNumber(app, 'US', 0));
    await buyThroughApp(app, OTHER_OPERATOR, await voiceNumber(app, 'US', 1));
    const confirmationsBefore = await confirmationCount(app);

    const third = await voiceNumber(app, 'US', 2);
    const asked = await app.command(`numbers buy ${third}`, OPERATOR);
    const answer = shownText(await app.respondedTo(asked.responseUrlId));
    expect(answer).toContain(`(${words.limit('VOICE_BUY_LIMIT', '2/day')})`);
    expect(answer).toContain('2 were bought today');
    expect(answer).toContain('It frees up at 2026-11-24 00:00 UTC');
    expect(answer).toContain(words.whoChanges('VOICE_BUY_LIMIT'));
    expect(await confirmationCount(app)).toBe(confirmationsBefore);
    expect(app.sandbox.requestCount('buyNumber')).toBe(2);

    const refusal = (await auditRows(app)).at(-1);
    expect(refusal).toMatchObject({
      action: 'number.buy',
      target: third,
      outcome: 'rejected',
      error_code: 'buy_limit',
    });
    expect(JSON.parse(refusal?.params ?? '{}')).toMatchObject({ rule: 'buyLimit', used: 2 });

    // At UTC midnight the window ends, and so does the refusal.
    clock = new Date('2026-11-24T00:00:00.000Z');
    const { prompt } = await askForConfirmation(app, OPERATOR, `numbers buy ${third}`);
    expect(shownText(prompt)).toContain(third);
  });

  it('lets only one of two confirmations pressed at once take the last slot', async () => {
    const app = await start({ VOICE_BUY_LIMIT: '2/day' });
    await buyThroughApp(app, OPERATOR, await voiceNumber(app, 'US', 0));
    // Both requests pass: one slot is left when each is asked.
    const first = await askForConfirmation(app, OPERATOR, `numbers buy ${await voiceNumber(app, 'US', 1)}`);
    const second = await askForConfirmation(app, OTHER_OPERATOR, `numbers buy ${await voiceNumber(app, 'US', 2)}`);

    const [a, b] = await Promise.all([
      press(app, OPERATOR, ACTION.confirmChange, first.confirmationId),
      press(app, OTHER_OPERATOR, ACTION.confirmChange, second.confirmationId),
    ]);
    const outcomes = await Promise.all([outcomeOf(app, a.responseUrlId), outcomeOf(app, b.responseUrlId)]);
    await app.settled();
    const texts = outcomes.map(shownText);
    expect(texts.filter((text) => text.includes('Bought'))).toHaveLength(1);
    expect(texts.filter((text) => text.includes('Buying limit reached'))).toHaveLength(1);
    expect(app.sandbox.requestCount('buyNumber')).toBe(2);
    expect(
      (await auditRows(app)).filter((row) => row.action === 'number.buy' && row.outcome === 'succeeded'),
    ).toHaveLength(2);
  });

  it('counts each person against their own limit, and another person may still buy', async () => {
    const app = await start({ VOICE_BUY_LIMIT_PER_USER: '1/week' });
    await buyThroughApp(app, OPERATOR, await voiceNumber(app, 'US', 0));

    const asked = await app.command(`numbers buy ${await voiceNumber(app, 'US', 1)}`, OPERATOR);
    const answer = shownText(await app.respondedTo(asked.responseUrlId));
    expect(answer).toContain(`(${words.limit('VOICE_BUY_LIMIT_PER_USER', '1/week')})`);
    expect(answer).toContain(words.whoChanges('VOICE_BUY_LIMIT_PER_USER'));
    expect(answer).toContain('you bought 1 this week');
    // 2026-11-23 is a Monday: the ISO week ends at the next Monday, 00:00 UTC.
    expect(answer).toContain('It frees up at 2026-11-30 00:00 UTC');

    await buyThroughApp(app, OTHER_OPERATOR, await voiceNumber(app, 'US', 1));
    expect(app.sandbox.requestCount('buyNumber')).toBe(2);

    clock = new Date('2026-11-29T23:59:59.000Z');
    const stillRefused = await app.command(`numbers buy ${await voiceNumber(app, 'US', 2)}`, OPERATOR);
    expect(shownText(await app.respondedTo(stillRefused.responseUrlId))).toContain('Buying limit reached');
    clock = new Date('2026-11-30T00:00:00.000Z');
    await buyThroughApp(app, OPERATOR, await voiceNumber(app, 'US', 2));
    expect(app.sandbox.requestCount('buyNumber')).toBe(3);
  });

  it('checks the limit again at approval: two approvals at once for the last slot make one purchase', async () => {
    const app = await start({ VOICE_BUY_LIMIT: '1/day', VOICE_REQUIRE_APPROVAL: 'number.buy' });
    // Both confirm while the slot is free: a buy that waits for approval holds no slot.
    for (const [user, skip] of [
      [OPERATOR, 0],
      [OTHER_OPERATOR, 1],
    ] as const) {
      const { confirmationId } = await askForConfirmation(
        app,
        user,
        `numbers buy ${await voiceNumber(app, 'US', skip)}`,
      );
      expect(shownText(await confirmAs(app, user, confirmationId))).toContain('needs a second person');
    }
    const requests = app.slack.calls('chat.postMessage').filter((call) => call.body.channel === NOTIFY_CHANNEL);
    const approvalIds = requests.map((call) => onlyButton(blocksOf(call), ACTION.approveChange));
    expect(approvalIds).toHaveLength(2);

    const clicks = await Promise.all(
      approvalIds.map((value) =>
        app.action({
          userId: ADMIN,
          actionId: ACTION.approveChange,
          value,
          container: { type: 'message', channelId: NOTIFY_CHANNEL, messageTs: '1.000001' },
        }),
      ),
    );
    const refused = await Promise.race(clicks.map((click) => outcomeOf(app, click.responseUrlId)));
    expect(shownText(refused)).toContain('Buying limit reached');
    await app.settled();
    expect(app.sandbox.requestCount('buyNumber')).toBe(1);
  });
});
