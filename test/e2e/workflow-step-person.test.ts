// Who a Workflow Builder step acts as. Its `user_id` is whatever the workflow's builder set; Slack vouches only for the
// interactor of the step's interactivity input (the person whose click ran the workflow: api.slack.com's interactivity
// type, `{interactor: {id, secret}, interactivity_pointer}`). A step naming someone Slack does not vouch for changes
// nothing without that person's own click, says who ran it, and the audit names who ran it and who confirmed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import {
  type AuditRow,
  auditRows,
  everyRowAsJson,
  respondedWith,
  sandboxAgents,
  shownText,
  stepEnd,
  stepEndCalls,
  stepPlan,
} from './support.js';

let t: TestApp;
let aheadMs = 0;
beforeAll(async () => {
  t = await startTestApp({ now: () => new Date(Date.now() + aheadMs) });
});
afterAll(async () => {
  await t?.close();
});

const paramsOf = (row: AuditRow): Record<string, unknown> => JSON.parse(row.params ?? '{}');
const stepRows = async (executionId: string) =>
  (await auditRows(t)).filter((row) => paramsOf(row).stepExecutionId === executionId);

describe('an agent creation naming an operator, run by a viewer', () => {
  it('is asked of the operator, refused to the viewer, made on the operator’s click, and audited as run by the viewer', async () => {
    const agentsBefore = (await sandboxAgents(t)).length;
    const { execution } = await t.runStep(
      'create_agent',
      { user_id: OPERATOR, name: 'Builder Desk', language: 'en-US' },
      { ranBy: VIEWER },
    );
    const ask = await stepPlan(t, execution, OPERATOR);
    expect(shownText(ask.call)).toContain(`A workflow run by <@${VIEWER}> asks this in your name`);
    await t.settled();
    expect(t.sandbox.requestCount('createAgent')).toBe(0);
    expect(execution.end).toBeUndefined();

    // The viewer's click (on a forged container, since the message is the operator's) creates nothing.
    const forged = await t.action({
      userId: VIEWER,
      actionId: ACTION.createAgentForStep,
      value: execution.executionId,
      container: ask.container,
    });
    await respondedWith(t, forged.responseUrlId, `This asks ${OPERATOR} to confirm, not you`);
    await t.settled();
    expect(t.sandbox.requestCount('createAgent')).toBe(0);
    expect(execution.end).toBeUndefined();

    const pressed = await t.action({
      userId: OPERATOR,
      actionId: ACTION.createAgentForStep,
      value: execution.executionId,
      container: ask.container,
    });
    await respondedWith(t, pressed.responseUrlId, /atk_[0-9a-f]{32}/);
    const end = await stepEnd(t, execution);
    expect(end.outcome).toBe('completed');
    expect(await sandboxAgents(t)).toHaveLength(agentsBefore + 1);

    // A second click acts no more.
    await t.action({
      userId: OPERATOR,
      actionId: ACTION.createAgentForStep,
      value: execution.executionId,
      container: ask.container,
    });
    await t.settled();
    expect(t.sandbox.requestCount('createAgent')).toBe(1);

    const rows = await stepRows(execution.executionId);
    expect(rows.map((row) => [row.actor_id, row.outcome])).toEqual([
      [OPERATOR, 'requested'],
      [VIEWER, 'denied'],
      [OPERATOR, 'requested'],
      [OPERATOR, 'succeeded'],
    ]);
    for (const row of rows) expect(paramsOf(row).ranBy).toBe(VIEWER);
    expect(rows.filter((row) => row.outcome === 'succeeded').map((row) => paramsOf(row).confirmedBy)).toEqual([
      OPERATOR,
    ]);
    // The interactor's secret is Slack's: it reaches no row.
    const secret = (execution.inputs.interactivity as { interactor: { secret: string } }).interactor.secret;
    expect(await everyRowAsJson(t)).not.toContain(secret);
    expect(t.logs.text()).not.toContain(secret);
  });

  it('pressed twice at once, creates one agent and ends its step once', async () => {
    const { execution } = await t.runStep(
      'create_agent',
      { user_id: OPERATOR, name: 'Twice Desk', language: 'en-US' },
      { ranBy: VIEWER },
    );
    const ask = await stepPlan(t, execution, OPERATOR);
    const created = t.sandbox.requestCount('createAgent');
    const click = () =>
      t.action({
        userId: OPERATOR,
        actionId: ACTION.createAgentForStep,
        value: execution.executionId,
        container: ask.container,
      });
    await Promise.all([click(), click()]);
    expect((await stepEnd(t, execution)).outcome).toBe('completed');
    await t.settled();
    expect(t.sandbox.requestCount('createAgent')).toBe(created + 1);
    expect(stepEndCalls(t, execution)).toHaveLength(1);
  });

  it('without an interactivity input, is asked of the person named too, and Cancel ends the step changing nothing', async () => {
    const { execution } = await t.runStep(
      'create_agent',
      { user_id: OPERATOR, name: 'Scheduled Desk', language: 'en-US' },
      { ranBy: null },
    );
    const ask = await stepPlan(t, execution, OPERATOR);
    expect(shownText(ask.call)).toContain('Slack did not say who ran it');
    await t.action({
      userId: OPERATOR,
      actionId: ACTION.cancelAgentForStep,
      value: execution.executionId,
      container: ask.container,
    });
    expect(await stepEnd(t, execution)).toEqual({
      outcome: 'failed',
      error: 'The creation was cancelled before it was made: nothing was changed.',
    });
    const rows = await stepRows(execution.executionId);
    expect(rows.map((row) => row.outcome)).toEqual(['requested', 'cancelled']);
    expect(rows.map((row) => paramsOf(row).ranBy)).toEqual([null, null]);
  });

  it('run by the person it names, is made at once, audited as run and asked by them', async () => {
    const { execution } = await t.runStep('create_agent', { user_id: OPERATOR, name: 'Own Desk', language: 'en-US' });
    expect((await stepEnd(t, execution)).outcome).toBe('completed');
    const rows = await stepRows(execution.executionId);
    expect(rows.map((row) => row.outcome)).toEqual(['requested', 'succeeded']);
    for (const row of rows) expect(paramsOf(row)).toMatchObject({ ranBy: OPERATOR });
  });

  it('unanswered for 10 minutes, expires: the step fails, and a later click creates nothing', async () => {
    const { execution } = await t.runStep(
      'create_agent',
      { user_id: OPERATOR, name: 'Late Desk', language: 'en-US' },
      { ranBy: VIEWER },
    );
    const ask = await stepPlan(t, execution, OPERATOR);
    await t.app.reconcile();
    expect(execution.end).toBeUndefined();
    aheadMs = 11 * 60_000;
    try {
      await t.app.reconcile();
      expect(await stepEnd(t, execution)).toEqual({
        outcome: 'failed',
        error: 'The creation was not confirmed within 10 minutes: nothing was changed.',
      });
      const created = t.sandbox.requestCount('createAgent');
      await t.action({
        userId: OPERATOR,
        actionId: ACTION.createAgentForStep,
        value: execution.executionId,
        container: ask.container,
      });
      await t.settled();
      expect(t.sandbox.requestCount('createAgent')).toBe(created);
    } finally {
      aheadMs = 0;
    }
  });

  it('clicked after 10 minutes, before any reconciler pass, creates nothing and fails the step', async () => {
    const { execution } = await t.runStep(
      'create_agent',
      { user_id: OPERATOR, name: 'Later Desk', language: 'en-US' },
      { ranBy: VIEWER },
    );
    const ask = await stepPlan(t, execution, OPERATOR);
    const created = t.sandbox.requestCount('createAgent');
    aheadMs = 11 * 60_000;
    try {
      const pressed = await t.action({
        userId: OPERATOR,
        actionId: ACTION.createAgentForStep,
        value: execution.executionId,
        container: ask.container,
      });
      await respondedWith(t, pressed.responseUrlId, 'not confirmed within 10 minutes');
      expect(await stepEnd(t, execution)).toEqual({
        outcome: 'failed',
        error: 'The creation was not confirmed within 10 minutes: nothing was changed.',
      });
      expect(t.sandbox.requestCount('createAgent')).toBe(created);
    } finally {
      aheadMs = 0;
    }
  });
});

