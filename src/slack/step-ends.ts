// Ends Workflow Builder steps with the app's bot token (Slack asks no scope for it), so that any path may end a step,
// on any replica and long after its delivery, with no workflow token kept anywhere.
import type { StepEnds } from '../ops/api.js';
import { slackErrorCode, type WebClient } from './clients.js';

/** Slack's answers for a step that has ended already, or that it no longer knows: nothing is left to end. */
const ENDED = new Set(['execution_not_in_running_state', 'function_execution_not_found']);

export function slackStepEnds(client: WebClient): StepEnds {
  return {
    end: async (executionId, ending) => {
      try {
        if (ending.ok)
          await client.functions.completeSuccess({ function_execution_id: executionId, outputs: ending.outputs });
        else await client.functions.completeError({ function_execution_id: executionId, error: ending.error });
      } catch (error) {
        if (!ENDED.has(slackErrorCode(error))) throw error;
      }
    },
  };
}
