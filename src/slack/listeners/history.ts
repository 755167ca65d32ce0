// History, pressed on a number's or an agent's card, and Older under a page of it.
import { z } from 'zod';
import { historyAnswer } from '../flows.js';
import { ACTION } from '../ids.js';
import { decodeValue } from '../paging.js';
import type { ListenerRouter } from '../router.js';
import { messageSurface } from '../surfaces.js';
import { requesterIn } from '../who-asked.js';
import { actorOf, type Body, chosenValue, replyFor, surfaceFor } from './actions.js';

const position = z.object({ subject: z.string(), before: z.number().int().optional() });

export function registerHistory(router: ListenerRouter): void {
  router.action<Body>(ACTION.showHistory, async ({ ack, body, context }, deps) => {
    await ack();
    const asked = decodeValue(position, chosenValue(body));
    if (!asked) return;
    const surface = await surfaceFor(deps, body, actorOf(body, requesterIn(context)), 'History');
    await surface.show(await historyAnswer(deps, asked.subject));
  });

  // Older replaces the page in place, as a list's pages do.
  router.action<Body>(ACTION.historyOlder, async ({ ack, body }, deps) => {
    await ack();
    const asked = decodeValue(position, chosenValue(body));
    if (!asked) return;
    const surface = messageSurface(replyFor(deps, body), deps.now, { replace: true });
    await surface.show(await historyAnswer(deps, asked.subject, asked.before));
  });
}
