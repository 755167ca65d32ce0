// Voice Ops' Workflow Builder steps, end to end: Slack runs a step (the function_executed event, shaped as in
// @slack/bolt's own fixtures: slackapi/bolt-js test/unit/helpers/events.ts), the app acts as the person who ran the
// workflow through the same operations as their command, and ends the step with functions.completeSuccess or
// functions.completeError (api.slack.com/methods/functions.completeSuccess). A button in a message the step posted
// carries the step's function_data and token, as in bolt-js's createDummyBlockActionEventMiddlewareArgs fixture.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import { functionExecuted } from '../harness/payloads.js';
import { JSON_CONTENT_TYPE } from '../harness/signing.js';
import {
  announced,
  auditRows,
  confirmByTypedCount,
  createAgentThroughApp,
  outputNumbers,
  sandboxAgents,
  sandboxNumbers,
  shownText,
  stepEnd,
  stepEndCalls,
  stepPlan,
} from './support.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('the Export routing step', () => {
  it('completes with the routing text as its output, as /voice export gives it', async () => {
    const { agent } = await createAgentThroughApp(t, OPERATOR, 'Export Desk');
    const { execution, response } = await t.runStep('export_routing', { user_id: VIEWER });
    expect(response.status).toBe(200);
    const end = await stepEnd(t, execution);
    expect(end.outcome).toBe('completed');
    const routing = end.outcome === 'completed' ? String(end.outputs.routing) : '';
    expect(routing).toContain('Voice Ops routing');
    expect(routing).toContain('One NUMBER AGENT_ID a line');
    expect((await sandboxAgents(t)).map((entry) => entry.id)).toContain(agent.id);
  });

  it('fails with a sentence naming the input at fault when the person is missing', async () => {
    const { execution } = await t.runStep('export_routing', {});
    const end = await stepEnd(t, execution);
    expect(end).toEqual({ outcome: 'failed', error: 'The input “user_id” is missing: set it in Workflow Builder.' });
  });

  it('acts once on a retried delivery, and on the same execution delivered anew: one end in Slack', async () => {
    const { execution, deliver } = await t.runStep('export_routing', { user_id: ADMIN });
    await stepEnd(t, execution);
    expect((await deliver({ retryNum: 1 })).status).toBe(200);
    // The same execution under a new event_id, as a second replica might receive it: the step's claim stops it.
    expect((await t.post(functionExecuted(execution), { contentType: JSON_CONTENT_TYPE })).status).toBe(200);
    await t.settled();
    expect(stepEndCalls(t, execution)).toHaveLength(1);
    expect(t.logs.text()).toContain('left alone a workflow step delivered again');
  });
});

describe('the audit of a step', () => {
  it('names the source workflow and the ids of the workflow and of its step', async () => {
    const { execution } = await t.runStep('create_agent', { user_id: OPERATOR, name: 'Step Desk', language: 'en-us' });
    const end = await stepEnd(t, execution);
    expect(end.outcome).toBe('completed');
    const rows = (await auditRows(t)).filter((row) => row.source === 'workflow');
    expect(rows.map((row) => row.action)).toContain('agent.create');
    for (const row of rows) {
      expect(JSON.parse(row.params ?? '{}')).toMatchObject({
        workflowExecutionId: execution.workflowExecutionId,
        stepExecutionId: execution.executionId,
      });
    }
  });
});