describe('a plan naming an admin, run by a viewer', () => {
  it('goes to the admin saying who ran it, waits for their own Confirm (not the viewer’s), and is audited so', async () => {
    const { execution } = await t.runStep('buy_numbers', { user_id: ADMIN, region: 'US', count: 1 }, { ranBy: VIEWER });
    const plan = await stepPlan(t, execution, ADMIN);
    expect(shownText(plan.call)).toContain(`A workflow run by <@${VIEWER}> asks this in your name`);
    expect(shownText(plan.call)).not.toContain('A workflow you ran');

    const forged = await t.action({
      userId: VIEWER,
      actionId: ACTION.confirmBatch,
      value: plan.batchId,
      container: plan.container,
    });
    await respondedWith(t, forged.responseUrlId, /Only the person who asked/i);
    await t.settled();
    expect(t.sandbox.requestCount('buyNumber')).toBe(0);
    expect(execution.end).toBeUndefined();

    await t.action({ userId: ADMIN, actionId: ACTION.confirmBatch, value: plan.batchId, container: plan.container });
    expect((await stepEnd(t, execution)).outcome).toBe('completed');
    expect(t.sandbox.requestCount('buyNumber')).toBe(1);
    const rows = (await auditRows(t)).filter((row) => row.correlation_id === plan.batchId);
    expect(rows.map((row) => [row.actor_id, row.outcome])).toEqual(
      expect.arrayContaining([
        [ADMIN, 'requested'],
        [VIEWER, 'denied'],
        [ADMIN, 'succeeded'],
      ]),
    );
    for (const row of rows.filter((row) => row.source === 'workflow')) expect(paramsOf(row).ranBy).toBe(VIEWER);
    const confirmed = rows.filter((row) => row.actor_id === ADMIN && row.outcome !== 'requested');
    expect(confirmed.length).toBeGreaterThan(0);
    for (const row of confirmed) expect(paramsOf(row).confirmedBy).toBe(ADMIN);
  });
});
