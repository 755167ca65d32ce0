import type { Announcement, Change } from '../../ops/notify.js';
import { mentionUser } from '../mrkdwn.js';
import { LIMITS, message, type SlackMessage, section, textMessage } from './blocks.js';
import { describeChange } from './changes.js';

/** Posted to the team's channel: who changed what. A Change carries no secret, so none can leak here. */
export function announcementMessage(announcement: Announcement): SlackMessage {
  return textMessage(`${mentionUser(announcement.actor.userId)} ${describeChange(announcement.change)}`);
}

/** Changes noticed at the provider that nobody made through Voice Ops, all in one message. */
export function outsideChangesMessage(changes: Change[]): SlackMessage {
  const lines = changes.map((change) => `• ${describeChange(change)}`);
  const intro = `:mag: ${changes.length === 1 ? 'A change was' : `${changes.length} changes were`} made outside Voice Ops (in the provider's dashboard or API):`;
  return message(
    intro,
    [section(intro), ...chunkLines(lines).map((text) => section(text))].slice(0, LIMITS.messageBlocks),
  );
}

/** Lines gathered into section texts that each fit Slack's limit. */
function chunkLines(lines: string[]): string[] {
  const chunks: string[] = [];
  for (const line of lines) {
    const last = chunks.at(-1);
    if (last !== undefined && last.length + line.length + 1 <= LIMITS.sectionText)
      chunks[chunks.length - 1] = `${last}\n${line}`;
    else chunks.push(line.slice(0, LIMITS.sectionText));
  }
  return chunks;
}
