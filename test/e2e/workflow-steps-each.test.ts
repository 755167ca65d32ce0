// What holds for every Voice Ops step alike, step by step: a wrong input fails it with a sentence naming the input (one
// in the wrong form, with its value); a person without the role the step's command needs is refused before any plan; a
// plan step delivered again sends one plan and ends once, on Cancel; and a plan nobody confirms expires and fails its
// step. The happy paths and the other
// guardrails: workflow-steps.test.ts and workflow-step-guardrails.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import { functionExecuted } from '../harness/payloads.js';
import { JSON_CONTENT_TYPE } from '../harness/signing.js';
import { sandboxAgents, stepEnd, stepEndCalls, stepPlan } from './support.js';

let t: TestApp;
let agentId = '';
let aheadMs = 0;
beforeAll(async () => {
  // Seeded numbers come a region at a time (US, CA, GB…): one in each of six regions, and one agent.
  t = await startTestApp({ sandboxSeed: { agents: 1, numbers: 6 }, now: () => new Date(Date.now() + aheadMs) });
  agentId = (await sandboxAgents(t))[0]?.id ?? '';
});
afterAll(async () => {
  await t?.close();
});

const ended = async (callbackId: string, inputs: Record<string, unknown>) =>
  stepEnd(t, (await t.runStep(callbackId, inputs)).execution);

describe.each([
  {
    step: 'buy_numbers',
    inputs: { user_id: OPERATOR, region: 'US', count: '1', digits: '4x' },
    says: '“digits” must be digits',
  },
  {
    step: 'create_agent',
    inputs: { user_id: OPERATOR, name: 'Desk', language: 'german' },
    says: '“language” must be a locale tag',
  },
  {
    step: 'route_numbers',
    inputs: { user_id: OPERATOR, numbers: '+15550100, +0123', agent_id: 'a' },
    says: '“numbers” names +0123, which is not an E.164 number',
  },
  { step: 'release_numbers', inputs: { user_id: ADMIN, numbers: 'unrouted nowhere' }, says: 'The input “numbers”:' },
  { step: 'export_routing', inputs: { user_id: 'someone' }, says: '“user_id” must be a Slack user id' },
])('$step, given a wrong input', ({ step, inputs, says }) => {
  it('fails with a sentence naming the input at fault', async () => {
    const end = await ended(step, inputs);
    expect(end.outcome).toBe('failed');
    expect(end.outcome === 'failed' && end.error).toContain(says);
  });
});

describe.each([
  {
    step: 'buy_numbers',
    inputs: { user_id: OPERATOR, region: 'US', count: 'two' },
    says: 'The input “count”: “two” is not a count; write it in digits, e.g. 3.',
  },
  {
    step: 'create_agent',
    inputs: { user_id: OPERATOR, name: 5, language: 'en-US' },
    says: 'The input “name”: 5 is not text.',
  },
])('$step, given an input in the wrong form', ({ step, inputs, says }) => {
  it('fails naming the input and the value given, not as missing', async () => {
    expect(await ended(step, inputs)).toEqual({ outcome: 'failed', error: says });
  });
});

describe.each([
  { step: 'buy_numbers', as: VIEWER, role: 'operator', inputs: () => ({ region: 'US', count: 1 }) },
  { step: 'create_agent', as: VIEWER, role: 'operator', inputs: () => ({ name: 'Desk', language: 'en-US' }) },
  { step: 'route_numbers', as: VIEWER, role: 'operator', inputs: () => ({ numbers: 'US', agent_id: agentId }) },
  { step: 'release_numbers', as: OPERATOR, role: 'admin', inputs: () => ({ numbers: 'CA' }) },
])('$step, run by someone without the $role role', ({ step, as, role, inputs }) => {
  it('is refused as their command would be, before any plan or change', async () => {
    const { execution } = await t.runStep(step, { user_id: as, ...inputs() });
    const end = await stepEnd(t, execution);
    expect(end.outcome === 'failed' && end.error).toContain(`You need the ${role} role`);
    expect(t.slack.calls().filter((call) => call.token === execution.botAccessToken)).toEqual([]);
  });
});

const PLAN_STEPS = [
  { step: 'buy_numbers', as: OPERATOR, inputs: () => ({ region: 'GB', count: 1 }) },
  { step: 'route_numbers', as: OPERATOR, inputs: () => ({ numbers: 'US', agent_id: agentId }) },
  { step: 'release_numbers', as: ADMIN, inputs: () => ({ numbers: 'CA' }) },
];

describe.each(PLAN_STEPS)('$step, delivered again', ({ step, as, inputs }) => {
  it('sends one plan, and ends once, on Cancel', async () => {
    const { execution, deliver } = await t.runStep(step, { user_id: as, ...inputs() });
    const plan = await stepPlan(t, execution, as);
    await deliver({ retryNum: 1 });
    await t.post(functionExecuted(execution), { contentType: JSON_CONTENT_TYPE });
    await t.settled();
    expect(t.slack.calls('chat.postMessage').filter((call) => call.token === execution.botAccessToken)).toHaveLength(1);
    await t.action({ userId: as, actionId: ACTION.cancelBatch, value: plan.batchId, container: plan.container });
    expect((await stepEnd(t, execution)).outcome).toBe('failed');
    expect(stepEndCalls(t, execution)).toHaveLength(1);
  });
});

/** The sandbox's routes that change the account. */
const CHANGES = ['buyNumber', 'mapNumber', 'releaseNumber'] as const;

describe('every plan step, left unconfirmed', () => {
  it('expires after 10 minutes and fails its step, changing nothing', async () => {
    const runs = await Promise.all(
      PLAN_STEPS.map(async ({ step, as, inputs }) => {
        const { execution } = await t.runStep(step, { user_id: as, ...inputs() });
        await stepPlan(t, execution, as);
        return execution;
      }),
    );
    const requests = CHANGES.map((route) => t.sandbox.requestCount(route));
    aheadMs = 11 * 60_000;
    await t.app.reconcile();
    for (const execution of runs) {
      expect(await stepEnd(t, execution), execution.callbackId).toEqual({
        outcome: 'failed',
        error: 'The plan was not confirmed within 10 minutes: nothing was changed.',
      });
    }
    expect(CHANGES.map((route) => t.sandbox.requestCount(route))).toEqual(requests);
  });
});
