// Workflow Builder steps the app was asked to run: one row per step execution (Slack's function_execution_id), the
// change it started (a batch, or a single change's correlation id), and how it ended in Slack. Inserting the row is
// the claim on the execution, so that a retried delivery, on any replica, runs the step once; the end is written only
// after Slack took it, so that a crash in between ends it again rather than never.
import { z } from 'zod';
import { camelCased, optionalText } from './columns.js';
import type { Sql } from './sql.js';

export const STEP_OUTCOMES = ['completed', 'failed'] as const;
export type StepOutcome = (typeof STEP_OUTCOMES)[number];

const row = camelCased(
  z.object({
    execution_id: z.string(),
    workflow_execution_id: z.string(),
    callback_id: z.string(),
    user_id: z.string(),
    correlation_id: optionalText,
    started_at: z.string(),
    ended_at: optionalText,
    outcome: z
      .enum(STEP_OUTCOMES)
      .nullable()
      .transform((outcome) => outcome ?? undefined),
  }),
);
export type StepRecord = z.output<typeof row>;
export type StepStart = Pick<StepRecord, 'executionId' | 'workflowExecutionId' | 'callbackId' | 'userId'>;

const COLUMNS =
  'execution_id, workflow_execution_id, callback_id, user_id, correlation_id, started_at, ended_at, outcome';
const CLAIM = `
  INSERT INTO workflow_steps (execution_id, workflow_execution_id, callback_id, user_id, started_at)
  VALUES (@executionId, @workflowExecutionId, @callbackId, @userId, @at)
  ON CONFLICT (execution_id) DO NOTHING`;
const LINK = 'UPDATE workflow_steps SET correlation_id = ? WHERE execution_id = ? AND ended_at IS NULL';
const TAKE = `UPDATE workflow_steps SET correlation_id = @to
  WHERE execution_id = @executionId AND correlation_id = @from AND ended_at IS NULL`;
const FOLLOW = 'UPDATE workflow_steps SET correlation_id = ? WHERE correlation_id = ? AND ended_at IS NULL';
const END = 'UPDATE workflow_steps SET ended_at = ?, outcome = ? WHERE execution_id = ? AND ended_at IS NULL';
const GET = `SELECT ${COLUMNS} FROM workflow_steps WHERE execution_id = ?`;
const OF_CHANGE = `SELECT ${COLUMNS} FROM workflow_steps WHERE correlation_id = ? AND ended_at IS NULL`;
const OPEN = `SELECT ${COLUMNS} FROM workflow_steps WHERE ended_at IS NULL AND correlation_id IS NOT NULL
  ORDER BY started_at`;

export class WorkflowSteps {
  constructor(
    private readonly sql: Sql,
    private readonly options: { now: () => Date },
  ) {}

  /** Records a step execution; true for the first caller only, so that the step runs once. */
  async claim(start: StepStart): Promise<boolean> {
    return (await this.sql.run(CLAIM, { ...start, at: this.options.now().toISOString() })) === 1;
  }

  /** Ties an open step to the change it started, whose end ends it. */
  async link(executionId: string, correlationId: string): Promise<void> {
    await this.sql.write(LINK, [correlationId, executionId]);
  }

  /**
   * Moves an open step from the request it waits on to what answered it, once: true for the first answer only, so that
   * of two clicks (or a click and an expiry) one acts.
   */
  async take(executionId: string, from: string, to: string): Promise<boolean> {
    return (await this.sql.run(TAKE, { executionId, from, to })) === 1;
  }

  /** Moves the open steps of a change to the change that replaces it (a plan made again). */
  async follow(from: string, to: string): Promise<void> {
    await this.sql.write(FOLLOW, [to, from]);
  }

  /** Marks a step ended, once; false when it had ended already. */
  async end(executionId: string, outcome: StepOutcome): Promise<boolean> {
    return (await this.sql.run(END, [this.options.now().toISOString(), outcome, executionId])) === 1;
  }

  async get(executionId: string): Promise<StepRecord | undefined> {
    const found = await this.sql.get(GET, [executionId]);
    return found === undefined ? undefined : row.parse(found);
  }

  /** The open step a change belongs to, if any. */
  async ofChange(correlationId: string): Promise<StepRecord | undefined> {
    const found = await this.sql.get(OF_CHANGE, [correlationId]);
    return found === undefined ? undefined : row.parse(found);
  }

  /** Steps waiting on the change they started, oldest first. */
  async open(): Promise<StepRecord[]> {
    return (await this.sql.all(OPEN)).map((found) => row.parse(found));
  }
}
