// Announcing a change once its requester has the answer, and auditing an announcement that could not be posted.
import { AnnouncementFailed, type ChannelNow } from './announcements.js';
import { record } from './audit-rows.js';
import type { Done } from './carry-out.js';
import type { OpsDeps } from './deps.js';
import { subjectOf } from './kinds/index.js';
import { type Actor, type Failure, fail, type Result } from './types.js';

/** The announcements channel as these deps see the settings: a delivery's, as its key found them. */
export function announcementsChannel(deps: Pick<OpsDeps, 'settings'>): ChannelNow {
  return async () => (await deps.settings.current()).announcementsChannel;
}

/** A lost announcement never undoes or hides the change: it is audited, and returned for the requester. */
export async function announce(deps: OpsDeps, actor: Actor, done: Done): Promise<Result<object>> {
  try {
    const undo = done.undo && { correlationId: done.correlationId, offer: done.undo };
    await deps.announcer.announce({ actor, change: done.change, undo }, announcementsChannel(deps));
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
