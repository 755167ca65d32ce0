// The buttons of a bulk plan: apply (a release asks for the typed count first), cancel, page, and plan again what
// failed or what a stop or a crash left undone.

import { z } from 'zod';
import { type Actor, type BulkRequest, KIND, numberFilter, type PlanResult, typedCount } from '../../ops/api.js';
import { awaitingAnswer } from '../approvals.js';
import { progressRewriter, rewriteThrough } from '../batch-progress.js';
import type { SlackDeps } from '../deps.js';
import { replyTo } from '../deps.js';
import { modalContext } from '../flows.js';
import { ACTION, CALLBACK, INPUT, PAGE } from '../ids.js';
import { decodeValue, encodeValue } from '../paging.js';
import type { ListenerRouter } from '../router.js';
import { type Answer, messageSurface, type Surface, updatingSurface } from '../surfaces.js';
import { BATCH_PAGE_SIZE, batchTypedModal, planChangedMessage, planMessage, resultMessage } from '../views/batches.js';
import type { SlackMessage } from '../views/blocks.js';
import { textMessage } from '../views/blocks.js';
import { infoModal, loadingModal } from '../views/modals.js';
import { describeNumberFilter } from '../views/numbers.js';
import { workingMessage } from '../views/results.js';
import { bulkMapModal } from '../views/routing-plan.js';
import { requesterIn } from '../who-asked.js';
import { actorOf, type Body, chosenValue, openFormOver, replyFor, surfaceFor } from './actions.js';
import { openRouteNumbersModal } from './modal-openers.js';

const MODAL_TITLE = 'Release numbers';

const batchPosition = z.object({ batchId: z.string(), page: z.number().int().min(1) });
const again = z.object({ batchId: z.string(), which: z.enum(['failed', 'rest']) });
/** What the Home tab's bulk map form remembers: the filter, and the channel (none, from the Home tab). */
const filterMetadata = z.object({ filter: numberFilter, channelId: z.string().optional() });
/** What the form that routes numbers to a new agent remembers. */
const routeMetadata = z.object({ agentId: z.string(), channelId: z.string().optional() });
/** What the typed confirmation's modal remembers: the batch, and the channel of the plan's message. */
const typedMetadata = z.object({ batchId: z.string(), channelId: z.string().optional() });

/** A plan, or why there is none. */
export function planAnswer(deps: SlackDeps, planned: PlanResult): Answer {
  return planned.ok
    ? { kind: 'message', message: planMessage(planned.view, deps.now()) }
    : { kind: 'failure', failure: planned };
}

export const bulkAnswer = async (deps: SlackDeps, actor: Actor, request: BulkRequest): Promise<Answer> =>
  planAnswer(deps, await deps.ops.planBatch(actor, request));

/** A progress rewrite Slack refuses is skipped: a progress line is not worth a fallback message. */
async function applyAndShow(
  deps: SlackDeps,
  actor: Actor,
  batchId: string,
  shown: { surface: Surface; rewrite: (message: SlackMessage) => Promise<void>; typed?: string },
): Promise<void> {
  const progress = progressRewriter(deps, batchId, shown.rewrite);
  const applied = await deps.ops.applyBatch(actor, batchId, { typed: shown.typed, onProgress: progress.onProgress });
  await progress.settled();
  if (!applied.ok) return shown.surface.show({ kind: 'failure', failure: applied });
  switch (applied.status) {
    case 'awaiting':
      return shown.surface.show(await awaitingAnswer(deps, applied.request));
    case 'changed':
      return shown.surface.show({ kind: 'message', message: planChangedMessage(applied.view, deps.now()) });
    case 'done':
      return shown.surface.show({ kind: 'message', message: resultMessage(applied.view) });
  }
}

