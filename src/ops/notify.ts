import type { Done } from './carry-out.js';
import { type OpsDeps, record } from './context.js';
import { type Actor, type Failure, fail, type Result } from './types.js';

/** A successful change, as announced in the team's channel. Never carries a secret. */
export type Change =
  | { action: 'agent.create'; agent: { id: string; name: string; language: string } }
  | { action: 'agent.delete'; agent: { id: string; name: string } }
  | { action: 'number.buy'; number: { id: string; number: string } }
  | { action: 'number.release'; number: { id: string; number: string }; unroutedAgent?: { id: string; name?: string } }
  | {
      action: 'routing.map';
      number: string;
      agent: { id: string; name: string };
      previousAgent?: { id: string; name?: string };
    };

/** The number or agent id a change is about, as the audit log names it. */
export function subjectOf(change: Change): string {
  switch (change.action) {
    case 'agent.create':
    case 'agent.delete':
      return change.agent.id;
    case 'number.buy':
    case 'number.release':
      return change.number.number;
    case 'routing.map':
      return change.number;
  }
}

export interface Announcement {
  actor: Actor;
  change: Change;
}

/** Where announcements go; the Slack layer posts them to NOTIFY_CHANNEL_ID. */
export interface Announcer {
  announce(announcement: Announcement): Promise<void>;
  /** Changes noticed at the provider that no one made through Voice Ops, in one message. */
  announceOutside(changes: Change[]): Promise<void>;
}

/** Thrown by an Announcer when the channel did not get the post; the message says why and what to do. */
export class AnnouncementFailed extends Error {
  override readonly name = 'AnnouncementFailed';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Announces a change once its requester has the answer. A lost announcement never undoes or hides the change:
 * it is audited under the change's correlation id, and the failure is returned so the requester can be told.
 */
export async function announce(deps: OpsDeps, actor: Actor, done: Done): Promise<Result<object>> {
  try {
    await deps.announcer.announce({ actor, change: done.change });
    return { ok: true };
  } catch (error) {
    const failure: Failure =
      error instanceof AnnouncementFailed
        ? fail('undelivered', error.message, { code: error.code })
        : fail('undelivered', 'The announcement could not be posted.', { code: 'unknown' });
    deps.logger.warn({ err: error, action: done.change.action }, 'could not announce a change');
    record(deps, actor, done.correlationId, {
      action: 'change.announce',
      outcome: 'failed',
      target: subjectOf(done.change),
      error: failure,
    });
    return failure;
  }
}
