// The Workflows panel offers the steps the manifest declares: each with the inputs a workflow's builder sets (who runs
// it, and where, aside: the panel fills those) and the outputs a later step may take. A workflow whose variables name
// no earlier step's output is refused before any step runs, as Workflow Builder offers only those. The panel running
// workflows in Chromium: workflows-panel.test.ts.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type InputValue, PLAYGROUND_STEPS, SAMPLE_WORKFLOWS, whyNotRunnable } from '../../src/playground/workflows.js';

interface Parameters {
  properties: Record<string, { title: string }>;
}

describe('the Workflows panel', () => {
  it('offers every step the manifest declares, with the inputs a builder sets and the outputs it gives', async () => {
    const manifest = parse(await readFile('manifest.yml', 'utf8')) as {
      functions: Record<string, { title: string; input_parameters: Parameters; output_parameters: Parameters }>;
    };
    const declared = Object.entries(manifest.functions).map(([callbackId, step]) => ({
      callbackId,
      title: step.title,
      inputs: Object.keys(step.input_parameters.properties).filter(
        (name) => !['user_id', 'interactivity', 'channel_id'].includes(name),
      ),
      outputs: Object.entries(step.output_parameters.properties).map(([name, { title }]) => ({ name, title })),
    }));
    const offered = PLAYGROUND_STEPS.map((step) => ({
      callbackId: step.callbackId,
      title: step.title,
      inputs: step.inputs.map((input) => input.name),
      outputs: step.outputs,
    }));
    expect(offered).toEqual(expect.arrayContaining(declared));
    expect(offered).toHaveLength(declared.length);
  });

  it('offers ready-made workflows that can run as built', () => {
    expect(SAMPLE_WORKFLOWS.map((sample) => [sample.title, whyNotRunnable(sample)])).toEqual([
      ['New store line', undefined],
    ]);
  });

  it.each<{ inputs: Record<string, InputValue>; says: string }>([
    {
      inputs: { agent_id: { step: 2, output: 'agent_id' } },
      says: "Step 2's Agent id can only take the output of a step before it.",
    },
    {
      inputs: { agent_id: { step: 1, output: 'agent_id' } },
      says: "Step 2's Agent id takes “agent_id” of step 1, which Buy numbers does not give.",
    },
    { inputs: { agent: { value: 'agt_1' } }, says: 'Step 2, Route numbers to an agent, has no input “agent”.' },
  ])('refuses a workflow whose inputs its steps do not take: $says', ({ inputs, says }) => {
    const steps = [
      { callbackId: 'buy_numbers', inputs: {} },
      { callbackId: 'route_numbers', inputs },
    ];
    expect(whyNotRunnable({ title: 'Workflow', steps })).toBe(says);
  });
});
