// The playground's workspace: an admin, two operators each in a team (a user group) of their own, and a viewer; the
// channel where they type /voice, a channel per team, and the channel where the app announces changes. Fixed ids, so
// that a person's role and history read the same after every start.
import type { Channel, Person, UserGroup } from './workspace.js';

export type Role = 'admin' | 'operator' | 'viewer';

export interface PlaygroundPerson extends Person {
  /** Slack's `user_name`, the handle a slash command carries. */
  handle: string;
  /** The role the playground seeds; an admin may change it in Settings, and the page shows the app's. */
  role: Role;
  /** The handle of the team (user group) they are in. */
  team?: string;
}

export const ADMIN: PlaygroundPerson = { id: 'UPLAYADMIN', name: 'Ada Admin', handle: 'ada', role: 'admin' };
export const OPERATOR: PlaygroundPerson = {
  id: 'UPLAYOPER',
  name: 'Omar Operator',
  handle: 'omar',
  role: 'operator',
  team: 'sales',
};
export const SUPPORT_OPERATOR: PlaygroundPerson = {
  id: 'UPLAYSUPPORT',
  name: 'Sam Support',
  handle: 'sam',
  role: 'operator',
  team: 'support',
};
export const VIEWER: PlaygroundPerson = { id: 'UPLAYVIEWER', name: 'Vera Viewer', handle: 'vera', role: 'viewer' };
export const PEOPLE: readonly PlaygroundPerson[] = [ADMIN, OPERATOR, SUPPORT_OPERATOR, VIEWER];

/** A team: the user group of the people in it. */
const team = (id: string, handle: string, name: string): UserGroup => ({
  id,
  handle,
  name,
  members: PEOPLE.filter((person) => person.team === handle).map((person) => person.id),
});
export const SALES = team('SPLAYSALES', 'sales', 'Sales');
export const SUPPORT = team('SPLAYSUPPORT', 'support', 'Support');
/** The operators the playground seeds: each team's people, through their user group. */
export const TEAMS: readonly UserGroup[] = [SALES, SUPPORT];

/** The role the playground seeds for this person; viewer for anyone else. */
export const seededRole = (userId: string): Role => PEOPLE.find((person) => person.id === userId)?.role ?? 'viewer';

export const OPS_CHANNEL: Channel = { id: 'CPLAYOPS', name: 'voice-ops' };
export const ANNOUNCEMENTS: Channel = { id: 'CPLAYNEWS', name: 'voice-announcements' };
export const SALES_CHANNEL: Channel = { id: 'CPLAYSALES', name: 'sales' };
export const SUPPORT_CHANNEL: Channel = { id: 'CPLAYSUPPORT', name: 'support' };
export const CHANNELS: readonly Channel[] = [OPS_CHANNEL, ANNOUNCEMENTS, SALES_CHANNEL, SUPPORT_CHANNEL];

/** The one slash command the app's manifest declares. */
export const SLASH_COMMAND = '/voice';
