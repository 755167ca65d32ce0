// Slack's part in running a workflow for the Workflows panel: each step started once the one before has completed,
// its inputs typed or taken from earlier outputs; a step that fails, or is not acknowledged, stops the workflow.
import type { FunctionExecutions, StepEnd, StepExecution } from './functions.js';
import { OPS_CHANNEL } from './people.js';
import {
  type InputValue,
  stepNamed,
  titleOf,
  type UiStepParameter,
  type WorkflowDraft,
  whyNotRunnable,
} from './workflows.js';

/** One step of a workflow run, as the panel shows it: what it was given and how it ended, in the step's words. */
export interface UiWorkflowStep {
  title: string;
  state: 'not started' | 'running' | 'completed' | 'failed';
  inputs: { title: string; value: string }[];
  outputs: { title: string; value: string }[];
}

export interface UiWorkflowRun {
  id: string;
  title: string;
  steps: UiWorkflowStep[];
  /** Where and why the workflow stopped before its end. */
  stopped?: string;
}

interface WorkflowRun {
  /** The workflow execution id every one of its steps carries. */
  id: string;
  userId: string;
  draft: WorkflowDraft;
  /** The execution of each step started, in order. */
  executions: string[];
  stopped?: { step: number; why: string };
}

/** Sends a step to the app as function_executed; false when the app did not acknowledge it. */
export type Deliver = (execution: StepExecution) => Promise<boolean>;

type Resolved = { ok: true; inputs: Record<string, unknown> } | { ok: false; why: string };

/** Each typed (an empty one left out, as Workflow Builder leaves it) or an earlier step's output. */
function resolve(
  inputs: Record<string, InputValue>,
  steps: WorkflowDraft['steps'],
  outputs: Record<string, unknown>[],
): Resolved {
  const resolved: Record<string, unknown> = {};
  for (const [name, given] of Object.entries(inputs)) {
    if ('value' in given) {
      if (given.value.trim() !== '') resolved[name] = given.value;
      continue;
    }
    const value = outputs[given.step - 1]?.[given.output];
    if (value === undefined) {
      const declared = stepNamed(steps[given.step - 1]?.callbackId ?? '')?.outputs ?? [];
      return { ok: false, why: `step ${given.step} gave no ${titleOf(declared, given.output)}.` };
    }
    resolved[name] = value;
  }
  return { ok: true, inputs: resolved };
}

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

export class WorkflowRuns {
  private runs: WorkflowRun[] = [];
  private counter = 0;

  /** `onChange` hears of each run started or stopped: what a person could see change. */
  constructor(
    private readonly functions: FunctionExecutions,
    private readonly onChange: () => void,
  ) {}

  /** Runs in the background until its last step ends or one fails, or says why it cannot run as built. */
  start(userId: string, draft: WorkflowDraft, deliver: Deliver): { ok: true } | { ok: false; reason: string } {
    const why = whyNotRunnable(draft);
    if (why) return { ok: false, reason: why };
    const run: WorkflowRun = { id: `Wx${String(++this.counter).padStart(9, '0')}`, userId, draft, executions: [] };
    this.runs.push(run);
    this.onChange();
    void this.run(run, deliver);
    return { ok: true };
  }

  private async run(run: WorkflowRun, deliver: Deliver): Promise<void> {
    const outputs: Record<string, unknown>[] = [];
    for (const [index, step] of run.draft.steps.entries()) {
      const resolved = resolve(step.inputs, run.draft.steps, outputs);
      if (!resolved.ok) return this.stop(run, index, `it could not start: ${resolved.why}`);
      const inputs = { user_id: run.userId, channel_id: OPS_CHANNEL.id, ...resolved.inputs };
      const execution = this.functions.start(step.callbackId, inputs, run.userId, run.id);
      run.executions.push(execution.executionId);
      if (!(await deliver(execution))) {
        return this.stop(run, index, 'Voice Ops did not acknowledge it within 3 seconds, as Slack requires.');
      }
      const end = await this.functions.ended(execution.executionId);
      // Forgotten: the playground started over.
      if (!end) return;
      if (end.outcome === 'failed') return this.stop(run, index, end.error);
      outputs.push(end.outputs);
    }
  }

  private stop(run: WorkflowRun, step: number, why: string): void {
    run.stopped = { step, why };
    this.onChange();
  }

  /** Forgets every run (the playground's Start over); the steps under way stop with their executions. */
  forget(): void {
    this.runs = [];
    this.onChange();
  }

  /** The workflows this person ran, newest first. */
  of(userId: string): UiWorkflowRun[] {
    return this.runs
      .filter((run) => run.userId === userId)
      .reverse()
      .map((run) => this.shown(run));
  }

  private shown(run: WorkflowRun): UiWorkflowRun {
    const steps = run.draft.steps.map(({ callbackId }, index): UiWorkflowStep => {
      const step = stepNamed(callbackId);
      const execution = this.functions.get(run.executions[index] ?? '');
      const title = step?.title ?? callbackId;
      if (!execution || !step) return { title, state: 'not started', inputs: [], outputs: [] };
      const { user_id: _user, channel_id: _channel, interactivity: _ranBy, ...given } = execution.inputs;
      const inputs = Object.entries(given).map(([name, value]) => ({
        title: titleOf(step.inputs, name),
        value: text(value),
      }));
      return { title, inputs, ...ending(execution.end, step.outputs) };
    });
    const stopped = run.stopped;
    return {
      id: run.id,
      title: run.draft.title,
      steps,
      ...(stopped
        ? { stopped: `Stopped at step ${stopped.step + 1}, ${steps[stopped.step]?.title}: ${stopped.why}` }
        : {}),
    };
  }
}

/** A step's state and outputs, titled as the step declares them. */
function ending(
  end: StepEnd | undefined,
  declared: readonly UiStepParameter[],
): Pick<UiWorkflowStep, 'state' | 'outputs'> {
  if (!end) return { state: 'running', outputs: [] };
  if (end.outcome === 'failed') return { state: 'failed', outputs: [] };
  return {
    state: 'completed',
    outputs: Object.entries(end.outputs).map(([name, value]) => ({
      title: titleOf(declared, name),
      value: text(value),
    })),
  };
}
