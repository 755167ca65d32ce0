// What a Workflow Builder step shows the person it names: the plan, or the agent's creation, to confirm, saying who
// ran the workflow as Slack says it, so that nobody takes a builder's request for their own.
import type { BatchView } from '../../ops/api.js';
import { ACTION } from '../ids.js';
import { bold, escapeMrkdwn, mentionUser } from '../mrkdwn.js';
import { planMessage } from './batches.js';
import { actions, button, context, message, type SlackMessage, section } from './blocks.js';

/** Who a step names, and who Slack says ran its workflow (the interactor), if it said. */
export interface StepPerson {
  named: string;
  ranBy?: string;
}

/** Where the request came from: the person's own run, or a workflow asking in their name. */
function fromLine({ named, ranBy }: StepPerson): string {
  if (ranBy === named)
    return ':zap: A workflow you ran asks for this. It goes on once you confirm, and stops if you cancel.';
  const who = ranBy
    ? `A workflow run by ${mentionUser(ranBy)} asks this in your name`
    : 'A workflow asks this in your name, and Slack did not say who ran it';
  return (
    `:warning: ${who}. Nothing happens unless you confirm it yourself: cancel it if you did not expect it. ` +
    'It goes on once you confirm, and stops if you cancel.'
  );
}

/** A step's plan, sent to the person it names: the workflow goes on once they confirm. */
export function stepPlanMessage(view: BatchView, now: Date, person: StepPerson): SlackMessage {
  const plan = planMessage(view, now);
  return message(plan.text, [context(fromLine(person)), ...plan.blocks]);
}

/** An agent's creation asked of the person a step names, where Slack did not vouch that they ran the workflow. */
export function agentAskMessage(
  input: { name: string; language: string },
  person: StepPerson,
  executionId: string,
): SlackMessage {
  const text = `Create the AI agent ${bold(input.name, 100)} (${escapeMrkdwn(input.language)})?`;
  return message(text, [
    context(fromLine(person)),
    section(`${text} Its token comes to you privately. This request lasts 10 minutes.`),
    actions([
      button({ text: 'Create', actionId: ACTION.createAgentForStep, value: executionId, style: 'primary' }),
      button({ text: 'Cancel', actionId: ACTION.cancelAgentForStep, value: executionId }),
    ]),
  ]);
}
