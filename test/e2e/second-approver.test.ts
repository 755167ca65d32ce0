// VOICE_REQUIRE_APPROVAL: a confirmed change waits for another person with the role it needs. The request is
// posted with Approve and Reject in the approvals channel; the requester cannot approve their own change, a viewer
// cannot approve, two approvals at once make one change, a rejected or expired request makes none; the message is
// updated in place, the requester is told privately, and every step is audited under the change's correlation id.
// Every test runs with the approval rules given by the environment and again with the same rules set in Slack: they
// hold the same; only the refusals' naming of the rule differs.
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, OPS_CHANNEL, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import type { SlackCall } from '../harness/fake-slack.js';
import {
  askForConfirmation,
  auditRows,
  auditTrail,
  blocksOf,
  buyThroughApp,
  confirmAs,
  createAgentThroughApp,
  lastAuditRow,
  onlyButton,
  outcomeOf,
  press,
  rowsOf,
  ruleWords,
  SETTINGS_SOURCES,
  type SettingsSource,
  shownText,
  voiceNumber,
  waitUntil,
} from './support.js';

const APPROVALS = 'CAPPROVALS';
const SECOND_OPERATOR = 'UOPERATOR2';
/** How long a request waits for a decision: not the default (24), so that the setting is seen to be read. */
const TTL_HOURS = 6;

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

let clock = new Date('2026-11-23T10:00:00.000Z');

async function start(settingsFrom: SettingsSource, requireApproval = 'number.buy'): Promise<TestApp> {
  clock = new Date('2026-11-23T10:00:00.000Z');
  t = await startTestApp({
    settingsFrom,
    env: {
      VOICE_REQUIRE_APPROVAL: requireApproval,
      VOICE_APPROVALS_CHANNEL_ID: APPROVALS,
      VOICE_APPROVAL_TTL_HOURS: String(TTL_HOURS),
    },
    operators: [OPERATOR, SECOND_OPERATOR],
    now: () => clock,
    sandboxLatencyMs: 30,
  });
  return t;
}

/** An operator asks to buy and confirms: resolves with the posted request's approval id and the correlation id. */
async function confirmedBuy(app: TestApp) {
  const number = await voiceNumber(app);
  const { confirmationId } = await askForConfirmation(app, OPERATOR, `numbers buy ${number}`);
  const told = shownText(await confirmAs(app, OPERATOR, confirmationId));
  expect(told).toContain('needs a second person');
  const posted = app.slack.calls('chat.postMessage').filter((call) => call.body.channel === APPROVALS);
  expect(posted).toHaveLength(1);
  expect(shownText(posted[0] as SlackCall)).toContain(number);
  expect(app.sandbox.requestCount('buyNumber')).toBe(0);
  const waiting = await lastAuditRow(app, { target: number, outcome: 'awaiting_approval' });
  expect(waiting, 'an awaiting_approval row').toBeDefined();
  return {
    number,
    approvalId: onlyButton(blocksOf(posted[0] as SlackCall), ACTION.approveChange),
    correlationId: waiting?.correlation_id ?? '',
    confirmationId,
    told,
  };
}

/** What the audit holds of a bulk buy as one request: its steps' outcomes, in order. */
async function bulkBuySteps(app: TestApp, batchId: string): Promise<string[]> {
  return (await auditTrail(app, batchId)).filter((row) => row.action === 'batch.buy').map((row) => row.outcome);
}

/** An operator plans a bulk buy of `count` and applies it: the batch, and its posted request's approval id. */
async function bulkBuyAwaitingApproval(app: TestApp, count: number) {
  const planned = await app.respondedTo((await app.command(`numbers buy US ${count}`, OPERATOR)).responseUrlId);
  const batchId = onlyButton(blocksOf(planned), ACTION.confirmBatch);
  await outcomeOf(app, (await press(app, OPERATOR, ACTION.confirmBatch, batchId)).responseUrlId);
  const posted = app.slack.calls('chat.postMessage').filter((call) => call.body.channel === APPROVALS);
  expect(posted).toHaveLength(1);
  return { batchId, approvalId: onlyButton(blocksOf(posted[0] as SlackCall), ACTION.approveChange) };
}

function decide(app: TestApp, user: string, verdict: 'approve' | 'reject', approvalId: string) {
  return app.action({
    userId: user,
    actionId: verdict === 'approve' ? ACTION.approveChange : ACTION.rejectChange,
    value: approvalId,
    container: { type: 'message', channelId: APPROVALS, messageTs: '1.000001' },
  });
}

const updates = (app: TestApp) => app.slack.calls('chat.update').filter((call) => call.body.channel === APPROVALS);

function hasButtons(call: SlackCall): boolean {
  return blocksOf(call).some((block) => block.type === 'actions');
}

