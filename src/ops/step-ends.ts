// How a Workflow Builder step ends, and the port that ends it in Slack: the operations decide when and with what, the
// Slack layer says it to Slack. A module of its own, so that the deps can name the port without importing the steps.

/** How a step ends: its outputs, or a sentence for whoever built or ran the workflow. */
export type StepEnding = { ok: true; outputs: Record<string, unknown> } | { ok: false; error: string };

/** Ends step executions in Slack (functions.completeSuccess and functions.completeError). */
export interface StepEnds {
  end(executionId: string, ending: StepEnding): Promise<void>;
}
