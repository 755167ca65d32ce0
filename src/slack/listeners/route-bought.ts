// The way on from a buy: the agent picked under its result is given what was bought (a map for one number, a plan
// for a batch's), and Create an agent opens the agent form, whose new agent is then given it the same way.
import { type Actor, fail } from '../../ops/api.js';
import { type Bought, bought } from '../bought.js';
import type { SlackDeps } from '../deps.js';
import { deliver, mapAnswer } from '../flows.js';
import { ACTION } from '../ids.js';
import { decodeValue } from '../paging.js';
import type { ListenerRouter } from '../router.js';
import type { Answer } from '../surfaces.js';
import { requesterIn } from '../who-asked.js';
import { actorOf, type Body, chosenValue, openCreateAgentForm, surfaceFor } from './actions.js';
import { planAnswer } from './batches.js';

export async function routeBoughtAnswer(deps: SlackDeps, actor: Actor, what: Bought, agentId: string): Promise<Answer> {
  if ('number' in what) return mapAnswer(deps, actor, { phoneNumber: what.number, agentId });
  return planAnswer(deps, await deps.ops.routeBought(actor, what.batchId, agentId));
}

const unread = fail('invalid', 'That choice could not be read: pick the agent again.');

export function registerRouteBought(router: ListenerRouter): void {
  router.action<Body>(ACTION.routeBought, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const what = decodeValue(bought, body.actions[0]?.block_id);
    const agentId = chosenValue(body);
    const surface = await surfaceFor(deps, body, actor, 'Route to an agent');
    const answer: Answer =
      what && agentId ? await routeBoughtAnswer(deps, actor, what, agentId) : { kind: 'failure', failure: unread };
    await deliver(deps, surface, actor, answer);
  });

  router.action<Body>(ACTION.createAgentForBought, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    await openCreateAgentForm(deps, body, actor, decodeValue(bought, chosenValue(body)));
  });
}
