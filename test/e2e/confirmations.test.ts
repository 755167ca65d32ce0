// Confirmations are single-use, the requester's own, and short-lived: Cancel and closing the modal cancel; an
// expired, cancelled or used confirmation changes nothing and says so; double and concurrent clicks buy once.
import { afterEach, expect, it } from 'vitest';
import { ACTION, CALLBACK } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, OPS_CHANNEL, startTestApp, type TestApp, type TestAppOptions } from '../harness/app.js';
import {
  askForConfirmation,
  auditTrail,
  confirmAs,
  lastAuditRow,
  outcomeOf,
  press,
  rowsOf,
  sandboxNumbers,
  shownText,
  viewOf,
  voiceNumber,
  waitForAuditRow,
} from './support.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(options: TestAppOptions = {}): Promise<TestApp> {
  t = await startTestApp(options);
  return t;
}

interface StoredConfirmation {
  correlation_id: string;
  state: string;
}

async function storedConfirmation(app: TestApp, id: string): Promise<StoredConfirmation> {
  const [row] = await rowsOf<StoredConfirmation>(app, 'SELECT correlation_id, state FROM confirmations WHERE id = ?', [
    id,
  ]);
  if (!row) throw new Error(`no stored confirmation ${id}`);
  return row;
}

/** The outcomes audited for the request behind this confirmation, in order. */
async function outcomes(app: TestApp, confirmationId: string): Promise<string[]> {
  const { correlation_id: correlationId } = await storedConfirmation(app, confirmationId);
  return (await auditTrail(app, correlationId)).map((row) => row.outcome);
}

/** `/voice numbers buy` for the first voice number, answered with a confirmation. */
async function askToBuy(app: TestApp, user = OPERATOR) {
  const number = await voiceNumber(app);
  const { prompt, confirmationId } = await askForConfirmation(app, user, `numbers buy ${number}`);
  expect(shownText(prompt)).toContain(number);
  return { number, prompt, confirmationId };
}

/** Buy pressed on the Home tab: the confirmation opens as a modal. */
/** Presses Buy on the Home tab (a modal opens) or in the search modal (one is pushed on top of it). */
async function openConfirmationModal(app: TestApp, user: string, number: string, from: 'home' | 'modal' = 'home') {
  const since = app.slack.mark();
  const pressed = await app.action({
    userId: user,
    actionId: ACTION.buyNumber,
    value: number,
    container:
      from === 'home'
        ? { type: 'view', viewId: 'VHOMETAB', viewType: 'home' }
        : {
            type: 'view',
            viewId: 'VSEARCH',
            viewType: 'modal',
            callbackId: CALLBACK.searchNumbers,
            privateMetadata: JSON.stringify({ channelId: OPS_CHANNEL }),
          },
  });
  const opener = from === 'home' ? 'views.open' : 'views.push';
  await app.slack.waitFor(opener, (call) => call.body.trigger_id === pressed.triggerId, { since });
  const shown = await app.slack.waitFor('views.update', (call) => viewOf(call).callback_id === CALLBACK.confirmChange, {
    since,
    description: 'showing the confirmation modal',
  });
  const view = viewOf(shown);
  expect(shownText(shown)).toContain(number);
  expect(view.notify_on_close).toBe(true);
  return { viewId: String(shown.body.view_id), confirmationId: view.private_metadata ?? '' };
}

it('Cancel replaces the confirmation, buys nothing, and is audited as cancelled', async () => {
  const app = await start();
  const { number, confirmationId } = await askToBuy(app);

  const cancel = await press(app, OPERATOR, ACTION.cancelChange, confirmationId);
  const answer = await app.respondedTo(cancel.responseUrlId);
  expect(answer.body.replace_original).toBe(true);
  expect(shownText(answer)).toContain(`Cancelled: nothing changed. *${number}* was not bought.`);
  expect(await outcomes(app, confirmationId)).toEqual(['requested', 'cancelled']);

  // A Confirm pressed afterwards, on a stale copy of the message, does nothing either.
  const late = await confirmAs(app, OPERATOR, confirmationId);
  expect(shownText(late)).toContain('That change was cancelled');
  expect(app.sandbox.requestCount('buyNumber')).toBe(0);
  expect(await outcomes(app, confirmationId)).toEqual(['requested', 'cancelled']);
});

it('closing a confirmation modal cancels it', async () => {
  const app = await start();
  const number = await voiceNumber(app);
  const { viewId, confirmationId } = await openConfirmationModal(app, OPERATOR, number);

  const closed = await app.closeView({
    userId: OPERATOR,
    callbackId: CALLBACK.confirmChange,
    privateMetadata: confirmationId,
    viewId,
  });
  expect(closed.status).toBe(200);
  const { correlation_id } = await storedConfirmation(app, confirmationId);
  await waitForAuditRow(app, { correlation_id, outcome: 'cancelled' });

  expect((await storedConfirmation(app, confirmationId)).state).toBe('cancelled');
  expect(await outcomes(app, confirmationId)).toEqual(['requested', 'cancelled']);
  expect(app.sandbox.requestCount('buyNumber')).toBe(0);
});

it('a confirmation expires after 10 minutes: confirming then buys nothing and says it expired', async () => {
  let aheadMs = 0;
  const app = await start({ now: () => new Date(Date.now() + aheadMs) });
  const { number, prompt, confirmationId } = await askToBuy(app);
  expect(shownText(prompt)).toContain('Expires in 10 minutes');

  aheadMs = 11 * 60_000;
  const outcome = await confirmAs(app, OPERATOR, confirmationId);
  expect(shownText(outcome)).toContain('That confirmation expired');
  expect(shownText(outcome)).toContain('Nothing was changed');
  expect(app.sandbox.requestCount('buyNumber')).toBe(0);
  expect(await outcomes(app, confirmationId)).toEqual(['requested', 'expired']);
  expect(await lastAuditRow(app, { outcome: 'expired' })).toMatchObject({
    actor_id: OPERATOR,
    action: 'number.buy',
    target: number,
    error_code: 'expired',
  });
});