export function registerBatchActions(router: ListenerRouter): void {
  router.action<Body>(ACTION.confirmBatch, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const surface = messageSurface(replyFor(deps, body), deps.now, { replace: true });
    await surface.show({
      kind: 'message',
      message: workingMessage('Working on it: checking the plan against the provider…'),
    });
    await applyAndShow(deps, actor, chosenValue(body), { surface, rewrite: rewriteThrough(body.response_url) });
  });

  // A release asks for the count of numbers, typed in a modal, before anything happens.
  router.action<Body>(ACTION.confirmBatchTyped, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const view = await deps.ops.batchView(chosenValue(body), 1, 1);
    if (!view) return;
    const metadata = encodeValue({ batchId: view.id, channelId: actor.channelId });
    const form = batchTypedModal(view, deps.now(), metadata);
    await openFormOver(deps, body, form, 'the Release button again');
  });

  router.view(CALLBACK.confirmBatch, async ({ ack, view, context }, deps) => {
    const asked = decodeValue(typedMetadata, view.private_metadata);
    if (!asked) return ack();
    const actor: Actor = { ...requesterIn(context), channelId: asked.channelId, source: 'modal' };
    const typed = view.state.values[INPUT.typedConfirmation.block]?.[INPUT.typedConfirmation.action]?.value ?? '';
    const shown = await deps.ops.batchView(asked.batchId, 1, 1);
    const expected = shown && typedCount(shown);
    if (expected !== undefined && typed.trim() !== expected) {
      const error = `Type ${expected}, the count of numbers to release: nothing was changed.`;
      return ack({ response_action: 'errors', errors: { [INPUT.typedConfirmation.block]: error } });
    }
    await ack({ response_action: 'update', view: loadingModal(MODAL_TITLE) });
    const surface = updatingSurface(modalContext(deps, actor), view.id, MODAL_TITLE);
    const rewrite = async (message: SlackMessage) => {
      await deps.slack.ui.views.update({ view_id: view.id, view: infoModal(MODAL_TITLE, message) });
    };
    await applyAndShow(deps, actor, asked.batchId, { surface, rewrite, typed });
  });

  // The Home tab's filter, all to one agent: the agent is picked in a form, then the plan is posted privately.
  router.action<Body>(ACTION.mapFiltered, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const filter = decodeValue(numberFilter, chosenValue(body));
    if (!filter) return;
    const denied = await deps.ops.authorize(actor, KIND.map);
    if (denied) return (await surfaceFor(deps, body, actor, 'Map numbers')).show({ kind: 'failure', failure: denied });
    const view = bulkMapModal(describeNumberFilter(filter), encodeValue({ filter, channelId: actor.channelId }));
    await openFormOver(deps, body, view, '/voice map FILTER to AGENT_ID');
  });

  router.view(CALLBACK.bulkMap, async ({ ack, view, context }, deps) => {
    const asked = decodeValue(filterMetadata, view.private_metadata);
    const agentId = view.state.values[INPUT.mapAgent.block]?.[INPUT.mapAgent.action]?.selected_option?.value;
    if (!asked || !agentId) {
      return ack({ response_action: 'errors', errors: { [INPUT.mapAgent.block]: 'Pick the agent to route them to.' } });
    }
    await ack({ response_action: 'clear' });
    const actor: Actor = { ...requesterIn(context), channelId: asked.channelId, source: 'modal' };
    const reply = messageSurface(replyTo(deps, { userId: actor.userId, channelId: actor.channelId }), deps.now);
    await reply.show(await bulkAnswer(deps, actor, { kind: KIND.map, filter: asked.filter, agentId }));
  });

  router.action<Body>(ACTION.routeNumbersToAgent, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const denied = await deps.ops.authorize(actor, KIND.map);
    if (denied)
      return (await surfaceFor(deps, body, actor, 'Route numbers')).show({ kind: 'failure', failure: denied });
    await openRouteNumbersModal(deps, actor, {
      triggerId: body.trigger_id,
      agentId: chosenValue(body),
      reply: replyFor(deps, body),
    });
  });

  router.view(CALLBACK.routeNumbers, async ({ ack, view, context }, deps) => {
    const asked = decodeValue(routeMetadata, view.private_metadata);
    const picked = view.state.values[INPUT.routeNumbers.block]?.[INPUT.routeNumbers.action]?.selected_options ?? [];
    const numbers = picked.map((option) => option.value);
    if (!asked || !numbers.length) {
      return ack({ response_action: 'errors', errors: { [INPUT.routeNumbers.block]: 'Pick at least one number.' } });
    }
    await ack({ response_action: 'clear' });
    const actor: Actor = { ...requesterIn(context), channelId: asked.channelId, source: 'modal' };
    const reply = messageSurface(replyTo(deps, { userId: actor.userId, channelId: actor.channelId }), deps.now);
    await reply.show(await bulkAnswer(deps, actor, { kind: KIND.map, agentId: asked.agentId, numbers }));
  });

  router.action<Body>(ACTION.stopBatch, async ({ ack, body, context }, deps) => {
    await ack();
    const stopped = await deps.ops.stopBatch(actorOf(body, requesterIn(context)), chosenValue(body));
    if (stopped.ok) return; // the batch's own message says when it has stopped
    await messageSurface(replyFor(deps, body), deps.now).show({ kind: 'failure', failure: stopped });
  });

  router.action<Body>(ACTION.cancelBatch, async ({ ack, body, context }, deps) => {
    await ack();
    const cancelled = await deps.ops.cancelPlan(actorOf(body, requesterIn(context)), chosenValue(body));
    await messageSurface(replyFor(deps, body), deps.now, { replace: true }).show(
      cancelled.ok
        ? { kind: 'message', message: textMessage(':heavy_multiplication_x: Plan cancelled: nothing was changed.') }
        : { kind: 'failure', failure: cancelled },
    );
  });

  router.action<Body>(ACTION.planAgain, async ({ ack, body, context }, deps) => {
    await ack();
    const asked = decodeValue(again, chosenValue(body));
    if (!asked) return;
    const planned = await deps.ops.planAgain(actorOf(body, requesterIn(context)), asked.batchId, asked.which);
    await messageSurface(replyFor(deps, body), deps.now).show(planAnswer(deps, planned));
  });

  // A page of a batch's items: Previous and Next replace the message in place; a batch's line in `/voice audit`
  // opens it in a message of its own, under the audit.
  for (const [actionId, replace] of [
    [PAGE.batch.previous, true],
    [PAGE.batch.next, true],
    [ACTION.batchItems, false],
  ] as const) {
    router.action<Body>(actionId, async ({ ack, body }, deps) => {
      await ack();
      const position = decodeValue(batchPosition, chosenValue(body));
      if (!position) return;
      const view = await deps.ops.batchView(position.batchId, position.page, BATCH_PAGE_SIZE);
      if (!view) return;
      await messageSurface(replyFor(deps, body), deps.now, { replace }).show({
        kind: 'message',
        message: view.state === 'planned' ? planMessage(view, deps.now()) : resultMessage(view),
      });
    });
  }
}
