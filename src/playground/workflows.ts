// The playground's Workflows panel: Voice Ops' Workflow Builder steps, each with the inputs a workflow's builder would
// set (the manifests declare them; test/playground/workflows.test.ts holds the two together), started as the person
// on the page from #voice-ops, as a workflow run there by them would start it; and the steps they ran, with how
// each ended.
import type { FunctionExecutions, StepEnd } from './functions.js';
import { OPS_CHANNEL } from './people.js';

export interface UiStepInput {
  name: string;
  title: string;
  /** What to type, as an example. */
  hint: string;
  required: boolean;
}

export interface UiStep {
  callbackId: string;
  title: string;
  inputs: UiStepInput[];
}

export interface UiStepRun {
  executionId: string;
  title: string;
  inputs: Record<string, unknown>;
  end?: StepEnd;
}

const input = (name: string, title: string, hint: string, required = true): UiStepInput => ({
  name,
  title,
  hint,
  required,
});

/** The steps, in the order a "New store line" workflow uses them (docs/workflows.md). */
export const PLAYGROUND_STEPS: readonly UiStep[] = [
  {
    callbackId: 'create_agent',
    title: 'Create an AI agent',
    inputs: [input('name', 'Name', 'Berlin store'), input('language', 'Language', 'de-DE')],
  },
  {
    callbackId: 'buy_numbers',
    title: 'Buy numbers',
    inputs: [input('region', 'Region', 'DE'), input('count', 'Count', '1'), input('digits', 'Digits', '30', false)],
  },
  {
    callbackId: 'route_numbers',
    title: 'Route numbers to an agent',
    inputs: [input('numbers', 'Numbers', '+4930… or unrouted DE'), input('agent_id', 'Agent id', 'agt_…')],
  },
  {
    callbackId: 'release_numbers',
    title: 'Release numbers',
    inputs: [input('numbers', 'Numbers', '+4930… or unrouted DE')],
  },
  { callbackId: 'export_routing', title: 'Export routing', inputs: [] },
];

/** What a step runs with: the inputs typed (empty ones left out), the person, and the channel the workflow runs in. */
export function stepInputs(userId: string, typed: Record<string, string>): Record<string, unknown> {
  const given = Object.entries(typed).filter(([, value]) => value.trim() !== '');
  return { user_id: userId, channel_id: OPS_CHANNEL.id, ...Object.fromEntries(given) };
}

/** The steps this person ran, newest first. */
export function stepRuns(functions: FunctionExecutions, userId: string): UiStepRun[] {
  const title = (callbackId: string) =>
    PLAYGROUND_STEPS.find((step) => step.callbackId === callbackId)?.title ?? callbackId;
  return functions
    .all()
    .filter((execution) => execution.inputs.user_id === userId)
    .reverse()
    .map(({ executionId, callbackId, inputs, end }) => {
      const { user_id: _user, channel_id: _channel, interactivity: _ranBy, ...typed } = inputs;
      return { executionId, title: title(callbackId), inputs: typed, ...(end ? { end } : {}) };
    });
}
