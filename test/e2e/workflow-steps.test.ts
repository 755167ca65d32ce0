// Voice Ops' Workflow Builder steps, end to end: Slack runs a step (the function_executed event, shaped as in
// @slack/bolt's own fixtures: slackapi/bolt-js test/unit/helpers/events.ts), the app acts as the person who ran the
// workflow through the same operations as their command, and ends the step with functions.completeSuccess or
// functions.completeError (api.slack.com/methods/functions.completeSuccess). A button in a message the step posted
// carries the step's function_data and token, as in bolt-js's createDummyBlockActionEventMiddlewareArgs fixture.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, OPERATOR, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import { functionExecuted } from '../harness/payloads.js';
import { JSON_CONTENT_TYPE } from '../harness/signing.js';
import { auditRows, createAgentThroughApp, sandboxAgents, stepEnd, stepEndCalls } from './support.js';

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
