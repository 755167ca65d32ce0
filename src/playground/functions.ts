// Slack's side of Workflow Builder steps: an execution with a token (`xwfp-…`) lasting until the step ends, once; a
// message posted with it belongs to the step, and its buttons carry `function_data` and the token.
import { randomBytes } from 'node:crypto';

export type StepEnd = { outcome: 'completed'; outputs: Record<string, unknown> } | { outcome: 'failed'; error: string };

export interface StepExecution {
  executionId: string;
  workflowExecutionId: string;
  callbackId: string;
  inputs: Record<string, unknown>;
  /** The workflow token Slack hands the app for this execution. */
  botAccessToken: string;
  /** How the step ended, once it has. */
  end?: StepEnd;
}

/** What Slack adds to an interaction with a message a step posted (block_actions `function_data`). */
export interface FunctionInteraction {
  function_data: { execution_id: string; function: { callback_id: string }; inputs: Record<string, unknown> };
  bot_access_token: string;
}

/** An input of type `slack#/types/interactivity`, as Slack fills it. */
export interface Interactivity {
  interactor: { id: string; secret: string };
  interactivity_pointer: string;
}

type Answer = Record<string, unknown>;

export class FunctionExecutions {
  private readonly executions = new Map<string, StepExecution>();
  private readonly byToken = new Map<string, StepExecution>();
  /** `channel ts` of each message posted with a step's token. */
  private readonly messages = new Map<string, StepExecution>();
  private readonly secrets = new Set<string>();
  /** Who waits for a step to end (the workflow it belongs to), by execution id. */
  private readonly waiting = new Map<string, ((end: StepEnd | undefined) => void)[]>();
  private counter = 0;

  /** `onChange` hears of each step started or ended: what a person could see change. */
  constructor(private readonly onChange: () => void = () => {}) {}

  /**
   * `ranBy` fills the step's interactivity input as Slack fills it; without it (a schedule, an event) it is left out.
   * The steps of one workflow share its `workflowExecutionId`.
   */
  start(
    callbackId: string,
    inputs: Record<string, unknown>,
    ranBy?: string,
    workflowExecutionId?: string,
  ): StepExecution {
    const id = `${String(++this.counter).padStart(6, '0')}${randomBytes(3).toString('hex').toUpperCase()}`;
    const execution: StepExecution = {
      executionId: `Fx${id}`,
      workflowExecutionId: workflowExecutionId ?? `Wx${id}`,
      callbackId,
      inputs: ranBy ? { ...inputs, interactivity: this.interactivity(ranBy) } : inputs,
      botAccessToken: `xwfp-${randomBytes(12).toString('hex')}`,
    };
    this.executions.set(execution.executionId, execution);
    this.byToken.set(execution.botAccessToken, execution);
    this.onChange();
    return execution;
  }

  /** What Slack puts in an interactivity input (api.slack.com's interactivity type): who clicked, and a pointer. */
  private interactivity(userId: string): Interactivity {
    const secret = randomBytes(32).toString('base64url');
    this.secrets.add(secret);
    const pointer = `${Date.now()}.${randomBytes(6).readUIntBE(0, 6)}.${randomBytes(16).toString('hex')}`;
    return { interactor: { id: userId, secret }, interactivity_pointer: pointer };
  }

  /** Forgets every execution (the playground's Start over): whoever waits for one to end hears `undefined`. */
  forget(): void {
    this.executions.clear();
    this.byToken.clear();
    this.messages.clear();
    for (const [executionId] of this.waiting) this.settle(executionId, undefined);
    this.onChange();
  }

  /** How the step ends, once it does; `undefined` when it is forgotten first. */
  ended(executionId: string): Promise<StepEnd | undefined> {
    const execution = this.executions.get(executionId);
    if (!execution || execution.end) return Promise.resolve(execution?.end);
    return new Promise((resolve) => {
      this.waiting.set(executionId, [...(this.waiting.get(executionId) ?? []), resolve]);
    });
  }

  private settle(executionId: string, end: StepEnd | undefined): void {
    for (const resolve of this.waiting.get(executionId) ?? []) resolve(end);
    this.waiting.delete(executionId);
  }

  get(executionId: string): StepExecution | undefined {
    return this.executions.get(executionId);
  }

  all(): StepExecution[] {
    return [...this.executions.values()];
  }

  /** Every workflow token and interactor secret handed out: secrets like any other token. */
  tokens(): string[] {
    return [...this.byToken.keys(), ...this.secrets];
  }

  /** A call made with a step's token once the step has ended: Slack no longer takes the token. */
  refusesToken(token: string | undefined): boolean {
    return token !== undefined && this.byToken.get(token)?.end !== undefined;
  }

  /** functions.completeSuccess and functions.completeError; undefined for any other method. */
  call(method: string, body: Record<string, unknown>): Answer | undefined {
    if (method !== 'functions.completeSuccess' && method !== 'functions.completeError') return undefined;
    const execution = this.executions.get(String(body.function_execution_id ?? ''));
    if (!execution) return { ok: false, error: 'function_execution_not_found' };
    if (execution.end) return { ok: false, error: 'execution_not_in_running_state' };
    if (method === 'functions.completeSuccess') {
      const outputs = body.outputs;
      if (typeof outputs !== 'object' || outputs === null || Array.isArray(outputs)) {
        return { ok: false, error: 'invalid_arguments' };
      }
      execution.end = { outcome: 'completed', outputs: outputs as Record<string, unknown> };
    } else {
      if (typeof body.error !== 'string' || body.error === '') return { ok: false, error: 'invalid_arguments' };
      execution.end = { outcome: 'failed', error: body.error };
    }
    this.settle(execution.executionId, execution.end);
    this.onChange();
    return { ok: true };
  }

  /** Notes a message the app posted, which belongs to a step when the app posted it with the step's token. */
  posted(token: string | undefined, channel: unknown, ts: unknown): void {
    const execution = token === undefined ? undefined : this.byToken.get(token);
    if (execution && typeof channel === 'string' && typeof ts === 'string')
      this.messages.set(`${channel} ${ts}`, execution);
  }

  /** What an interaction with this message carries besides Slack's usual fields, when a step posted it. */
  interactionWith(channel: string, ts: string | undefined): FunctionInteraction | undefined {
    const execution = ts === undefined ? undefined : this.messages.get(`${channel} ${ts}`);
    if (!execution) return undefined;
    return {
      function_data: {
        execution_id: execution.executionId,
        function: { callback_id: execution.callbackId },
        inputs: execution.inputs,
      },
      bot_access_token: execution.botAccessToken,
    };
  }
}
