// The Slack side of second approvals: the request posted through the announcements client, updated in place with
// its outcome (chat.update), and the requester told privately. Failures here are logged: the decision stands.
import { counted } from '../counts.js';
import type { ApprovalRequest, Decision, Failure, OnBatchProgress, Result } from '../ops/api.js';
import { progressRewriter } from './batch-progress.js';
import { replyTo, type SlackDeps } from './deps.js';
import { refreshHome } from './home.js';
import { mentionUser } from './mrkdwn.js';
import type { Respond } from './respond.js';
import type { Answer } from './surfaces.js';
import {
  approvalNotPostedMessage,
  approvalRequestMessage,
  approvalSettledMessage,
  awaitingApprovalMessage,
  expiredApprovalMessage,
  rejectedMessage,
} from './views/approvals.js';
import { resultMessage } from './views/batches.js';
import type { SlackMessage } from './views/blocks.js';
import { failureText } from './views/phrase.js';
import { doneMessage, failureMessage } from './views/results.js';

/** Posts the request for approval; undefined when it was posted, else why not. */
export async function postApprovalRequest(deps: SlackDeps, request: ApprovalRequest): Promise<string | undefined> {
  if (!request.channelId) return 'no approvals channel is configured';
  try {
    const posted = await deps.slack.announcements.chat.postMessage({
      channel: request.channelId,
      ...approvalRequestMessage(request),
      unfurl_links: false,
      unfurl_media: false,
    });
    if (posted.ts) await deps.ops.approvalPosted(request.approvalId, request.channelId, posted.ts);
    return undefined;
  } catch (error) {
    deps.logger.warn({ err: error, approvalId: request.approvalId }, 'could not post a request for approval');
    return error instanceof Error ? error.message : String(error);
  }
}

/** Shows a decision: the request's message updated in place, the requester told, a change made announced. */
export async function settleDecision(deps: SlackDeps, clicker: Respond, decided: Result<Decision>): Promise<void> {
  if (!decided.ok) {
    await clicker(failureMessage(decided)).catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'could not answer an approval click');
    });
    if (decided.reason === 'expired') await expireApprovals(deps);
    return;
  }
  const { request } = decided;
  const by = mentionUser(request.decidedBy ?? '');
  if (decided.decision === 'rejected') {
    await updateRequest(deps, request, `:no_entry_sign: Rejected by ${by}. Nothing was changed.`);
    return tellRequester(deps, request, rejectedMessage(request));
  }
  const { result } = decided;
  if (!result.ok) {
    await updateRequest(deps, request, failedLine(by, result));
    return tellRequester(deps, request, failureMessage(result));
  }
  if ('batchId' in result) {
    // A batch announced itself when it ended; the request says how it ended, and its requester gets its result,
    // failures and all.
    const view = await deps.ops.batchView(result.batchId);
    const ended = view && resultMessage(view);
    const outcome = ended ? ` ${ended.text.replace(/^:[a-z_]+: /, '')}` : '';
    const mark = view?.counts.failed ? ':warning:' : ':white_check_mark:';
    await updateRequest(deps, request, `${mark} Approved by ${by}: done.${outcome}`);
    if (ended) await tellRequester(deps, request, ended);
  } else {
    await updateRequest(deps, request, `:white_check_mark: Approved by ${by}: done.`);
    await tellRequester(deps, request, doneMessage(result));
    await deps.ops.announce(request.requester, result);
  }
  await refreshHome(deps, request.requester);
}

/**
 * The request's message, rewritten in place with Stop, which its approver may press too. `settled` waits for the
 * last rewrite, so that none lands over the decision's outcome.
 */
export function progressInRequest(
  deps: SlackDeps,
  where: { channel?: string; ts?: string },
): { onBatchProgress: OnBatchProgress; settled: () => Promise<void> } {
  const { channel, ts } = where;
  const clicked = deps.now();
  let progress: ReturnType<typeof progressRewriter> | undefined;
  const rewrite = async (message: SlackMessage) => {
    if (channel && ts) await deps.slack.announcements.chat.update({ channel, ts, ...message });
  };
  return {
    onBatchProgress: (batchId, counts) => {
      progress ??= progressRewriter(deps, batchId, rewrite, clicked);
      progress.onProgress(counts);
    },
    settled: async () => progress?.settled(),
  };
}

/** What the requester of a change that now waits is shown, once its request for approval is posted (or not). */
export async function awaitingAnswer(deps: SlackDeps, request: ApprovalRequest): Promise<Answer> {
  const notPosted = await postApprovalRequest(deps, request);
  const waiting = awaitingApprovalMessage(request);
  if (!notPosted) return { kind: 'message', message: waiting };
  return { kind: 'message', message: approvalNotPostedMessage(waiting, notPosted) };
}

const failedLine = (by: string, failure: Failure) =>
  `:x: Approved by ${by}, but the change failed: ${failureText(failure)}`;

/** Ends the requests nobody decided in time: each message updated, each requester told. */
export async function expireApprovals(deps: SlackDeps): Promise<void> {
  for (const request of await deps.ops.expireApprovals()) {
    const hours = request.hoursOpen;
    await updateRequest(
      deps,
      request,
      `:hourglass: Expired: nobody decided within ${counted(hours, 'hour')}. Nothing was changed.`,
    );
    await tellRequester(deps, request, expiredApprovalMessage(request, hours));
  }
}

async function updateRequest(deps: SlackDeps, request: ApprovalRequest, outcome: string): Promise<void> {
  if (!request.channelId || !request.messageTs) return;
  await deps.slack.announcements.chat
    .update({ channel: request.channelId, ts: request.messageTs, ...approvalSettledMessage(request, outcome) })
    .catch((error: unknown) => {
      deps.logger.warn({ err: error, approvalId: request.approvalId }, 'could not update a request for approval');
    });
}

async function tellRequester(deps: SlackDeps, request: ApprovalRequest, message: SlackMessage): Promise<void> {
  const { userId, channelId } = request.requester;
  await replyTo(deps, { userId, channelId })(message).catch((error: unknown) => {
    deps.logger.warn({ err: error, approvalId: request.approvalId }, 'could not tell the requester of an approval');
  });
}
