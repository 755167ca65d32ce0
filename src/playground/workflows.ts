// The Workflows panel: Voice Ops' steps with their inputs and outputs (as the manifests declare them: a test holds the
// two together), and workflows made of them as Workflow Builder makes them.
import { z } from 'zod';

export interface UiStepParameter {
  name: string;
  title: string;
}

export interface UiStepInput extends UiStepParameter {
  /** What to type, as an example. */
  hint: string;
  required: boolean;
}

export interface UiStep {
  callbackId: string;
  title: string;
  inputs: UiStepInput[];
  outputs: UiStepParameter[];
  /** What the panel says of the step beside its inputs. */
  note?: string;
}

const input = (name: string, title: string, hint: string, required = true): UiStepInput => ({
  name,
  title,
  hint,
  required,
});

/** Numbers and their count, as each step that changes numbers gives them. */
const numbersOut = (verb: string): UiStepParameter[] => [
  { name: 'numbers', title: `Numbers ${verb}` },
  { name: 'count', title: `Count ${verb}` },
];

/** The steps, in the order a "New store line" workflow uses them (docs/workflows.md). */
export const PLAYGROUND_STEPS: readonly UiStep[] = [
  {
    callbackId: 'create_agent',
    title: 'Create an AI agent',
    inputs: [input('name', 'Name', 'Berlin store'), input('language', 'Language', 'de-DE')],
    outputs: [{ name: 'agent_id', title: 'Agent id' }],
    // Where the app's create_agent step delivers it (privateTo in src/slack/listeners/steps.ts).
    note:
      "The agent's token comes to you alone, in a message only you see in #voice-ops (in your Messages if it " +
      'cannot go there). It is never an output: everyone who can see a workflow sees its outputs.',
  },
  {
    callbackId: 'buy_numbers',
    title: 'Buy numbers',
    inputs: [input('region', 'Region', 'DE'), input('count', 'Count', '1'), input('digits', 'Digits', '30', false)],
    outputs: numbersOut('bought'),
  },
  {
    callbackId: 'route_numbers',
    title: 'Route numbers to an agent',
    inputs: [input('numbers', 'Numbers', '+4930… or unrouted DE'), input('agent_id', 'Agent id', 'agt_…')],
    outputs: numbersOut('routed'),
  },
  {
    callbackId: 'release_numbers',
    title: 'Release numbers',
    inputs: [input('numbers', 'Numbers', '+4930… or unrouted DE')],
    outputs: numbersOut('released'),
  },
  {
    callbackId: 'export_routing',
    title: 'Export routing',
    inputs: [],
    outputs: [{ name: 'routing', title: 'Routing' }],
  },
];

export const MAX_WORKFLOW_STEPS = 10;

/** An input's value: as typed, or an earlier step's output (Workflow Builder's variable), that step counted from 1. */
const inputValue = z.union([
  z.object({ value: z.string().max(3000) }),
  z.object({ step: z.number().int().min(1).max(MAX_WORKFLOW_STEPS), output: z.string().max(100) }),
]);
export type InputValue = z.infer<typeof inputValue>;

/** A workflow as the panel builds it: its steps in order, each with its inputs. */
export const workflowDraft = z.object({
  title: z.string().trim().min(1).max(100),
  steps: z
    .array(z.object({ callbackId: z.string().max(100), inputs: z.record(z.string().max(100), inputValue) }))
    .min(1)
    .max(MAX_WORKFLOW_STEPS),
});
export type WorkflowDraft = z.infer<typeof workflowDraft>;

/** The ready-made workflows the panel offers: the "New store line" of docs/workflows.md, its form's answers typed. */
export const SAMPLE_WORKFLOWS: readonly WorkflowDraft[] = [
  {
    title: 'New store line',
    steps: [
      { callbackId: 'create_agent', inputs: { name: { value: 'Berlin store' }, language: { value: 'de-DE' } } },
      { callbackId: 'buy_numbers', inputs: { region: { value: 'DE' }, count: { value: '1' } } },
      {
        callbackId: 'route_numbers',
        inputs: { numbers: { step: 2, output: 'numbers' }, agent_id: { step: 1, output: 'agent_id' } },
      },
    ],
  },
];

export const stepNamed = (callbackId: string): UiStep | undefined =>
  PLAYGROUND_STEPS.find((step) => step.callbackId === callbackId);

/** A parameter's title, as the panel shows it; its name where the step has none such. */
export const titleOf = (parameters: readonly UiStepParameter[], name: string): string =>
  parameters.find((parameter) => parameter.name === name)?.title ?? name;

/** Why it cannot run as built: each variable must be an earlier step's output, as Workflow Builder offers only it. */
export function whyNotRunnable(draft: WorkflowDraft): string | undefined {
  for (const [index, { callbackId, inputs }] of draft.steps.entries()) {
    const step = stepNamed(callbackId);
    if (!step) return `Step ${index + 1} is not one of Voice Ops' steps.`;
    for (const [name, value] of Object.entries(inputs)) {
      const input = step.inputs.find((candidate) => candidate.name === name);
      if (!input) return `Step ${index + 1}, ${step.title}, has no input “${name}”.`;
      if (!('step' in value)) continue;
      const source = draft.steps[value.step - 1];
      if (value.step > index || !source) {
        return `Step ${index + 1}'s ${input.title} can only take the output of a step before it.`;
      }
      // Each earlier step was found above.
      const from = stepNamed(source.callbackId) as UiStep;
      if (!from.outputs.some((output) => output.name === value.output)) {
        return `Step ${index + 1}'s ${input.title} takes “${value.output}” of step ${value.step}, which ${from.title} does not give.`;
      }
    }
  }
  return undefined;
}
