// A step's row on both engines: what it waits on is taken once, so that of two answers to an ask (two clicks, or a
// click and its expiry) one acts; a step that has ended is taken by none.
import { describe, expect, it } from 'vitest';
import { WorkflowSteps } from '../../src/store/workflow-steps.js';
import { ENGINES, manualClock, useTempDatabases } from './helpers.js';

const START = { executionId: 'Fx1', workflowExecutionId: 'Wx1', callbackId: 'create_agent', userId: 'U_ADA' };

describe.each(ENGINES)('WorkflowSteps on %s', (engine) => {
  const temp = useTempDatabases(engine);

  async function asked() {
    const steps = new WorkflowSteps(await temp.open(), { now: manualClock().now });
    await steps.claim(START);
    await steps.link(START.executionId, 'ask');
    return steps;
  }

  it('takes what a step waits on once: a second answer from the same ask is refused, and moves nothing', async () => {
    const steps = await asked();
    const answers = await Promise.all([
      steps.take(START.executionId, 'ask', 'create'),
      steps.take(START.executionId, 'ask', 'cancel'),
    ]);
    expect(answers.filter(Boolean)).toHaveLength(1);
    const taken = answers[0] ? 'create' : 'cancel';
    expect((await steps.get(START.executionId))?.correlationId).toBe(taken);
    expect(await steps.take(START.executionId, 'ask', 'expired')).toBe(false);
  });

  it('takes nothing from an ended step, nor from a request it does not wait on', async () => {
    const steps = await asked();
    expect(await steps.take(START.executionId, 'other', 'create')).toBe(false);
    await steps.end(START.executionId, 'failed');
    expect(await steps.take(START.executionId, 'ask', 'create')).toBe(false);
    expect((await steps.get(START.executionId))?.correlationId).toBe('ask');
  });
});