describe('the change steps, confirmed by the person who ran the workflow', () => {
  let agentId = '';
  let bought: string[] = [];

  it('Buy numbers: sends the plan to that person, buys on Confirm, and completes with the numbers bought', async () => {
    const { execution } = await t.runStep('buy_numbers', { user_id: OPERATOR, region: 'de', count: 2 });
    const plan = await stepPlan(t, execution, OPERATOR);
    expect(shownText(plan.call)).toContain('A workflow you ran asks for this');
    expect(shownText(plan.call)).toContain('buy 2 voice numbers in `DE`');
    expect(t.sandbox.requestCount('buyNumber')).toBe(0);
    // The plan's buttons belong to the step: Slack sends its function_data and token with a click.
    expect(t.slack.functions.interactionWith(plan.container.channelId, plan.container.messageTs)).toMatchObject({
      function_data: { execution_id: execution.executionId, function: { callback_id: 'buy_numbers' } },
    });
    await t.action({ userId: OPERATOR, actionId: ACTION.confirmBatch, value: plan.batchId, container: plan.container });
    const end = await stepEnd(t, execution);
    expect(end.outcome).toBe('completed');
    bought = outputNumbers(end);
    expect(bought).toHaveLength(2);
    expect(end.outcome === 'completed' && end.outputs.count).toBe(2);
    const owned = (await sandboxNumbers(t)).map((entry) => entry.number);
    expect(owned).toEqual(expect.arrayContaining(bought));
    expect(announced(t).filter((post) => post.text.includes('bought 2 numbers'))).toHaveLength(1);
    const trail = (await auditRows(t)).filter((row) => row.correlation_id === plan.batchId);
    expect(new Set(trail.map((row) => row.source))).toEqual(new Set(['workflow']));
  });

  it('Create an AI agent: completes with its id; its token goes to that person alone, never into the outputs', async () => {
    const since = t.slack.mark();
    const { execution } = await t.runStep('create_agent', {
      user_id: OPERATOR,
      channel_id: 'COPS',
      name: 'New Store',
      language: 'en-US',
    });
    const end = await stepEnd(t, execution);
    expect(end.outcome).toBe('completed');
    agentId = end.outcome === 'completed' ? String(end.outputs.agent_id) : '';
    expect((await sandboxAgents(t)).map((agent) => agent.id)).toContain(agentId);
    expect(Object.keys(end.outcome === 'completed' ? end.outputs : {})).toEqual(['agent_id']);
    const shown = t.slack
      .calls()
      .slice(since)
      .filter((call) => call.body.user === OPERATOR || call.body.channel === OPERATOR);
    expect(shown.some((call) => /atk_[0-9a-f]{32}/.test(JSON.stringify(call.body)))).toBe(true);
    expect(JSON.stringify(stepEndCalls(t, execution))).not.toMatch(/atk_/);
  });

  it('Route numbers: takes a list of numbers and an agent id, and completes with the numbers routed', async () => {
    const { execution } = await t.runStep('route_numbers', {
      user_id: OPERATOR,
      numbers: bought.join('\n'),
      agent_id: agentId,
    });
    const plan = await stepPlan(t, execution, OPERATOR);
    await t.action({ userId: OPERATOR, actionId: ACTION.confirmBatch, value: plan.batchId, container: plan.container });
    const end = await stepEnd(t, execution);
    expect(outputNumbers(end).sort()).toEqual([...bought].sort());
    expect(t.sandbox.requestCount('mapNumber')).toBe(2);
  });

  it('Route numbers again: nothing to change, so nothing to confirm; completes at once with the numbers', async () => {
    const { execution } = await t.runStep('route_numbers', {
      user_id: OPERATOR,
      numbers: bought.join(', '),
      agent_id: agentId,
    });
    const end = await stepEnd(t, execution);
    expect(outputNumbers(end).sort()).toEqual([...bought].sort());
    expect(t.slack.calls('chat.postMessage').filter((call) => call.token === execution.botAccessToken)).toEqual([]);
    expect(t.sandbox.requestCount('mapNumber')).toBe(2);
  });

  it('Release numbers: takes a filter, asks for the count typed, and completes with the numbers released', async () => {
    const { execution } = await t.runStep('release_numbers', { user_id: ADMIN, numbers: `agent ${agentId}` });
    const plan = await stepPlan(t, execution, ADMIN);
    await confirmByTypedCount(t, ADMIN, plan, 2);
    const end = await stepEnd(t, execution);
    expect(outputNumbers(end).sort()).toEqual([...bought].sort());
    expect((await sandboxNumbers(t)).map((entry) => entry.number)).not.toEqual(expect.arrayContaining(bought));
  });

  it('fails on Cancel, and nothing is bought', async () => {
    const { execution } = await t.runStep('buy_numbers', { user_id: OPERATOR, region: 'FR', count: 1 });
    const plan = await stepPlan(t, execution, OPERATOR);
    const before = t.sandbox.requestCount('buyNumber');
    await t.action({ userId: OPERATOR, actionId: ACTION.cancelBatch, value: plan.batchId, container: plan.container });
    expect(await stepEnd(t, execution)).toEqual({
      outcome: 'failed',
      error: 'The plan was cancelled before it was applied: nothing was changed.',
    });
    expect(t.sandbox.requestCount('buyNumber')).toBe(before);
  });

  it('refuses a person without the role, as their command would, before any plan', async () => {
    const { execution } = await t.runStep('route_numbers', { user_id: VIEWER, numbers: 'unrouted', agent_id: agentId });
    const end = await stepEnd(t, execution);
    expect(end.outcome).toBe('failed');
    expect(end.outcome === 'failed' && end.error).toContain('You need the operator role');
    expect(t.slack.calls('chat.postMessage').filter((call) => call.token === execution.botAccessToken)).toEqual([]);
    const denied = (await auditRows(t)).filter((row) => row.actor_id === VIEWER && row.action === 'access.denied');
    expect(denied.at(-1)?.source).toBe('workflow');
  });

  it('fails the step of someone from another organization before any listener sees it', async () => {
    const outsider = 'UPARTNER';
    t.slack.setUser(outsider, { teamId: 'TPARTNER' });
    const { execution } = await t.runStep('export_routing', { user_id: outsider });
    const end = await stepEnd(t, execution);
    expect(end.outcome === 'failed' && end.error).toContain('you are in another organization');
    expect((await auditRows(t)).filter((row) => row.actor_id === outsider).map((row) => row.source)).toEqual([
      'workflow',
    ]);
  });

  it('fails a wrong input with a sentence for the workflow builder, and audits it as refused', async () => {
    const { execution } = await t.runStep('buy_numbers', { user_id: OPERATOR, region: 'Germany', count: 0 });
    const end = await stepEnd(t, execution);
    expect(end).toEqual({
      outcome: 'failed',
      error: 'The input “region” must be a two-letter region code, e.g. US. The input “count” must be at least 1.',
    });
    const refused = (await auditRows(t)).filter((row) => row.action === 'batch.buy' && row.outcome === 'rejected');
    expect(refused.at(-1)?.source).toBe('workflow');
  });
});

describe('a step in Socket Mode', () => {
  it('arrives as an envelope and ends as over HTTP', async () => {
    const socket = await startTestApp({ socketMode: true });
    try {
      const { execution } = await socket.runStep('export_routing', { user_id: VIEWER });
      expect((await stepEnd(socket, execution)).outcome).toBe('completed');
    } finally {
      await socket.close();
    }
  });
});