it('confirming twice buys once; the second click is told the confirmation was already used', async () => {
  const app = await start();
  const { number, confirmationId } = await askToBuy(app);

  const first = await confirmAs(app, OPERATOR, confirmationId);
  expect(shownText(first)).toContain(`Bought *${number}*`);
  const second = await confirmAs(app, OPERATOR, confirmationId);
  expect(shownText(second)).toContain('That confirmation was already used');

  expect(app.sandbox.requestCount('buyNumber')).toBe(1);
  expect((await sandboxNumbers(app)).map((entry) => entry.number)).toEqual([number]);
  expect(await outcomes(app, confirmationId)).toEqual(['requested', 'confirmed', 'succeeded']);
});

it('two clicks on Confirm sent at once buy once', async () => {
  // A slow provider keeps the first purchase in flight while the second click is handled.
  const app = await start({ sandboxLatencyMs: 100 });
  const { number, confirmationId } = await askToBuy(app);

  // Two clicks, as Slack sends them: the same button and user, each with its own trigger_id and response_url.
  const clicks = await Promise.all([
    press(app, OPERATOR, ACTION.confirmChange, confirmationId),
    press(app, OPERATOR, ACTION.confirmChange, confirmationId),
  ]);
  expect(clicks.map((click) => click.status)).toEqual([200, 200]);
  const shown = await Promise.all(clicks.map((click) => outcomeOf(app, click.responseUrlId)));

  // The second click comes while the first one's purchase is under way: it says so, and claims nothing more.
  expect(shown.map(shownText).sort()).toEqual([
    expect.stringContaining('That change is under way'),
    expect.stringContaining(`Bought *${number}*`),
  ]);
  expect(app.sandbox.requestCount('buyNumber')).toBe(1);
  expect(await outcomes(app, confirmationId)).toEqual(['requested', 'confirmed', 'succeeded']);
});

it("another user cannot confirm or cancel someone else's change; the requester still can", async () => {
  const app = await start();
  const { number, confirmationId } = await askToBuy(app, OPERATOR);
  const { correlation_id } = await storedConfirmation(app, confirmationId);

  // Even an admin: only the person who asked confirms.
  const refused = await confirmAs(app, ADMIN, confirmationId);
  expect(shownText(refused)).toContain('Only the person who asked for this change can confirm or cancel it');
  const cancel = await press(app, ADMIN, ACTION.cancelChange, confirmationId);
  expect(shownText(await app.respondedTo(cancel.responseUrlId))).toContain('Only the person who asked');
  expect(app.sandbox.requestCount('buyNumber')).toBe(0);
  expect((await storedConfirmation(app, confirmationId)).state).toBe('pending');

  const denials = (await auditTrail(app, correlation_id)).filter((row) => row.actor_id === ADMIN);
  expect(denials).toHaveLength(2);
  for (const row of denials) {
    expect(row).toMatchObject({ action: 'access.denied', outcome: 'denied', target: number, error_code: 'wrong_user' });
    expect(JSON.parse(row.params ?? '{}')).toMatchObject({ attempted: 'number.buy' });
  }

  const bought = await confirmAs(app, OPERATOR, confirmationId);
  expect(shownText(bought)).toContain(`Bought *${number}*`);
  expect(app.sandbox.requestCount('buyNumber')).toBe(1);
  expect((await auditTrail(app, correlation_id)).map((row) => `${row.actor_id} ${row.action} ${row.outcome}`)).toEqual([
    `${OPERATOR} number.buy requested`,
    `${ADMIN} access.denied denied`,
    `${ADMIN} access.denied denied`,
    `${OPERATOR} number.buy confirmed`,
    `${OPERATOR} number.buy succeeded`,
  ]);
});

it.each([
  ['home', 'home'],
  ['modal', 'button'],
] as const)(
  'submitting a confirmation modal opened from the %s makes the change and shows the result',
  async (from, source) => {
    const app = await start();
    const number = await voiceNumber(app);
    const { viewId, confirmationId } = await openConfirmationModal(app, OPERATOR, number, from);

    const since = app.slack.mark();
    const submitted = await app.submit({
      userId: OPERATOR,
      callbackId: CALLBACK.confirmChange,
      privateMetadata: confirmationId,
      viewId,
      stateValues: {},
    });
    expect(submitted.status).toBe(200);
    expect(submitted.json).toMatchObject({ response_action: 'update' });

    const result = await app.slack.waitFor(
      'views.update',
      (call) => call.body.view_id === viewId && shownText(call).includes('Bought'),
      { since, description: 'with the purchase in the modal' },
    );
    expect(shownText(result)).toContain(`Bought *${number}*`);
    expect(app.sandbox.requestCount('buyNumber')).toBe(1);
    expect((await sandboxNumbers(app)).map((entry) => entry.number)).toEqual([number]);
    const trail = await auditTrail(app, (await storedConfirmation(app, confirmationId)).correlation_id);
    expect(trail.map((row) => `${row.outcome} ${row.source}`)).toEqual([
      `requested ${source}`,
      'confirmed modal',
      'succeeded modal',
    ]);
    // A search modal opened from a channel names it in every row of the request, the modal's rows too.
    const channel = from === 'modal' ? OPS_CHANNEL : null;
    expect(trail.map((row) => row.channel_id)).toEqual([channel, channel, channel]);
  },
);
