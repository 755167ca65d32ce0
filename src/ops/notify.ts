import type { Logger } from '../log.js';
import type { Actor } from './types.js';

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
}

/** Announces without ever failing the change it reports: a lost announcement is logged, not raised. */
export async function announceSafely(announcer: Announcer, announcement: Announcement, logger: Logger): Promise<void> {
  try {
    await announcer.announce(announcement);
  } catch (error) {
    logger.warn({ err: error, action: announcement.change.action }, 'could not announce a change');
  }
}
