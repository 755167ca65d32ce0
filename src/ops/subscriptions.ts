// Channels subscribed to the changes a filter picks: an admin's subscribing or unsubscribing a channel (a settings
// change like any other), and which channels a finished change is posted in.
import { channelId, type Settings, type Subscription } from '../settings-schema.js';
import { NO_TAGS, type Tags } from '../store/tags.js';
import { requestSettingsChange } from './admin-settings.js';
import type { Destinations } from './announcements.js';
import type { ConfirmationPrompt } from './changes.js';
import type { OpsDeps } from './deps.js';
import { KIND } from './kinds/index.js';
import { tagsMatch } from './number-filter.js';
import { type Actor, fail, type Result } from './types.js';

/** What a channel subscribes to: its subscription less the channel, which is where it is asked. */
export type SubscriptionFilter = Omit<Subscription, 'channel'>;
export type Subscribable = Subscription['kinds'][number];

/** The word a subscription names each kind of change by. */
const SUBSCRIBED_AS: Record<string, Subscribable> = {
  [KIND.buy]: 'buy',
  [KIND.release]: 'release',
  [KIND.map]: 'route',
  [KIND.createAgent]: 'agent',
  [KIND.deleteAgent]: 'agent',
  [KIND.label]: 'labels',
  [KIND.settings]: 'settings',
};

export const subscribedAs = (action: string): Subscribable | undefined => SUBSCRIBED_AS[action];

/**
 * The settings change giving `channel` this subscription (replacing one it had), or, for null, taking its
 * subscription away; confirmed and audited as any settings change.
 */
export async function requestSubscription(
  deps: OpsDeps,
  actor: Actor,
  channel: string,
  filter: SubscriptionFilter | null,
  correlationId: string,
): Promise<Result<{ prompt: ConfirmationPrompt }>> {
  if (!channelId.safeParse(channel).success) {
    return fail('invalid', 'Subscribe in a channel: a direct message cannot be subscribed.');
  }
  const { subscriptions } = await deps.settings.current();
  const others = subscriptions.filter((subscription) => subscription.channel !== channel);
  if (filter === null && others.length === subscriptions.length) {
    return fail('invalid', 'This channel has no subscription: nothing to remove.', { code: 'unchanged' });
  }
  const proposed = filter === null ? others : [...others, { channel, ...filter }];
  return requestSettingsChange(deps, actor, { subscriptions: proposed }, correlationId);
}

/** The tags of each of these numbers and agents, none for one without: what a subscription's filter reads. */
export async function taggedNow(deps: Pick<OpsDeps, 'store'>, subjects: readonly string[]): Promise<Tags[]> {
  const tags = await deps.store.tags.of(subjects);
  return subjects.map((subject) => tags.get(subject) ?? NO_TAGS);
}

/**
 * Whether a subscription picks a change of this kind, whose numbers and agents had these tags before it (none for
 * a settings change): any of them whose labels and owner its filter allows.
 */
export function subscribes(subscription: Subscription, kind: Subscribable, tagged: readonly Tags[]): boolean {
  if (subscription.kinds.length > 0 && !subscription.kinds.includes(kind)) return false;
  const { labels, without, owners } = subscription;
  if (labels.length + without.length + owners.length === 0) return true;
  return tagged.some(
    (tags) => tagsMatch({ labels, without }, tags) && (owners.length === 0 || owners.includes(tags.owner ?? '')),
  );
}

/**
 * Where a change is posted: the announcements channel gets everything, once; a subscribed channel what it picks,
 * as it comes, or in its digest (`quiet`).
 */
export function destinationsOf(
  settings: Settings,
  kind: Subscribable,
  tagged: readonly Tags[],
): Destinations & { quiet: string[] } {
  const { announcementsChannel: announcements } = settings;
  const picking = settings.subscriptions.filter(
    (subscription) => subscription.channel !== announcements && subscribes(subscription, kind, tagged),
  );
  return {
    ...(announcements ? { announcements } : {}),
    subscribed: picking.filter(({ quiet }) => !quiet).map(({ channel }) => channel),
    quiet: picking.filter(({ quiet }) => quiet).map(({ channel }) => channel),
  };
}

/**
 * Each subscribed channel that picks some parts of a change (a batch's numbers, changes noticed outside), by their
 * tags one part at a time, with the indexes of the parts it picks: it is told of those alone.
 */
export function channelsPicking(
  settings: Settings,
  kind: Subscribable,
  partsTagged: readonly (readonly Tags[])[],
): { subscribed: Map<string, number[]>; quiet: Map<string, number[]> } {
  const picked = { subscribed: new Map<string, number[]>(), quiet: new Map<string, number[]>() };
  for (const [index, tagged] of partsTagged.entries()) {
    const { subscribed, quiet } = destinationsOf(settings, kind, tagged);
    for (const [channels, into] of [
      [subscribed, picked.subscribed],
      [quiet, picked.quiet],
    ] as const) {
      for (const channel of channels) into.set(channel, [...(into.get(channel) ?? []), index]);
    }
  }
  return picked;
}
