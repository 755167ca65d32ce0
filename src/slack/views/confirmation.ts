import type { KnownBlock, ModalView } from '@slack/types';
import { counted } from '../../counts.js';
import { type ConfirmationPrompt, confirmWordsOf, type PendingChange } from '../../ops/api.js';
import { ACTION, CALLBACK, INPUT } from '../ids.js';
import { actions, button, context, message, modal, plainText, type SlackMessage, section } from './blocks.js';
import { mrkdwnOf } from './phrase.js';

/** Whether confirming takes something away: a number, an agent, or a number's calls from the agent they reach now. */
export const destroys = (change: PendingChange): boolean => confirmWordsOf(change.kind).destroys(change);

/** The exact effect of the change, and what stops working, in escaped mrkdwn. */
export const confirmationSummary = (change: PendingChange): string =>
  mrkdwnOf(confirmWordsOf(change.kind).effect(change));

/** "Expires in 9 minutes, at 12:34": in minutes from `now`, and as a time Slack shows in the reader's zone. */
export function expiryLine(expiresAt: string, now: Date): string {
  const expires = new Date(expiresAt);
  const left = expires.getTime() - now.getTime();
  const at = `<!date^${Math.floor(expires.getTime() / 1000)}^{time}|${expires.toISOString().slice(11, 16)} UTC>`;
  if (left <= 0) return `:hourglass: This confirmation expired at ${at}.`;
  const minutes = Math.ceil(left / 60_000);
  return `:hourglass_flowing_sand: Expires in ${counted(minutes, 'minute')}, at ${at}. Only you can confirm it.`;
}

export function confirmationMessage(prompt: ConfirmationPrompt, now: Date): SlackMessage {
  const summary = confirmationSummary(prompt.change);
  const id = prompt.confirmationId;
  // A change that asks for a typed confirmation is confirmed in a modal that asks for it.
  const confirmAction = prompt.mustType ? ACTION.confirmTyped : ACTION.confirmChange;
  return message(summary, [
    section(summary),
    context(expiryLine(prompt.expiresAt, now)),
    ...(prompt.mustType ? [context(':keyboard: You will be asked to type the last four digits of the number.')] : []),
    actions([
      button({
        text: confirmWordsOf(prompt.change.kind).verb,
        actionId: confirmAction,
        value: id,
        style: destroys(prompt.change) ? 'danger' : 'primary',
      }),
      button({ text: 'Cancel', actionId: ACTION.cancelChange, value: id }),
    ]),
  ]);
}

/**
 * Closing it cancels (hence notify_on_close). No app can colour a modal's submit button, so a change that takes away
 * is confirmed by a red button instead, unless it asks for typed digits, which only a submission carries.
 */
export function confirmationModal(prompt: ConfirmationPrompt, now: Date): ModalView {
  const labels = confirmWordsOf(prompt.change.kind);
  const red = destroys(prompt.change) && !prompt.mustType;
  const confirm = button({
    text: labels.verb,
    actionId: ACTION.confirmChange,
    value: prompt.confirmationId,
    style: 'danger',
  });
  return modal({
    title: labels.title,
    callbackId: CALLBACK.confirmChange,
    ...(red ? {} : { submit: labels.verb }),
    close: 'Cancel',
    privateMetadata: prompt.confirmationId,
    notifyOnClose: true,
    blocks: [
      section(confirmationSummary(prompt.change)),
      context(expiryLine(prompt.expiresAt, now)),
      ...(prompt.mustType ? [typedConfirmationInput(prompt.mustType)] : []),
      ...(red ? [actions([confirm])] : []),
    ],
  });
}

function typedConfirmationInput(label: string): KnownBlock {
  return {
    type: 'input',
    block_id: INPUT.typedConfirmation.block,
    label: plainText(label),
    element: { type: 'plain_text_input', action_id: INPUT.typedConfirmation.action, max_length: 20 },
  };
}
