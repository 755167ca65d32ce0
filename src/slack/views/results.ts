// What the requester sees after a change: done, failed, cancelled, under way, or nothing to do.
import type { ModalView } from '@slack/types';
import {
  confirmWordsOf,
  type Failure,
  type Finished,
  type PendingChange,
  saidOf,
  type UndoOffer,
  type Verified,
} from '../../ops/api.js';
import type { CreatedAgent } from '../../provider/schemas.js';
import { ACTION } from '../ids.js';
import { bold, code, escapeMrkdwn } from '../mrkdwn.js';
import { slackRefusal } from '../slack-errors.js';
import { agentCreatedMessage, routeNumbersButton } from './agents.js';
import { actions, button, context, message, type SlackMessage, section, textMessage } from './blocks.js';
import { describeChange } from './changes.js';
import { agentCreatedModal, infoModal } from './modals.js';
import { failureText, mrkdwnOf } from './phrase.js';
import { routeBoughtBlock } from './route-bought.js';
import { agentLabel } from './text.js';
import { undoButton, undoWithheld } from './undo.js';

export function doneMessage(done: Finished & { correlationId?: string; undo?: UndoOffer }): SlackMessage {
  const { change } = done;
  const undo = done.correlationId ? undoButton(done.correlationId, done.undo) : [];
  if (done.createdAgent) {
    // A message stays once read, so the way on to routing numbers sits under the token (a modal shows it after).
    const created = agentCreatedMessage(done.createdAgent);
    const blocks = [...created.blocks, routeNumbersButton(done.createdAgent.id)];
    return { ...created, blocks: [...blocks, ...(undo.length ? [actions(undo)] : [])] };
  }
  const said = saidOf(change);
  const predicate = describeChange(change);
  const text = `:white_check_mark: ${predicate.charAt(0).toUpperCase()}${predicate.slice(1)}.`;
  const buttons = [
    ...(said.nextAgent
      ? [button({ text: 'Map another number to this agent', actionId: ACTION.mapToAgent, value: said.nextAgent })]
      : []),
    ...undo,
  ];
  return message(text, [
    section(text),
    ...(done.note ? [context(escapeMrkdwn(done.note))] : []),
    ...(said.routeNext ? [routeBoughtBlock({ number: said.routeNext })] : []),
    ...(buttons.length ? [actions(buttons)] : []),
    ...undoWithheld(done.undo),
  ]);
}

export function doneModal(done: Finished): ModalView {
  if (done.createdAgent) return agentCreatedModal(done.createdAgent);
  return infoModal('Done', doneMessage(done));
}

export function failureMessage(failure: Failure): SlackMessage {
  const text = `:warning: ${failureText(failure)}`;
  if (!failure.instead) return textMessage(text);
  return message(text, [section(text), ...insteadBlocks(failure.instead)]);
}

/** The numbers for sale offered in place of one that is not, each with its Buy. */
function insteadBlocks(numbers: string[]) {
  if (!numbers.length) return [context('No other voice number is for sale in its region now.')];
  return [
    context(numbers.length === 1 ? 'The nearest number for sale:' : 'The nearest numbers for sale:'),
    ...numbers.map((number) =>
      section(bold(number), button({ text: 'Buy', actionId: ACTION.buyNumber, value: number })),
    ),
  ];
}

export function failureModal(title: string, failure: Failure): ModalView {
  return infoModal(title, failureMessage(failure));
}

export function cancelledMessage(change: PendingChange): SlackMessage {
  return textMessage(
    `:heavy_multiplication_x: Cancelled: nothing changed. ${mrkdwnOf(confirmWordsOf(change.kind).kept(change))}`,
  );
}

export function workingMessage(what: string): SlackMessage {
  return textMessage(`:hourglass_flowing_sand: ${escapeMrkdwn(what)}`);
}

export function unchangedMapMessage(number: string, agentName: string): SlackMessage {
  return textMessage(`:information_source: ${bold(number)} already routes to ${bold(agentName)}: nothing to change.`);
}

/** After a change was made and answered: the announcement channel did not get it, and why. */
export function announcementFailedMessage(failure: Failure): SlackMessage {
  // The message names a channel link and a command, both ours: it is mrkdwn already.
  return textMessage(`:loudspeaker: The change was made, but ${failure.message}`);
}

/** Slack did not open a form: what happened, and the command that does the same without one. */
export function formFailedMessage(slackCode: string, instead: string): SlackMessage {
  const remedy = slackRefusal(slackCode);
  const next = remedy ? `${remedy} Or type` : 'Try again, or type';
  return textMessage(`:warning: Slack did not open the form (${code(slackCode)}). ${next} ${code(instead)} instead.`);
}

/** The agent was created, but its token could not be shown: the only remedy is a new agent. */
export function tokenUndeliveredMessage(agent: CreatedAgent): SlackMessage {
  return textMessage(
    `:warning: Agent ${agentLabel({ id: agent.id, name: agent.name })} was created, but its token could not be ` +
      'shown to you, and it is not kept anywhere. Delete the agent and create it again to get a new token.',
  );
}

/** How a change ended that the app stopped in the middle of, once the provider was asked. */
export function reconciledMessage(outcome: Verified): SlackMessage {
  const why = 'Voice Ops did not see this change to its end, and checked with the provider afterwards.';
  if (!outcome.ok) return textMessage(`:warning: ${escapeMrkdwn(outcome.message)} ${why}`);
  const predicate = describeChange(outcome.change);
  const note = outcome.note ? ` ${escapeMrkdwn(outcome.note)}` : '';
  return textMessage(`:white_check_mark: ${predicate.charAt(0).toUpperCase()}${predicate.slice(1)}. ${why}${note}`);
}
