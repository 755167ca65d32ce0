// Requests for a second person's approval: the message posted in the approvals channel (updated in place with the
// outcome), and what the requester is told.
import { counted } from '../../counts.js';
import { type ApprovalRequest, bulkWordsOf, isBatch, kindNameOf, neededRole } from '../../ops/api.js';
import { ACTION } from '../ids.js';
import { escapeMrkdwn, mentionChannel, mentionUser } from '../mrkdwn.js';
import { encodeValue } from '../paging.js';
import { actions, button, context, message, type SlackMessage, section, textMessage } from './blocks.js';
import { confirmationSummary, destroys } from './confirmation.js';
import { agentLabel } from './text.js';

const expiry = (expiresAt: string) => `${expiresAt.slice(0, 16).replace('T', ' ')} UTC`;

/** The change, or the whole plan, that waits: its effect in a sentence. */
function summaryOf(change: ApprovalRequest['change']): string {
  if (!isBatch(change)) return confirmationSummary(change);
  const words = bulkWordsOf(change.bulk);
  const agent = change.agent ? ` to ${agentLabel(change.agent)}` : '';
  const taken = change.taken ? `\n:warning: ${counted(change.taken, 'number')} ${escapeMrkdwn(words.taken)}.` : '';
  return `A plan, as one request: ${words.verb} ${counted(change.total, 'number')}${agent}.${taken}`;
}

/** Whether approving takes something away: a number, an agent, or calls from the agent they reach now. */
function takesAway(change: ApprovalRequest['change']): boolean {
  return isBatch(change) ? change.taken > 0 || bulkWordsOf(change.bulk).destroys : destroys(change);
}

function asked(request: ApprovalRequest): string {
  const who = mentionUser(request.requester.userId);
  return `${who} asks for a change that needs a second person:\n${summaryOf(request.change)}`;
}

/** Posted in the approvals channel: Approve and Reject, for anyone else with the role the change needs. */
export function approvalRequestMessage(request: ApprovalRequest): SlackMessage {
  const text = asked(request);
  return message(text, [
    section(text),
    context(
      `:raised_hand: Another person with the ${neededRole(kindNameOf(request.change))} role may approve it, until ` +
        `${expiry(request.expiresAt)}.`,
    ),
    actions([
      // Approving is the last confirmation of the change: red when it takes something away, as Confirm is.
      button({
        text: 'Approve',
        actionId: ACTION.approveChange,
        value: request.approvalId,
        style: takesAway(request.change) ? 'danger' : 'primary',
      }),
      button({ text: 'Reject', actionId: ACTION.rejectChange, value: request.approvalId }),
      // A plan is decided on as a whole: every item it would change is a click away, in a private reply.
      ...(request.change.kind === 'batch'
        ? [
            button({
              text: 'See every item',
              actionId: ACTION.batchItems,
              value: encodeValue({ batchId: request.change.batchId, page: 1 }),
            }),
          ]
        : []),
    ]),
  ]);
}

/** The same message once decided or expired: the outcome in place of the buttons. */
export function approvalSettledMessage(request: ApprovalRequest, outcome: string): SlackMessage {
  const text = asked(request);
  return message(`${text}\n${outcome}`, [section(text), context(outcome)]);
}

/** What the requester sees after confirming a change that waits. */
export function awaitingApprovalMessage(request: ApprovalRequest): SlackMessage {
  const where = request.channelId ? ` in ${mentionChannel(request.channelId)}` : '';
  // A rule locked by the configuration is named by its key; one set in Slack, by nothing.
  const rule = request.rule ? ` (${request.rule})` : '';
  return textMessage(
    `:hourglass_flowing_sand: Confirmed. This change needs a second person${rule}: the request ` +
      `waits${where} until ${expiry(request.expiresAt)}, and you will be told how it ends. Nothing has changed yet.`,
  );
}

export function rejectedMessage(request: ApprovalRequest): SlackMessage {
  return textMessage(
    `:no_entry_sign: ${mentionUser(request.decidedBy ?? '')} rejected your change: nothing was changed.\n` +
      summaryOf(request.change),
  );
}

export function expiredApprovalMessage(request: ApprovalRequest, hours: number): SlackMessage {
  return textMessage(
    `:hourglass: Nobody approved your change within ${counted(hours, 'hour')}: nothing was changed. Ask again if you still ` +
      `want it.\n${summaryOf(request.change)}`,
  );
}

/** The request could not be posted: nobody can approve it, so it will expire. */
export function approvalNotPostedMessage(waiting: SlackMessage, why: string): SlackMessage {
  const note =
    `:warning: The request for approval could not be posted (${escapeMrkdwn(why)}), so nobody can approve it and ` +
    'it will expire. Whoever runs Voice Ops should invite the app to the approvals channel.';
  return message(`${waiting.text}\n${note}`, [...(waiting.blocks ?? []), context(note)]);
}
