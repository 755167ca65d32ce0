// Quiet subscriptions: each change they pick is kept for the channel's digest, and one digest a day is posted there,
// at the first background pass from 09:00 UTC on, by the one replica holding the background lease.
import type { Tags } from '../store/tags.js';
import type { DigestEntry } from './announcements.js';
import type { OpsDeps } from './deps.js';
import { destinationsOf, type Subscribable } from './subscriptions.js';
import { atomically } from './transactions.js';

/** The hour of the day, UTC, from which a day's digest is due. */
const DIGEST_HOUR_UTC = 9;

/** Keeps a change for the digest of each quiet subscription that picks it; a failure is logged, never the change's. */
export async function keepForDigests(
  deps: OpsDeps,
  kind: Subscribable | undefined,
  tagged: readonly Tags[],
  entry: DigestEntry,
): Promise<void> {
  if (kind === undefined) return;
  try {
    const { quiet } = destinationsOf(await deps.settings.current(), kind, tagged);
    const at = deps.now();
    for (const channel of quiet) await deps.store.digests.add(channel, entry, at);
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not keep a change for a digest');
  }
}

/** The latest 09:00 UTC at or before `now`: a channel last posted before it is due its digest. */
function dueSince(now: Date): Date {
  const due = new Date(now);
  due.setUTCHours(DIGEST_HOUR_UTC, 0, 0, 0);
  if (due > now) due.setUTCDate(due.getUTCDate() - 1);
  return due;
}

/** Posts each quiet subscription's digest that is due and has changes; one Slack refuses is tried at the next pass. */
export async function postDigests(deps: OpsDeps): Promise<void> {
  const { subscriptions } = await deps.settings.current();
  const now = deps.now();
  const due = dueSince(now).toISOString();
  for (const { channel } of subscriptions.filter(({ quiet }) => quiet)) {
    const postedAt = await deps.store.digests.postedAt(channel);
    if (postedAt !== undefined && postedAt >= due) continue;
    const lines = await deps.store.digests.lines(channel);
    if (lines.length === 0) continue;
    try {
      await deps.announcer.postDigest(
        channel,
        lines.map(({ line }) => line as DigestEntry),
      );
    } catch (error) {
      deps.logger.warn({ err: error, channel }, 'could not post a digest: it is tried again at the next pass');
      continue;
    }
    await atomically(deps, (deps) => deps.store.digests.posted(channel, lines, now));
  }
}
