// `/voice subscribe`, `/voice unsubscribe` and `/voice subscriptions`, and the list's Unsubscribe: each change of a
// subscription is a settings change, shown to confirm like any other.
import { type Actor, KIND, type SubscriptionFilter } from '../../ops/api.js';
import type { SlackDeps } from '../deps.js';
import { ACTION } from '../ids.js';
import type { ListenerRouter } from '../router.js';
import type { Answer } from '../surfaces.js';
import { subscriptionsMessage } from '../views/subscriptions.js';
import { requesterIn } from '../who-asked.js';
import { actorOf, type Body, chosenValue, surfaceFor } from './actions.js';

/** The confirmation of `channel`'s new subscription, or, for null, of its removal. */
export async function subscriptionAnswer(
  deps: SlackDeps,
  actor: Actor,
  channel: string,
  filter: SubscriptionFilter | null,
): Promise<Answer> {
  const asked = await deps.ops.requestSubscription(actor, channel, filter);
  return asked.ok ? { kind: 'prompt', prompt: asked.prompt } : { kind: 'failure', failure: asked };
}

/** Every subscription, for an admin; anyone else is refused (audited). */
export async function subscriptionsAnswer(deps: SlackDeps, actor: Actor): Promise<Answer> {
  const denied = await deps.ops.authorize(actor, KIND.settings);
  if (denied) return { kind: 'failure', failure: denied };
  const { settings } = await deps.ops.settings({ fresh: true });
  return { kind: 'message', message: subscriptionsMessage(settings.subscriptions, settings.announcementsChannel) };
}

export function registerSubscriptions(router: ListenerRouter): void {
  router.action<Body>(ACTION.unsubscribe, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const surface = await surfaceFor(deps, body, actor, 'Subscriptions');
    await surface.show(await subscriptionAnswer(deps, actor, chosenValue(body), null));
  });
}
