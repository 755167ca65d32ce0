// A Workflow Builder step never does what the person who ran the workflow could not do by command: the guardrails
// their command meets (a second approver, buy limits, change channels, a plan's expiry) hold for the step, and the
// step ends with what became of its change. How steps are delivered and ended: workflow-steps.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, OPS_CHANNEL, startTestApp, type TestApp } from '../harness/app.js';
import type { SlackCall } from '../harness/fake-slack.js';
import {
  auditRows,
  blocksOf,
  buyThroughApp,
  confirmByTypedCount,
  createAgentThroughApp,
  onlyButton,
  outputNumbers,
  sandboxNumbers,
  stepEnd,
  stepPlan,
  voiceNumber,
} from './support.js';

const APPROVALS = 'CAPPROVALS';
const CHANGES = 'CCHANGES';
const SECOND_OPERATOR = 'UOPERATOR2';
const SECOND_ADMIN = 'UADMIN2';

/** Where Slack keeps the message a chat.postMessage call posted. */
const postedTs = (app: TestApp, call: SlackCall) =>
  app.slack.messages(String(call.body.channel)).find((message) => message.text === call.body.text)?.ts;

/** Another person with the role presses Approve on the request posted in the approvals channel. */
async function approveAs(app: TestApp, userId: string, request: SlackCall): Promise<void> {
  await app.action({
    userId,
    actionId: ACTION.approveChange,
    value: onlyButton(blocksOf(request), ACTION.approveChange),
    container: { type: 'message', channelId: APPROVALS, messageTs: postedTs(app, request) },
  });
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('a step under a second approver', () => {
  it('waits after Confirm for the approval, then buys (or routes) and completes with the numbers', async () => {
    t = await startTestApp({
      env: { VOICE_REQUIRE_APPROVAL: 'number.buy,routing.map', VOICE_APPROVALS_CHANNEL_ID: APPROVALS },
      operators: [OPERATOR, SECOND_OPERATOR],
    });
    const app = t;
    const { execution } = await app.runStep('buy_numbers', { user_id: OPERATOR, region: 'US', count: 2 });
    const plan = await stepPlan(app, execution, OPERATOR);
    await app.action({
      userId: OPERATOR,
      actionId: ACTION.confirmBatch,
      value: plan.batchId,
      container: plan.container,
    });
    const request = await app.slack.waitFor('chat.postMessage', (call) => call.body.channel === APPROVALS);
    await app.settled();
    expect(execution.end).toBeUndefined();
    expect(app.sandbox.requestCount('buyNumber')).toBe(0);
    await approveAs(app, SECOND_OPERATOR, request);
    const end = await stepEnd(app, execution);
    expect(end.outcome).toBe('completed');
    expect(app.sandbox.requestCount('buyNumber')).toBe(2);
    const trail = (await auditRows(app)).filter((row) => row.correlation_id === plan.batchId);
    expect(trail.map((row) => row.outcome)).toEqual(expect.arrayContaining(['awaiting_approval', 'approved']));

    const bought = end.outcome === 'completed' ? String(end.outputs.numbers) : '';
    const { agent } = await createAgentThroughApp(app, OPERATOR, 'Approved desk');
    const since = app.slack.mark();
    const route = await app.runStep('route_numbers', { user_id: OPERATOR, numbers: bought, agent_id: agent.id });
    const routePlan = await stepPlan(app, route.execution, OPERATOR);
    await app.action({
      userId: OPERATOR,
      actionId: ACTION.confirmBatch,
      value: routePlan.batchId,
      container: routePlan.container,
    });
    const routeRequest = await app.slack.waitFor('chat.postMessage', (call) => call.body.channel === APPROVALS, {
      since,
    });
    await app.settled();
    expect(route.execution.end).toBeUndefined();
    await approveAs(app, SECOND_OPERATOR, routeRequest);
    const routed = await stepEnd(app, route.execution);
    expect(routed.outcome === 'completed' && routed.outputs.count).toBe(2);
    expect(app.sandbox.requestCount('mapNumber')).toBe(2);
  });
});

describe('a release step under a second approver', () => {
  it('waits after the typed count for another admin, then releases and completes with the numbers', async () => {
    t = await startTestApp({
      env: { VOICE_REQUIRE_APPROVAL: 'number.release', VOICE_APPROVALS_CHANNEL_ID: APPROVALS },
      admins: [ADMIN, SECOND_ADMIN],
    });
    const app = t;
    const bought = [await voiceNumber(app, 'CA'), await voiceNumber(app, 'CA', 1)];
    for (const number of bought) await buyThroughApp(app, ADMIN, number);
    const { execution } = await app.runStep('release_numbers', { user_id: ADMIN, numbers: 'CA' });
    const plan = await stepPlan(app, execution, ADMIN);
    await confirmByTypedCount(app, ADMIN, plan, 2);
    const request = await app.slack.waitFor('chat.postMessage', (call) => call.body.channel === APPROVALS);
    await app.settled();
    expect(execution.end).toBeUndefined();
    expect(app.sandbox.requestCount('releaseNumber')).toBe(0);
    await approveAs(app, SECOND_ADMIN, request);
    expect(outputNumbers(await stepEnd(app, execution)).sort()).toEqual([...bought].sort());
    expect(app.sandbox.requestCount('releaseNumber')).toBe(2);
    expect((await sandboxNumbers(app)).map((entry) => entry.number)).not.toEqual(expect.arrayContaining(bought));
  });
});

describe('a step under a buy limit', () => {
  it('fails before any plan when the buy does not fit, saying how many would', async () => {
    t = await startTestApp({ env: { VOICE_BUY_LIMIT: '2/day' } });
    const { execution } = await t.runStep('buy_numbers', { user_id: OPERATOR, region: 'US', count: 3 });
    const end = await stepEnd(t, execution);
    expect(end.outcome === 'failed' && end.error).toContain('That would buy 3 numbers, and only 2 fit');
    expect(t.slack.calls('chat.postMessage').filter((call) => call.token === execution.botAccessToken)).toEqual([]);
    expect(t.sandbox.requestCount('buyNumber')).toBe(0);
  });
});

describe('a step under change channels', () => {
  it('is refused whatever channel its builder names: Slack does not say which channel a workflow runs in', async () => {
    t = await startTestApp({ env: { VOICE_CHANGE_CHANNELS: CHANGES } });
    const app = t;
    const refusal =
      `Changes are made only in channel ${CHANGES} (VOICE_CHANGE_CHANNELS), not from a workflow step, since Slack ` +
      'does not say which channel a workflow runs in';
    const runs = [
      await app.runStep('buy_numbers', { user_id: OPERATOR, channel_id: CHANGES, region: 'US', count: 1 }),
      await app.runStep('buy_numbers', { user_id: OPERATOR, channel_id: OPS_CHANNEL, region: 'US', count: 1 }),
      await app.runStep('create_agent', { user_id: OPERATOR, channel_id: CHANGES, name: 'Desk', language: 'en-US' }),
      await app.runStep('create_agent', { user_id: OPERATOR, name: 'Desk', language: 'en-US' }),
    ];
    for (const { execution } of runs) {
      const end = await stepEnd(app, execution);
      expect(end.outcome === 'failed' && end.error).toContain(refusal);
    }
    expect(app.slack.calls('chat.postMessage').filter((call) => String(call.token).startsWith('xwfp-'))).toEqual([]);
    expect(app.sandbox.requestCount('createAgent')).toBe(0);
    // The audit keeps the channel the builder named apart from the channel a change is made in, which it leaves empty.
    const denied = (await auditRows(app)).filter((row) => row.outcome === 'denied' && row.source === 'workflow');
    expect(denied).toHaveLength(4);
    expect(denied.map((row) => row.channel_id)).toEqual([null, null, null, null]);
    // The four steps run at once: their rows may be in any order.
    const named = denied.map((row) => String(JSON.parse(row.params ?? '{}').namedChannelId ?? 'none'));
    expect(named.sort()).toEqual([CHANGES, CHANGES, OPS_CHANNEL, 'none'].sort());
  });
});

describe("a step's plan nobody confirms", () => {
  it('expires after 10 minutes: the step fails and nothing is bought', async () => {
    let aheadMs = 0;
    t = await startTestApp({ now: () => new Date(Date.now() + aheadMs) });
    const { execution } = await t.runStep('buy_numbers', { user_id: OPERATOR, region: 'US', count: 1 });
    const plan = await stepPlan(t, execution, OPERATOR);
    await t.app.reconcile();
    expect(execution.end).toBeUndefined();
    aheadMs = 11 * 60_000;
    await t.app.reconcile();
    expect(await stepEnd(t, execution)).toEqual({
      outcome: 'failed',
      error: 'The plan was not confirmed within 10 minutes: nothing was changed.',
    });
    const trail = (await auditRows(t)).filter((row) => row.correlation_id === plan.batchId);
    expect(trail.map((row) => row.outcome)).toEqual(['requested', 'expired']);
    // A Confirm pressed afterwards changes nothing.
    await t.action({ userId: OPERATOR, actionId: ACTION.confirmBatch, value: plan.batchId, container: plan.container });
    await t.settled();
    expect(t.sandbox.requestCount('buyNumber')).toBe(0);
  });
});
