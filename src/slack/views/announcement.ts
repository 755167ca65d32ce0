import type { Announcement, Change } from '../../ops/api.js';
import { code, mentionUser } from '../mrkdwn.js';
import { actions, context, LIMITS, message, packLines, type SlackMessage, section } from './blocks.js';
import { describeChange, lookUpCommand } from './changes.js';
import { undoButton } from './undo.js';

/** A change as its announcement shows it: with its request's Undo, when one is offered. */
export type AnnouncedChange = Pick<Announcement, 'change' | 'undo'>;

/** A change with its Undo beside it fills a block of its own: a message of one person's changes holds this many. */
export const CHANGES_IN_ONE_MESSAGE = LIMITS.messageBlocks - 2;

/**
 * Who changed what, each change with its Undo (for its maker and admins). A person's changes within a minute share
 * one message. A Change carries no secret, so none can leak here.
 */
export function announcementMessage(actorId: string, changes: AnnouncedChange[]): SlackMessage {
  const actor = mentionUser(actorId);
  const [only] = changes;
  if (only && changes.length === 1) {
    const line = `${actor} ${describeChange(only.change)}`;
    const buttons = undoButtonOf(only);
    return message(line, [
      section(line),
      ...(buttons.length ? [actions(buttons)] : []),
      context(`More: ${code(lookUpCommand(only.change))}`),
    ]);
  }
  const title = `${actor} made ${changes.length} changes:`;
  return message(`${title} ${changes.map(({ change }) => describeChange(change)).join('; ')}`, [
    section(title),
    ...changes.map((announced) => section(`• ${describeChange(announced.change)}`, undoButtonOf(announced)[0])),
    context(`Each with its outcome: ${code(`/voice audit ${actorId}`)}`),
  ]);
}

const undoButtonOf = ({ undo }: AnnouncedChange) => (undo ? undoButton(undo.correlationId, undo.offer) : []);

/** Changes noticed at the provider that nobody made through Voice Ops, all in one message. */
export function outsideChangesMessage(changes: Change[]): SlackMessage {
  const lines = changes.map((change) => `• ${describeChange(change)}`);
  const intro = `:mag: ${changes.length === 1 ? 'A change was' : `${changes.length} changes were`} made outside Voice Ops (in the provider's dashboard or API):`;
  return message(
    intro,
    [section(intro), ...packLines(lines).map((text) => section(text))].slice(0, LIMITS.messageBlocks),
  );
}
