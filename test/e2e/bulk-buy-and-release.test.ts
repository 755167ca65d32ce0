// `/voice numbers buy REGION COUNT [DIGITS]` and `/voice numbers release FILTER`: plans first. A bulk buy counts
// against the buy limits as a whole, refused before any confirmation when it does not fit, saying how many would; a
// bulk release is confirmed by typing the count of numbers, and a wrong count changes nothing. Every test runs with
// the buy limit and roles given by the environment and again with the same set in Slack: they hold the same; only
// the refusal's naming of the limit differs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { RESPONSE_URL, type SlackCall } from '../harness/fake-slack.js';
import { textInput } from '../harness/payloads.js';
import {
  announced,
  auditRows,
  blockKitProblems,
  blocksOf,
  buttonValues,
  hasElement,
  onlyButton,
  press,
  readable,
  ruleWords,
  SETTINGS_SOURCES,
  sandboxNumbers,
  shownText,
  viewOf,
  WORKING,
  waitUntil,
} from './support.js';

/** The workspace may buy 8 numbers a day. */
const LIMIT = 8;

describe.each(SETTINGS_SOURCES)('limit and roles from %s', (settingsFrom) => {
  const words = ruleWords(settingsFrom);

  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ settingsFrom, env: { VOICE_BUY_LIMIT: `${LIMIT}/day` } });
  });
  afterAll(async () => {
    const sent = t?.slack.calls().filter((call) => call.method === RESPONSE_URL || call.method.startsWith('views.'));
    const problems = (sent ?? []).flatMap(blockKitProblems);
    await t?.close();
    expect(problems).toEqual([]);
  });

  const postsTo = (responseUrlId: string | undefined): SlackCall[] =>
    t.slack.calls().filter((call) => call.method === RESPONSE_URL && call.responseUrlId === responseUrlId);

  async function ask(text: string, user: string): Promise<SlackCall> {
    return t.respondedTo((await t.command(text, user)).responseUrlId);
  }

  const owned = async () => (await sandboxNumbers(t)).map((entry) => entry.number);

  describe('a bulk buy', () => {
    it('is refused before any confirmation when it does not fit the buy limit, saying how many would', async () => {
      const refused = await ask(`numbers buy DE ${LIMIT + 1}`, OPERATOR);
      expect(shownText(refused)).toContain(`That would buy ${LIMIT + 1} numbers, and only ${LIMIT} fit`);
      expect(shownText(refused)).toContain(`(${words.limit('VOICE_BUY_LIMIT', `${LIMIT}/day`)})`);
      expect(shownText(refused)).toContain(words.whoChanges('VOICE_BUY_LIMIT'));
      expect(hasElement(blocksOf(refused), ACTION.confirmBatch)).toBe(false);
      expect(t.sandbox.requestCount('buyNumber')).toBe(0);
      const rejected = (await auditRows(t)).filter((row) => row.action === 'batch.buy' && row.outcome === 'rejected');
      expect(rejected).toHaveLength(1);
    });

    it('plans COUNT voice numbers in the region, and buys each once on one confirmation', async () => {
      const planned = await ask('numbers buy DE 5', OPERATOR);
      const text = readable(blocksOf(planned));
      expect(text).toContain('buy 5 voice numbers in `DE`');
      expect(text).toContain('This spends money');
      const listed = [...text.matchAll(/\*(\+49\d+)\*: buy/g)].map((match) => match[1]);
      expect(listed).toHaveLength(5);
      const batchId = onlyButton(blocksOf(planned), ACTION.confirmBatch);
      const [first, second] = await Promise.all([
        press(t, OPERATOR, ACTION.confirmBatch, batchId),
        press(t, OPERATOR, ACTION.confirmBatch, batchId),
      ]);
      await waitUntil(
        () =>
          [first, second].every((click) =>
            postsTo(click.responseUrlId).some((call) => !shownText(call).includes(WORKING)),
          ),
        'both clicks to be answered',
      );
      await t.settled();
      expect(t.sandbox.requestCount('buyNumber')).toBe(5);
      expect(await owned()).toEqual(expect.arrayContaining(listed));
      const results = [first, second].map((click) => shownText(postsTo(click.responseUrlId).at(-1) as SlackCall));
      expect(results.filter((result) => result.includes('Bought 5 of 5 numbers'))).toHaveLength(1);
      const announcements = announced(t).filter((post) => post.text.includes('bought 5 numbers'));
      expect(announcements).toHaveLength(1);
      // The announcement names the region and every number bought, as a single buy's names its number.
      expect(announcements[0]?.text).toContain('bought 5 numbers in Germany (DE): ');
      for (const number of listed) expect(announcements[0]?.text).toContain(`*${number}*`);
    });

    it('counts a plan of one number as one number, in its audit line', async () => {
      const planned = await ask('numbers buy US 1', OPERATOR);
      expect(readable(blocksOf(planned))).toContain('buy 1 voice number in `US`');
      const batchId = onlyButton(blocksOf(planned), ACTION.confirmBatch);
      const requested = (await auditRows(t)).find((row) => row.correlation_id === batchId);
      expect(requested?.target).toBe('1 number');
      expect(shownText(await ask('audit', OPERATOR))).toContain('buy in bulk *1 number*');
      await press(t, OPERATOR, ACTION.cancelBatch, batchId);
    });

    it('counts the batch against the limit: three more fit, and a fourth does not', async () => {
      const refused = await ask('numbers buy DE 4', OPERATOR);
      expect(shownText(refused)).toContain('That would buy 4 numbers, and only 3 fit');
      const planned = await ask('numbers buy FR 3', OPERATOR);
      expect(hasElement(blocksOf(planned), ACTION.confirmBatch)).toBe(true);
    });
  });

  describe('a bulk release', () => {
    it('asks for the count of numbers, typed: a wrong count changes nothing, the right one releases them', async () => {
      const before = await owned();
      const germans = before.filter((number) => number.startsWith('+49'));
      expect(germans).toHaveLength(5);
      const planned = await ask('numbers release DE', ADMIN);
      expect(shownText(planned)).toContain('release 5 numbers');
      expect(hasElement(blocksOf(planned), ACTION.confirmBatch)).toBe(false);
      const batchId = onlyButton(blocksOf(planned), ACTION.confirmBatchTyped);

      const since = t.slack.mark();
      const pressed = await press(t, ADMIN, ACTION.confirmBatchTyped, batchId);
      const opened = viewOf(
        await t.slack.waitFor('views.open', (call) => call.body.trigger_id === pressed.triggerId, { since }),
      );
      expect(opened.callback_id).toBe(CALLBACK.confirmBatch);
      expect(JSON.stringify(opened.blocks)).toContain('Type 5, the count of numbers');
      const submit = (value: string) =>
        t.submit({
          userId: ADMIN,
          callbackId: CALLBACK.confirmBatch,
          privateMetadata: opened.private_metadata,
          stateValues: { [INPUT.typedConfirmation.block]: { [INPUT.typedConfirmation.action]: textInput(value) } },
        });
      const wrong = await submit('4');
      expect(wrong.json).toMatchObject({
        response_action: 'errors',
        errors: { [INPUT.typedConfirmation.block]: expect.stringContaining('nothing was changed') },
      });
      expect(t.sandbox.requestCount('releaseNumber')).toBe(0);

      const right = await submit('5');
      expect(right.json).toMatchObject({ response_action: 'update' });
      await t.slack.waitFor('views.update', (call) => shownText(call).includes('Released 5 of 5 numbers'), { since });
      await t.settled();
      expect(t.sandbox.requestCount('releaseNumber')).toBe(5);
      expect(await owned()).toEqual(before.filter((number) => !germans.includes(number)));
      const trail = (await auditRows(t)).filter((row) => row.correlation_id === batchId);
      expect(trail.filter((row) => row.action === 'number.release').map((row) => row.outcome)).toEqual(
        germans.map(() => 'succeeded'),
      );
      const announcement = announced(t).find((post) => post.text.includes('released 5 numbers'));
      for (const number of germans) expect(announcement?.text).toContain(`*${number}*`);
    });

    it('refuses an operator', async () => {
      const refused = await ask('numbers release unrouted', OPERATOR);
      expect(shownText(refused)).toContain('You need the admin role to release numbers');
      expect(buttonValues(blocksOf(refused), ACTION.confirmBatchTyped)).toEqual([]);
    });
  });
});