/** Whether the requester was told privately, in words containing `text`. */
const requesterTold = (app: TestApp, text: string): boolean =>
  app.slack.calls('chat.postEphemeral').some((call) => call.body.user === OPERATOR && shownText(call).includes(text));

/** A request that ended undecided or rejected: a late approval says how it ended, and nothing was ever bought. */
async function expectEndedUnmade(
  app: TestApp,
  request: {
    approvalId: string;
    correlationId: string;
    lateApprover: string;
    lateSays: string;
    ended: 'rejected' | 'expired';
  },
): Promise<void> {
  const late = await decide(app, request.lateApprover, 'approve', request.approvalId);
  expect(shownText(await outcomeOf(app, late.responseUrlId))).toContain(request.lateSays);
  await app.settled();
  expect(app.sandbox.requestCount('buyNumber')).toBe(0);
  expect((await auditTrail(app, request.correlationId)).map((row) => row.outcome)).toEqual([
    'requested',
    'confirmed',
    'awaiting_approval',
    request.ended,
  ]);
}

describe.each(SETTINGS_SOURCES)('approval rules from %s', (settingsFrom) => {
  const words = ruleWords(settingsFrom);
  /** The refusal of a requester's own approval, with who may change the rule. */
  const ownChangeRefused =
    `You asked for this change: another person with the operator role must approve it` +
    `${words.tag('VOICE_REQUIRE_APPROVAL')}. ${words.whoChanges('VOICE_REQUIRE_APPROVAL')}`;
  /** What the requester is told once their confirmed change waits, naming the rule as its source does. */
  const waitingTold = `This change needs a second person${words.tag('VOICE_REQUIRE_APPROVAL')}: the request waits`;

  it('refuses the requester and a viewer; two approvals at once make one purchase, told and audited', async () => {
    const app = await start(settingsFrom);
    const { number, approvalId, correlationId, confirmationId, told } = await confirmedBuy(app);
    expect(told).toContain(waitingTold);
    const again = await confirmAs(app, OPERATOR, confirmationId);
    expect(shownText(again)).toContain('waits for a second approver');

    const own = await decide(app, OPERATOR, 'approve', approvalId);
    expect(shownText(await outcomeOf(app, own.responseUrlId))).toContain(ownChangeRefused);
    const viewer = await decide(app, VIEWER, 'approve', approvalId);
    expect(shownText(await outcomeOf(app, viewer.responseUrlId))).toContain(
      `You need the operator role to buy numbers. ${words.grantor} can add your user id (${VIEWER}) or one of your ` +
        `user groups to ${words.grantedIn('VOICE_OPERATORS')}.`,
    );
    await app.settled();
    expect(app.sandbox.requestCount('buyNumber')).toBe(0);
    expect(updates(app)).toEqual([]);

    const [first, second] = await Promise.all([
      decide(app, SECOND_OPERATOR, 'approve', approvalId),
      decide(app, ADMIN, 'approve', approvalId),
    ]);
    await app.settled();
    expect(app.sandbox.requestCount('buyNumber')).toBe(1);
    const loser = await Promise.race([
      outcomeOf(app, first.responseUrlId).then((call) => shownText(call)),
      outcomeOf(app, second.responseUrlId).then((call) => shownText(call)),
    ]);
    // The one who approved is named as Slack shows a person, never as a raw user id.
    expect(loser).toMatch(/already approved by <@(UOPERATOR2|UADMIN)>\./);

    const updated = updates(app);
    expect(updated).toHaveLength(1);
    expect(shownText(updated[0] as SlackCall)).toMatch(/Approved by <@(UOPERATOR2|UADMIN)>: done/);
    expect(hasButtons(updated[0] as SlackCall)).toBe(false);
    // The requester is told privately, in the channel they asked from.
    await waitUntil(
      () =>
        app.slack
          .calls('chat.postEphemeral')
          .some(
            (call) =>
              call.body.user === OPERATOR && call.body.channel === OPS_CHANNEL && shownText(call).includes(number),
          ),
      'the requester told of the purchase',
    );

    const trail = await auditTrail(app, correlationId);
    expect(trail.map((row) => `${row.action} ${row.outcome}`)).toEqual([
      'number.buy requested',
      'number.buy confirmed',
      'number.buy awaiting_approval',
      'access.denied denied',
      'access.denied denied',
      'number.buy approved',
      'number.buy succeeded',
    ]);
    expect(trail.filter((row) => row.outcome === 'denied').map((row) => [row.actor_id, row.error_code])).toEqual([
      [OPERATOR, 'own_change'],
      [VIEWER, 'denied'],
    ]);
    expect(trail.find((row) => row.outcome === 'approved')?.actor_id).toMatch(/^(UOPERATOR2|UADMIN)$/);
    expect((await auditRows(app)).filter((row) => row.outcome === 'approved')).toHaveLength(1);
  });

  it('a rejected request buys nothing, and says so in place and to the requester', async () => {
    const app = await start(settingsFrom);
    const { approvalId, correlationId } = await confirmedBuy(app);
    await decide(app, SECOND_OPERATOR, 'reject', approvalId);
    await app.settled();
    expect(shownText(updates(app)[0] as SlackCall)).toContain('Rejected by <@UOPERATOR2>. Nothing was changed.');
    expect(requesterTold(app, 'rejected your change')).toBe(true);
    await expectEndedUnmade(app, {
      approvalId,
      correlationId,
      lateApprover: ADMIN,
      lateSays: 'already rejected',
      ended: 'rejected',
    });
  });

  it('a request nobody decides in time expires: nothing bought, the message and the requester say so', async () => {
    const app = await start(settingsFrom);
    const { approvalId, correlationId } = await confirmedBuy(app);
    clock = new Date('2026-11-23T15:59:59.000Z');
    await app.app.expireApprovals();
    expect(updates(app)).toEqual([]);

    clock = new Date('2026-11-23T16:00:00.000Z');
    await app.app.expireApprovals();
    await app.app.expireApprovals();
    expect(updates(app)).toHaveLength(1);
    expect(shownText(updates(app)[0] as SlackCall)).toContain(`Expired: nobody decided within ${TTL_HOURS} hours`);
    expect(requesterTold(app, `Nobody approved your change within ${TTL_HOURS} hours`)).toBe(true);
    await expectEndedUnmade(app, {
      approvalId,
      correlationId,
      lateApprover: SECOND_OPERATOR,
      lateSays: 'expired',
      ended: 'expired',
    });
  });

  it('a map that needs approval is confirmed, waits, and is made once approved, in the requester’s name', async () => {
    const app = await start(settingsFrom, 'routing.map');
    const { agent } = await createAgentThroughApp(app, OPERATOR, 'Front desk');
    const number = await voiceNumber(app);
    await buyThroughApp(app, OPERATOR, number);

    const { confirmationId } = await askForConfirmation(app, OPERATOR, `map ${number} ${agent.id}`);
    expect(shownText(await confirmAs(app, OPERATOR, confirmationId))).toContain('needs a second person');
    expect(app.sandbox.requestCount('mapNumber')).toBe(0);
    const request = app.slack.calls('chat.postMessage').find((call) => call.body.channel === APPROVALS) as SlackCall;
    await decide(app, ADMIN, 'approve', onlyButton(blocksOf(request), ACTION.approveChange));
    await app.settled();
    expect(app.sandbox.requestCount('mapNumber')).toBe(1);
    const [route] = await rowsOf(app, 'SELECT agent_id, updated_by FROM routes WHERE phone_number = ?', [number]);
    expect(route).toEqual({ agent_id: agent.id, updated_by: OPERATOR });
    expect((await lastAuditRow(app, { action: 'routing.map', outcome: 'succeeded' }))?.actor_id).toBe(OPERATOR);
  });

  it('takes a bulk plan as one request: one approval by another person applies it all, told and audited', async () => {
    const app = await start(settingsFrom, 'number.buy');
    const planned = await app.respondedTo((await app.command('numbers buy US 3', OPERATOR)).responseUrlId);
    const batchId = onlyButton(blocksOf(planned), ACTION.confirmBatch);
    const applied = await press(app, OPERATOR, ACTION.confirmBatch, batchId);
    const waiting = await outcomeOf(app, applied.responseUrlId);
    expect(shownText(waiting)).toContain(waitingTold);
    const posted = app.slack.calls('chat.postMessage').filter((call) => call.body.channel === APPROVALS);
    expect(posted).toHaveLength(1);
    expect(shownText(posted[0] as SlackCall)).toContain('A plan, as one request: buy 3 numbers');
    const approvalId = onlyButton(blocksOf(posted[0] as SlackCall), ACTION.approveChange);
    expect(app.sandbox.requestCount('buyNumber')).toBe(0);
    // The approver may look at every item first: the card says nothing is done yet.
    const items = onlyButton(blocksOf(posted[0] as SlackCall), ACTION.batchItems);
    const card = await outcomeOf(app, (await press(app, SECOND_OPERATOR, ACTION.batchItems, items)).responseUrlId);
    expect(shownText(card)).toContain('Waiting for a second approver');
    expect(app.sandbox.requestCount('buyNumber')).toBe(0);

    const own = await decide(app, OPERATOR, 'approve', approvalId);
    expect(shownText(await outcomeOf(app, own.responseUrlId))).toContain(ownChangeRefused);
    await decide(app, SECOND_OPERATOR, 'approve', approvalId);
    await waitUntil(() => app.sandbox.requestCount('buyNumber') === 3, 'the three buys');
    await app.settled();
    expect(shownText(updates(app).at(-1) as SlackCall)).toContain('Approved by <@UOPERATOR2>: done');
    expect(shownText(updates(app).at(-1) as SlackCall)).toContain('Bought 3 of 3 numbers');
    await waitUntil(
      () =>
        app.slack
          .calls('chat.postEphemeral')
          .some((call) => call.body.user === OPERATOR && shownText(call).includes('Bought 3 of 3 numbers')),
      'the requester told of the batch',
    );
    expect(await bulkBuySteps(app, batchId)).toEqual([
      'requested',
      'confirmed',
      'awaiting_approval',
      'approved',
      'succeeded',
    ]);
    const trail = await auditTrail(app, batchId);
    expect(trail.filter((row) => row.action === 'number.buy' && row.outcome === 'succeeded')).toHaveLength(3);
  });

  it('shows an approved plan’s progress on its request, where its approver may stop it and a stranger may not', async () => {
    const app = await start(settingsFrom, 'number.buy');
    const { batchId, approvalId } = await bulkBuyAwaitingApproval(app, 6);
    app.sandbox.faults.inject('buyNumber', { type: 'hold' });

    await decide(app, SECOND_OPERATOR, 'approve', approvalId);
    await waitUntil(() => app.sandbox.requestCount('buyNumber') === 4, 'four buys under way');
    const stranger = await press(app, ADMIN, ACTION.stopBatch, batchId);
    expect(shownText(await outcomeOf(app, stranger.responseUrlId))).toContain(
      'Only the person who asked for this plan, or who approved it, can stop it.',
    );
    await press(app, SECOND_OPERATOR, ACTION.stopBatch, batchId);
    await waitUntil(async () => (await bulkBuySteps(app, batchId)).includes('cancelled'), 'the stop to be recorded');
    // A second after the approval, the first item's outcome is worth a rewrite of the request.
    clock = new Date(clock.getTime() + 2_000);
    app.sandbox.faults.clear();
    await waitUntil(
      () => updates(app).some((call) => shownText(call).includes('Approved by <@UOPERATOR2>: done.')),
      'the request settled',
    );
    await app.settled();

    const progress = updates(app).filter((call) => /of 6 done/.test(shownText(call)));
    expect(progress.length, 'progress rewrites of the request').toBeGreaterThanOrEqual(1);
    expect(progress.length).toBeLessThanOrEqual(3);
    expect(onlyButton(blocksOf(progress[0] as SlackCall), ACTION.stopBatch)).toBe(batchId);
    expect(updates(app).indexOf(progress.at(-1) as SlackCall)).toBeLessThan(updates(app).length - 1);
    expect(shownText(updates(app).at(-1) as SlackCall)).toContain('Stopped: 4 of 6');
    expect(app.sandbox.requestCount('buyNumber')).toBe(4);
    const trail = await auditTrail(app, batchId);
    expect(trail.filter((row) => row.action === 'number.buy' && row.outcome === 'succeeded')).toHaveLength(4);
    expect(trail.filter((row) => row.action === 'number.buy' && row.outcome === 'cancelled')).toHaveLength(2);
  });

  it('expires an approved plan that cannot start because another change holds one of its numbers', async () => {
    const app = await start(settingsFrom, 'number.buy');
    const { batchId, approvalId } = await bulkBuyAwaitingApproval(app, 3);
    // Another replica's change holds one of the plan's numbers.
    const [item] = await rowsOf<{ change: string }>(app, 'SELECT change FROM batch_items WHERE batch_id = ? LIMIT 1', [
      batchId,
    ]);
    const held = (JSON.parse(item?.change ?? '{}') as { number: string }).number;
    await (await app.database.sql()).run('INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)', [
      `lock:number:${held}`,
      'another change',
      '2099-01-01T00:00:00.000Z',
    ]);

    await decide(app, SECOND_OPERATOR, 'approve', approvalId);
    await waitUntil(
      async () => (await auditTrail(app, batchId)).some((row) => row.outcome === 'expired'),
      'the expiry',
    );
    await app.settled();
    expect(app.sandbox.requestCount('buyNumber')).toBe(0);
    expect(shownText(updates(app).at(-1) as SlackCall)).toContain(
      'Another change to one of these numbers was in progress: nothing was applied, and the plan expired.',
    );
    expect(await bulkBuySteps(app, batchId)).toEqual([
      'requested',
      'confirmed',
      'awaiting_approval',
      'approved',
      'expired',
    ]);
    const [batch] = await rowsOf<{ state: string }>(app, 'SELECT state FROM batches WHERE id = ?', [batchId]);
    expect(batch?.state).toBe('expired');
  });
});
