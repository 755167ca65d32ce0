// `/voice plan`: a routing pasted or uploaded, read back as a plan or its errors; `/voice export`: today's routing in
// the same format, as text or, when long, a file.
import type { ViewOutput } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { type Actor, type CheckedText, fail, KIND, roleIncludes } from '../../ops/api.js';
import { within } from '../../within.js';
import { slackErrorCode } from '../clients.js';
import { replyTo, type SlackDeps } from '../deps.js';
import { ACTION, CALLBACK, INPUT } from '../ids.js';
import { decodeMetadata, encodeMetadata } from '../metadata.js';
import { escapeMrkdwn } from '../mrkdwn.js';
import type { ListenerRouter } from '../router.js';
import { type Answer, asModal, messageSurface } from '../surfaces.js';
import { textMessage } from '../views/blocks.js';
import { infoModal, loadingModal } from '../views/modals.js';
import {
  EXPORT_INLINE_MAX,
  exportMessage,
  exportModal,
  planErrorLines,
  planErrorsMessage,
  routingPlanModal,
} from '../views/routing-plan.js';
import { requesterIn } from '../who-asked.js';
import { actorOf, type Body, openFormOver, surfaceFor } from './actions.js';
import { planAnswer } from './batches.js';

/** A routing text of 1,000 lines is some 60 kB; anything far larger is not one. */
const FILE_MAX_BYTES = 256 * 1024;
/** Slack waits 3 s for a submission's answer, and the answer must leave well within them. */
const ANSWER_IN_FORM_MS = 2_000;
const FORM_TITLE = 'Plan routing';
const EXPORT_TITLE = 'Export routing';

interface UploadedFile {
  name?: string;
  size?: number;
  url_private_download?: string;
}

/** The file a file_input handed over, if any. */
function uploadedFile(view: ViewOutput): UploadedFile | undefined {
  const state = view.state.values[INPUT.routingFile.block]?.[INPUT.routingFile.action] as
    | { files?: UploadedFile[] }
    | undefined;
  return state?.files?.[0];
}

/** A file's text, or why it could not be read. */
async function download(deps: SlackDeps, file: UploadedFile): Promise<{ text: string } | { error: string }> {
  if (!file.url_private_download) return { error: 'Slack gave no way to read the file.' };
  if ((file.size ?? 0) > FILE_MAX_BYTES) return { error: 'The file is too large for a routing text (256 kB at most).' };
  try {
    return { text: await deps.slack.downloadFile(file.url_private_download) };
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not download an uploaded routing file');
    return { error: 'Slack did not hand over the file: try again, or paste the text.' };
  }
}

export function registerRoutingPlan(router: ListenerRouter): void {
  // The Home tab's tools: the form of a routing text, and the export.
  router.action<Body>(ACTION.planRouting, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const denied = await deps.ops.authorize(actor, KIND.map);
    if (denied) return (await surfaceFor(deps, body, actor, 'Plan routing')).show({ kind: 'failure', failure: denied });
    const view = routingPlanModal(encodeMetadata({ channelId: actor.channelId }));
    await openFormOver(deps, body, view, '/voice plan');
  });

  // The export asks first for the moment, if any: the form's one field is optional.
  router.action<Body>(ACTION.exportRouting, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    await openFormOver(
      deps,
      body,
      exportModal(encodeMetadata({ channelId: actor.channelId })),
      '/voice export [as of TIME]',
    );
  });

  // A time it cannot read, or one still to come, is said under the field; any other answer replaces the form. A slow
  // export (a long audit log to verify) is answered in the form once it is ready.
  router.view(CALLBACK.exportRouting, async ({ ack, view, context }, deps) => {
    const actor: Actor = { ...requesterIn(context), ...decodeMetadata(view.private_metadata), source: 'modal' };
    const typed = view.state.values[INPUT.exportAsOf.block]?.[INPUT.exportAsOf.action]?.value?.trim();
    const answering = exportAnswer(deps, actor, typed || undefined);
    const quick = await within(answering, ANSWER_IN_FORM_MS);
    if (quick?.kind === 'failure' && quick.failure.reason === 'invalid') {
      return ack({ response_action: 'errors', errors: { [INPUT.exportAsOf.block]: quick.failure.message } });
    }
    if (quick) return ack({ response_action: 'update', view: asModal(quick, EXPORT_TITLE, deps.now) });
    await ack({ response_action: 'update', view: loadingModal(EXPORT_TITLE) });
    const answer = await answering;
    await deps.slack.ui.views
      .update({ view_id: view.id, view: asModal(answer, EXPORT_TITLE, deps.now) })
      .catch(() => messageSurface(replyTo(deps, { userId: actor.userId }), deps.now).show(answer));
  });

  router.view(CALLBACK.routingPlan, async ({ ack, view, context }, deps) => {
    const actor: Actor = { ...requesterIn(context), ...decodeMetadata(view.private_metadata), source: 'modal' };
    const pasted = view.state.values[INPUT.routingText.block]?.[INPUT.routingText.action]?.value ?? '';
    const file = uploadedFile(view);
    if (!pasted.trim() && !file) {
      const error = 'Paste the routing here, or upload it as a file below.';
      return ack({ response_action: 'errors', errors: { [INPUT.routingText.block]: error } });
    }
    if (pasted.trim() && file) {
      const error = 'Paste the routing or upload a file, not both: remove one, so that it is clear which to plan.';
      return ack({ response_action: 'errors', errors: { [INPUT.routingText.block]: error } });
    }
    const checking = checkSubmission(deps, { pasted, file, metadata: view.private_metadata }).catch(
      (error: unknown): Checked => {
        deps.logger.warn({ err: error }, 'could not check a routing text');
        return retry(view.private_metadata, pasted, file !== undefined);
      },
    );
    // Answered in the form when the check is quick, as it is for all but a slow provider: the form then stays open
    // with the text and every problem, or closes for the plan. Slower, the form waits, and is updated after.
    const quick = await within(checking, ANSWER_IN_FORM_MS);
    if (quick && 'fix' in quick) return ack({ response_action: 'update', view: quick.fix });
    await ack(quick ? { response_action: 'clear' } : { response_action: 'update', view: loadingModal(FORM_TITLE) });
    const checked = quick ?? (await checking);
    const reply = messageSurface(replyTo(deps, { userId: actor.userId, channelId: actor.channelId }), deps.now);
    if ('fix' in checked) {
      const shown = await deps.slack.ui.views.update({ view_id: view.id, view: checked.fix }).then(
        () => true,
        () => false,
      );
      if (!shown) await reply.show({ kind: 'message', message: planErrorsMessage(checked.problems) });
      return;
    }
    const plans = await deps.ops.planCheckedText(actor, checked.checked);
    for (const planned of plans) await reply.show(planAnswer(deps, planned));
    if (!quick) {
      // The form waited for the check: it says where the answer went, once it has gone.
      const failed = plans.find((planned) => !planned.ok);
      const where = failed
        ? `:warning: ${escapeMrkdwn(failed.message)}`
        : ':white_check_mark: The plan is posted where you opened this form.';
      await deps.slack.ui.views
        .update({ view_id: view.id, view: infoModal(FORM_TITLE, textMessage(where)) })
        .catch(() => undefined);
    }
  });
}

