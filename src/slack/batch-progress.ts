// A running batch's progress, shown as its items finish by rewriting where it was started: its plan's message or
// modal, or for an approved batch the request for approval.
import type { BatchView } from '../ops/api.js';
import type { ItemCounts } from '../store/batches.js';
import type { SlackDeps } from './deps.js';
import { postToResponseUrl } from './respond.js';
import { progressMessage } from './views/batches.js';
import type { SlackMessage } from './views/blocks.js';

/** Slack takes five posts to a response_url: the click's "checking" and its result take two, leaving three. */
const PROGRESS_REWRITES = 3;
const PROGRESS_EVERY_MS = 1000;

/** At most once a second from `since`; `settled` waits for the last rewrite, so that none lands over the result. */
export function progressRewriter(
  deps: SlackDeps,
  batchId: string,
  rewrite: (message: SlackMessage) => Promise<void>,
  since = deps.now(),
) {
  let rewrites = 0;
  let lastAt = since.getTime();
  let last: Promise<void> = Promise.resolve();
  let view: Pick<BatchView, 'id' | 'total' | 'plan'> | undefined;
  const show = async (counts: ItemCounts) => {
    view ??= await deps.ops.batchView(batchId, 1, 1);
    if (view) await rewrite(progressMessage({ ...view, counts }));
  };
  return {
    onProgress: (counts: ItemCounts) => {
      const at = deps.now().getTime();
      if (rewrites >= PROGRESS_REWRITES || at - lastAt < PROGRESS_EVERY_MS) return;
      rewrites += 1;
      lastAt = at;
      last = last
        .then(() => show(counts))
        .catch((error: unknown) => deps.logger.warn({ err: error }, "could not show a batch's progress"));
    },
    settled: () => last,
  };
}

/** A rewrite of the message a click came from, through its response_url (none without one). */
export function rewriteThrough(responseUrl: string | undefined): (message: SlackMessage) => Promise<void> {
  return (message) =>
    responseUrl
      ? postToResponseUrl(responseUrl, { response_type: 'ephemeral', replace_original: true, ...message })
      : Promise.resolve();
}
