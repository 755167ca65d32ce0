// Announcing a change once its requester has the answer, and auditing an announcement that could not be posted.
import type { Tags } from '../store/tags.js';
import { AnnouncementFailed, type ChannelsNow, type Destinations } from './announcements.js';
import { record } from './audit-rows.js';
import type { Done } from './carry-out.js';
import type { OpsDeps } from './deps.js';
import { keepForDigests } from './digests.js';
import { subjectOf } from './kinds/index.js';
import { channelsPicking, destinationsOf, type Subscribable, subscribedAs } from './subscriptions.js';
import { type Actor, type Failure, fail, type Result } from './types.js';

/**
 * Where a change of this kind is posted, as the settings say when its turn comes: the announcements channel, and the
 * channels subscribed to it, whose filters read the tags its numbers and agents had before it.
 */
export function destinations(
  deps: Pick<OpsDeps, 'settings'>,
  kind: Subscribable | undefined,
  tagged: readonly Tags[],
): ChannelsNow {
  return async () => {
    const settings = await deps.settings.current();
    if (kind === undefined) return { announcements: settings.announcementsChannel, subscribed: [] };
    return destinationsOf(settings, kind, tagged);
  };
}

/**
 * Posts a change of many parts: the announcements channel gets all of them, a subscribed channel only the parts its
 * filter picks (`partsTagged`: each part's tags before the change). Every channel is tried; then the first failure is
 * thrown.
 */
export async function announceParts<T>(
  deps: Pick<OpsDeps, 'settings'>,
  kind: Subscribable | undefined,
  parts: readonly T[],
  partsTagged: readonly (readonly Tags[])[],
  post: (parts: T[], where: ChannelsNow) => Promise<void>,
): Promise<void> {
  const settings = await deps.settings.current();
  const { announcementsChannel: announcements } = settings;
  const picked =
    kind === undefined ? new Map<string, number[]>() : channelsPicking(settings, kind, partsTagged).subscribed;
  const posts: [T[], Destinations][] = [
    // Everything to the announcements channel, which the announcer leaves unposted where none is set.
    [[...parts], { announcements, subscribed: [] }],
    ...[...picked].map(([channel, indexes]): [T[], Destinations] => [
      indexes.map((index) => parts[index] as T),
      { subscribed: [channel] },
    ]),
  ];
  const errors: unknown[] = [];
  for (const [some, where] of posts) {
    await post(some, () => Promise.resolve(where)).catch((error: unknown) => errors.push(error));
  }
  if (errors.length > 0) throw errors[0];
}

/** A lost announcement never undoes or hides the change: it is audited, and returned for the requester. */
export async function announce(deps: OpsDeps, actor: Actor, done: Done): Promise<Result<object>> {
  try {
    const undo = done.undo && { correlationId: done.correlationId, offer: done.undo };
    const kind = subscribedAs(done.change.action);
    await keepForDigests(deps, kind, [done.tagged], () => ({ actorId: actor.userId, change: done.change }));
    await deps.announcer.announce({ actor, change: done.change, undo }, destinations(deps, kind, done.tagged));
    return { ok: true };
  } catch (error) {
    const failure: Failure =
      error instanceof AnnouncementFailed
        ? fail('undelivered', error.message, { dependencyCode: error.code })
        : fail('undelivered', 'The announcement could not be posted.', { code: 'unknown' });
    deps.logger.warn({ err: error, action: done.change.action }, 'could not announce a change');
    await record(deps, actor, done.correlationId, {
      action: 'change.announce',
      outcome: 'failed',
      target: subjectOf(done.change),
      error: failure,
    });
    return failure;
  }
}
