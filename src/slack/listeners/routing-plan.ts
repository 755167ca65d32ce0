// `/voice plan`: the routing a team wants, pasted or uploaded, read back as a plan (or its errors, line by line); and
// `/voice export`: today's routing in the same format, as text to copy or, when long, as a file.
import type { ViewOutput } from '@slack/bolt';
import type { Actor } from '../../ops/index.js';
import { parseRoutingText } from '../../ops/routing-text.js';
import { fail } from '../../ops/types.js';
import { slackErrorCode } from '../clients.js';
import { replyTo, type SlackDeps } from '../deps.js';
import { openForm } from '../flows.js';
import { ACTION, CALLBACK, INPUT } from '../ids.js';
import { decodeMetadata, encodeMetadata } from '../metadata.js';
import type { Listeners } from '../router.js';
import type { Answer } from '../surfaces.js';
import { messageSurface } from '../surfaces.js';
import { EXPORT_INLINE_MAX, exportMessage, planErrorsMessage, routingPlanModal } from '../views/routing-plan.js';
import { requesterIn } from '../who-asked.js';
import { actorOf, type Body, replyFor, surfaceFor } from './actions.js';
import { planAnswer } from './batches.js';

/** A routing text of 1,000 lines is some 60 kB; anything far larger is not one. */
const FILE_MAX_BYTES = 256 * 1024;
/** Inline errors shown under the pasted text; the plan's message lists every one. */
const INLINE_ERRORS = 3;

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

export function registerRoutingPlan(app: Listeners, deps: SlackDeps): void {
  // The Home tab's tools: the form of a routing text, and the export.
  app.action<Body>(ACTION.planRouting, async ({ ack, body, context }) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const denied = await deps.ops.authorize(actor, 'operator', 'routing.map');
    if (denied) return (await surfaceFor(deps, body, actor, 'Plan routing')).show({ kind: 'failure', failure: denied });
    const view = routingPlanModal(encodeMetadata({ channelId: actor.channelId }));
    await openForm(deps, { triggerId: body.trigger_id, view, instead: '/voice plan', reply: replyFor(deps, body) });
  });

  app.action<Body>(ACTION.exportRouting, async ({ ack, body, context }) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const surface = await surfaceFor(deps, body, actor, 'Routing');
    await surface.show(await exportAnswer(deps, actor));
  });

  app.view(CALLBACK.routingPlan, async ({ ack, view, context }) => {
    const actor: Actor = { ...requesterIn(context), ...decodeMetadata(view.private_metadata), source: 'modal' };
    const pasted = view.state.values[INPUT.routingText.block]?.[INPUT.routingText.action]?.value ?? '';
    const file = uploadedFile(view);
    if (!pasted.trim() && !file) {
      const error = 'Paste the routing here, or upload it as a file below.';
      return ack({ response_action: 'errors', errors: { [INPUT.routingText.block]: error } });
    }
    // A pasted text is read at once, so that a line it cannot read is shown under it, to fix in place.
    const unreadable = pasted.trim() && !file ? (await parseRoutingText(pasted)).filter((line) => !line.ok) : [];
    if (unreadable.length) {
      const shown = unreadable.slice(0, INLINE_ERRORS).map((line) => `Line ${line.line}: ${line.ok ? '' : line.error}`);
      const more = unreadable.length > INLINE_ERRORS ? ` (and ${unreadable.length - INLINE_ERRORS} more)` : '';
      return ack({ response_action: 'errors', errors: { [INPUT.routingText.block]: `${shown.join('; ')}${more}` } });
    }
    await ack({ response_action: 'clear' });
    const reply = messageSurface(replyTo(deps, { userId: actor.userId, channelId: actor.channelId }), deps.now);
    const text = file ? await download(deps, file) : { text: pasted };
    if ('error' in text)
      return reply.show({ kind: 'failure', failure: fail('invalid', text.error, { field: 'file' }) });
    await reply.show(await textPlanAnswer(deps, actor, text.text));
  });
}

async function textPlanAnswer(deps: SlackDeps, actor: Actor, text: string): Promise<Answer> {
  const planned = await deps.ops.planFromText(actor, text);
  if (planned.ok && 'status' in planned) {
    return { kind: 'message', message: planErrorsMessage(planned.lines, planned.errors) };
  }
  return planAnswer(deps, planned);
}

/** Today's routing: as text when it fits a message, else as a file in the person's direct messages with the app. */
export async function exportAnswer(deps: SlackDeps, actor: Actor): Promise<Answer> {
  const exported = await deps.ops.exportRouting();
  if (!exported.ok) return { kind: 'failure', failure: exported };
  if (exported.text.length <= EXPORT_INLINE_MAX) return { kind: 'message', message: exportMessage(exported, false) };
  try {
    const opened = await deps.slack.ui.conversations.open({ users: actor.userId });
    await deps.slack.ui.filesUploadV2({
      channel_id: opened.channel?.id,
      filename: 'voice-ops-routing.txt',
      title: 'Voice Ops routing',
      content: exported.text,
    });
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not upload the routing export');
    const code = slackErrorCode(error);
    const why =
      `The routing is too long for a message, and Slack did not take it as a file (${code}). Try again; if it ` +
      'keeps failing, whoever runs Voice Ops should check that the app has the files:write and im:write scopes.';
    return { kind: 'failure', failure: fail('undelivered', why, { code }) };
  }
  return { kind: 'message', message: exportMessage(exported, true) };
}
