import type { BlockSuggestion } from '@slack/bolt';
import { ACTION, INPUT } from '../ids.js';
import { decodeMetadata } from '../metadata.js';
import type { ListenerRouter } from '../router.js';
import { agentOptions, numberOptions } from '../views/modals.js';

/** The channel the picker's message is in, or the one its modal was opened from: a bound one narrows the options. */
const channelOf = (body: BlockSuggestion): string | undefined =>
  body.channel?.id ?? decodeMetadata(body.view?.private_metadata).channelId;

/** The type-ahead pickers, answered in the acknowledgement. A failed provider read answers no options, logged. */
export function registerOptions(router: ListenerRouter): void {
  // One number for the map form, several for the form that routes numbers to a new agent.
  for (const actionId of [INPUT.mapNumber.action, INPUT.routeNumbers.action]) {
    router.options(actionId, async ({ ack, body }, deps) => {
      const choices = await deps.ops.numberChoices(body.value, channelOf(body));
      if (!choices.ok) {
        deps.logger.warn({ reason: choices.message }, 'no number options: the provider could not be read');
      }
      await ack(choices.ok ? numberOptions(choices) : { options: [] });
    });
  }

  // The agent for the map form, and for what a buy's result offers to route.
  for (const actionId of [INPUT.mapAgent.action, ACTION.routeBought]) {
    router.options(actionId, async ({ ack, body }, deps) => {
      const choices = await deps.ops.agentChoices(body.value, channelOf(body));
      if (!choices.ok) {
        deps.logger.warn({ reason: choices.message }, 'no agent options: the provider could not be read');
      }
      await ack(choices.ok ? agentOptions(choices) : { options: [] });
    });
  }
}
