// The buttons of a bulk plan: apply it (its message then shows progress, with Stop, and the result), cancel it, page
// through its items, and plan again what failed or what a stop or a crash left undone.
import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { Actor, BatchView, NumberFilter, PlanResult } from '../../ops/index.js';
import type { ItemCounts } from '../../store/batches.js';
import type { SlackDeps } from '../flows.js';
import { ACTION, PAGE } from '../ids.js';
import { decodeValue } from '../paging.js';
import { postToResponseUrl } from '../respond.js';
import { type Answer, messageSurface } from '../surfaces.js';
import { BATCH_PAGE_SIZE, planMessage, progressMessage, resultMessage } from '../views/batches.js';
import { textMessage } from '../views/blocks.js';
import { workingMessage } from '../views/results.js';
import { requesterIn } from '../who-asked.js';
import { actorOf, type Body, chosenValue, replyFor } from './actions.js';

/**
 * Slack takes five posts to one response_url in 30 minutes: the click's "working" and its result take two, so
 * progress rewrites the message at most three times, and at most once every few seconds.
 */
const PROGRESS_REWRITES = 3;
const PROGRESS_EVERY_MS = 1000;

const batchPosition = z.object({ batchId: z.string(), page: z.number().int().min(1) });
const again = z.object({ batchId: z.string(), which: z.enum(['failed', 'rest']) });

/** A plan, or why there is none. */
export function planAnswer(deps: SlackDeps, planned: PlanResult): Answer {
  return planned.ok
    ? { kind: 'message', message: planMessage(planned.view, deps.now()) }
    : { kind: 'failure', failure: planned };
}

export function registerBatchActions(app: App, deps: SlackDeps): void {
  app.action<Body>(ACTION.confirmBatch, async ({ ack, body, context }) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const surface = messageSurface(replyFor(deps, body), deps.now, { replace: true });
    await surface.show({ kind: 'message', message: workingMessage('Checking the plan against the provider…') });
    const progress = progressRewriter(deps, body);
    const applied = await deps.ops.applyBatch(actor, chosenValue(body), progress.onProgress);
    await progress.settled();
    if (!applied.ok) return surface.show({ kind: 'failure', failure: applied });
    if (applied.status === 'changed') {
      const note = textMessage(
        ':arrows_counterclockwise: What the plan would do changed since it was shown: nothing was applied. Here is the plan as things stand now.',
      );
      const plan = planMessage(applied.view, deps.now());
      return surface.show({ kind: 'message', message: { text: plan.text, blocks: [...note.blocks, ...plan.blocks] } });
    }
    await surface.show({ kind: 'message', message: resultMessage(applied.view) });
  });

  app.action<Body>(ACTION.stopBatch, async ({ ack, body, context }) => {
    await ack();
    const stopped = await deps.ops.stopBatch(actorOf(body, requesterIn(context)), chosenValue(body));
    if (stopped.ok) return; // the batch's own message says when it has stopped
    await messageSurface(replyFor(deps, body), deps.now).show({ kind: 'failure', failure: stopped });
  });

  app.action<Body>(ACTION.cancelBatch, async ({ ack, body, context }) => {
    await ack();
    const cancelled = await deps.ops.cancelPlan(actorOf(body, requesterIn(context)), chosenValue(body));
    await messageSurface(replyFor(deps, body), deps.now, { replace: true }).show(
      cancelled.ok
        ? { kind: 'message', message: textMessage(':heavy_multiplication_x: Plan cancelled: nothing was changed.') }
        : { kind: 'failure', failure: cancelled },
    );
  });

  app.action<Body>(ACTION.planAgain, async ({ ack, body, context }) => {
    await ack();
    const asked = decodeValue(again, chosenValue(body));
    if (!asked) return;
    const planned = await deps.ops.planAgain(actorOf(body, requesterIn(context)), asked.batchId, asked.which);
    await messageSurface(replyFor(deps, body), deps.now).show(planAnswer(deps, planned));
  });

  for (const actionId of [PAGE.batch.previous, PAGE.batch.next]) {
    app.action<Body>(actionId, async ({ ack, body }) => {
      await ack();
      const position = decodeValue(batchPosition, chosenValue(body));
      if (!position) return;
      const view = await deps.ops.batchView(position.batchId, position.page, BATCH_PAGE_SIZE);
      if (!view) return;
      await messageSurface(replyFor(deps, body), deps.now, { replace: true }).show({
        kind: 'message',
        message: view.state === 'planned' ? planMessage(view, deps.now()) : resultMessage(view),
      });
    });
  }
}

/**
 * Rewrites the plan's message in place as items finish, through the click's response_url only: a progress line is
 * not worth a fallback message, so a rewrite Slack refuses is skipped. `settled` waits for the last rewrite, so that
 * none lands over the result.
 */
function progressRewriter(deps: SlackDeps, body: Body) {
  const url = body.response_url;
  let rewrites = 0;
  let lastAt = deps.now().getTime();
  let last: Promise<void> = Promise.resolve();
  let view: Pick<BatchView, 'id' | 'total' | 'plan'> | undefined;
  const rewrite = async (counts: ItemCounts) => {
    view ??= await deps.ops.batchView(chosenValue(body), 1, 1);
    if (!view || !url) return;
    const message = progressMessage({ ...view, counts });
    await postToResponseUrl(url, { response_type: 'ephemeral', replace_original: true, ...message });
  };
  return {
    onProgress: (counts: ItemCounts) => {
      const at = deps.now().getTime();
      if (!url || rewrites >= PROGRESS_REWRITES || at - lastAt < PROGRESS_EVERY_MS) return;
      rewrites += 1;
      lastAt = at;
      last = last
        .then(() => rewrite(counts))
        .catch((error: unknown) => deps.logger.warn({ err: error }, "could not show a batch's progress"));
    },
    settled: () => last,
  };
}

export const bulkMapAnswer = async (
  deps: SlackDeps,
  actor: Actor,
  request: { filter: NumberFilter; agentId: string },
): Promise<Answer> => planAnswer(deps, await deps.ops.planMap(actor, request));
