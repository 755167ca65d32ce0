// What a Workflow Builder step shows the person who ran the workflow: the plan to confirm, saying where it came from.
import type { BatchView } from '../../ops/api.js';
import { planMessage } from './batches.js';
import { context, message, type SlackMessage } from './blocks.js';

/** A step's plan, sent to the person who ran the workflow: the workflow goes on once they confirm. */
export function stepPlanMessage(view: BatchView, now: Date): SlackMessage {
  const plan = planMessage(view, now);
  const from = context(':zap: A workflow you ran asks for this. It goes on once you confirm, and stops if you cancel.');
  return message(plan.text, [from, ...plan.blocks]);
}
