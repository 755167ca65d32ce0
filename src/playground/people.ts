// The playground's workspace: one person per role, the channel where they type /voice, and the channel where the
// app announces changes. Fixed ids, so that a person's role and history read the same after every start.
import type { Channel, Person } from './workspace.js';

export type Role = 'admin' | 'operator' | 'viewer';

export interface PlaygroundPerson extends Person {
  /** Slack's `user_name`, the handle a slash command carries. */
  handle: string;
  /** The role the playground seeds; an admin may change it in Settings, and the page shows the app's. */
  role: Role;
}

export const ADMIN: PlaygroundPerson = { id: 'UPLAYADMIN', name: 'Ada Admin', handle: 'ada', role: 'admin' };
export const OPERATOR: PlaygroundPerson = { id: 'UPLAYOPER', name: 'Omar Operator', handle: 'omar', role: 'operator' };
export const VIEWER: PlaygroundPerson = { id: 'UPLAYVIEWER', name: 'Vera Viewer', handle: 'vera', role: 'viewer' };
export const PEOPLE: readonly PlaygroundPerson[] = [ADMIN, OPERATOR, VIEWER];

/** The role the playground seeds for this person; viewer for anyone else. */
export const seededRole = (userId: string): Role => PEOPLE.find((person) => person.id === userId)?.role ?? 'viewer';

export const OPS_CHANNEL: Channel = { id: 'CPLAYOPS', name: 'voice-ops' };
export const ANNOUNCEMENTS: Channel = { id: 'CPLAYNEWS', name: 'voice-announcements' };
export const CHANNELS: readonly Channel[] = [OPS_CHANNEL, ANNOUNCEMENTS];

/** The one slash command the app's manifest declares. */
export const SLASH_COMMAND = '/voice';
