// `/voice access`: who may do what, resolved through user groups, and one person's role with what grants it.
import type { AccessOverview, Granting, PersonAccess } from '../../ops/api.js';
import { code, escapeMrkdwn, mentionMember, mentionUser } from '../mrkdwn.js';
import { context, header, message, packLines, type SlackMessage, section } from './blocks.js';

const LISTS = [
  ['admins', 'Admins', 'everything, the settings included'],
  ['operators', 'Operators', 'buy numbers, create agents, route numbers'],
  ['approvers', 'Approvers', 'approve changes that wait for a second person'],
] as const;

/** A list's holders, a user group with the members Slack listed for it. */
function holderLines(granting: Granting, none: string): string[] {
  if (granting.holders.length === 0) return [`  ${none}`];
  return granting.holders.map(({ id, members, unreadable }) => {
    if (!members) return `  • ${mentionMember(id)}`;
    const who = unreadable
      ? `members unknown: ${escapeMrkdwn(unreadable)}`
      : members.length
        ? members.map(mentionUser).join(', ')
        : 'no members';
    return `  • ${mentionMember(id)} (user group): ${who}`;
  });
}

export function accessMessage(overview: AccessOverview, isAdmin: boolean): SlackMessage {
  const lines = LISTS.flatMap(([name, title, may]) => {
    const lock = overview[name].lock;
    const given = lock ? ` :lock: ${code(lock.key)} in ${escapeMrkdwn(lock.where)}` : '';
    const none = name === 'approvers' ? 'Nobody listed: anyone with the role a change needs.' : 'Nobody.';
    return [`*${title}*: ${may}${given}`, ...holderLines(overview[name], none)];
  });
  return message('Who may do what', [
    header('Who may do what'),
    ...packLines(lines, 3000).map((text) => section(text)),
    context(
      `Everyone else in the workspace is a viewer. Guests get a role only by their own user id, never through a ` +
        `group. ${isAdmin ? 'Change roles with `/voice settings`.' : 'Admins change roles with `/voice settings`.'} ` +
        'One person: `/voice access @person`.',
    ),
  ]);
}

export function personAccessMessage(access: PersonAccess): SlackMessage {
  const who = mentionUser(access.userId);
  const through = access.through.map((id) => (id === access.userId ? 'their own user id' : mentionMember(id)));
  const source =
    access.role === 'viewer'
      ? 'No list names them, so they are a viewer: they may look, and change nothing.'
      : `Granted through ${through.join(' and ')}.`;
  const lines = [
    `${who} is *${access.role === 'admin' ? 'an admin' : access.role === 'operator' ? 'an operator' : 'a viewer'}*. ${source}`,
    ...(access.cappedAsGuest ? ['They are a guest: their user groups give them no role.'] : []),
    access.approves
      ? 'They may approve changes that wait for a second person (with the role the change needs).'
      : 'They may not approve changes.',
  ];
  return message(`${access.userId}: ${access.role}`, [section(lines.join('\n'))]);
}