type Checked = { checked: CheckedText } | { fix: ModalView; problems: string[] };

/** Its routes, or the form again with every problem above the text. */
async function checkSubmission(
  deps: SlackDeps,
  submitted: { pasted: string; file?: UploadedFile; metadata: string },
): Promise<Checked> {
  const fromFile = submitted.file !== undefined;
  const fix = (problems: string[]): Checked => ({
    fix: routingPlanModal(submitted.metadata, { text: submitted.pasted, problems, fromFile }),
    problems,
  });
  const text = submitted.file ? await download(deps, submitted.file) : { text: submitted.pasted };
  if ('error' in text) return retry(submitted.metadata, submitted.pasted, fromFile, text.error);
  const checked = await deps.ops.checkRoutingText(text.text);
  // The text's own fault (no line at all, too many) is to fix; the provider not answering is to try again.
  if (!checked.ok && checked.reason === 'invalid') return fix([escapeMrkdwn(checked.message)]);
  if (!checked.ok) return retry(submitted.metadata, submitted.pasted, fromFile, checked.message);
  if (checked.errors) return fix(planErrorLines(checked.lines));
  return { checked };
}

/** The form again, its text kept, saying the check could not be made just now and to press Plan again. */
function retry(metadata: string, pasted: string, fromFile: boolean, why = 'Voice Ops could not check it.'): Checked {
  const problems = [escapeMrkdwn(why)];
  return { fix: routingPlanModal(metadata, { text: pasted, problems, fromFile, retry: true }), problems };
}

/** As text when it fits a message, else as a file in the person's direct messages with the app. */
export async function exportAnswer(deps: SlackDeps, actor: Actor, asOf?: string): Promise<Answer> {
  const exported = await (asOf === undefined
    ? deps.ops.exportRouting(actor.channelId)
    : deps.ops.exportRoutingAsOf(asOf, await deps.people.zone(actor.userId), { channelId: actor.channelId }));
  if (!exported.ok) return { kind: 'failure', failure: exported };
  const mayPlan = roleIncludes(await deps.ops.roleOf(actor), 'operator');
  if (exported.text.length <= EXPORT_INLINE_MAX) {
    return { kind: 'message', message: exportMessage(exported, { asFile: false, mayPlan }) };
  }
  try {
    const opened = await deps.slack.ui.conversations.open({ users: actor.userId });
    await deps.slack.ui.filesUploadV2({
      channel_id: opened.channel?.id,
      filename: 'asOf' in exported ? 'voice-ops-routing-as-of.txt' : 'voice-ops-routing.txt',
      title: 'asOf' in exported ? `Voice Ops routing as of ${exported.asOf}` : 'Voice Ops routing',
      content: exported.text,
    });
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not upload the routing export');
    const code = slackErrorCode(error);
    const why =
      `The routing is too long for a message, and Slack did not take it as a file (${code}). Try again; if it ` +
      'keeps failing, whoever runs Voice Ops should check that the app has the files:write and im:write scopes.';
    return { kind: 'failure', failure: fail('undelivered', why, { dependencyCode: code }) };
  }
  return { kind: 'message', message: exportMessage(exported, { asFile: true, mayPlan }) };
}
