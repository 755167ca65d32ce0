import type { Change } from '../../ops/notify.js';
import { escapeMrkdwn, mentionUser } from '../mrkdwn.js';
import { context, LIMITS, message, type SlackMessage, section } from './blocks.js';
import { describeChange, lookUpCommand } from './changes.js';

/** Joins lines into as few section texts as fit, never splitting a line. */
function packLines(lines: string[]): string[] {
  const packed: string[] = [];
  for (const line of lines) {
    const last = packed.at(-1);
    if (last !== undefined && last.length + 1 + line.length <= LIMITS.sectionText)
      packed[packed.length - 1] = `${last}\n${line}`;
    else packed.push(line);
  }
  return packed;
}

/**
 * Posted to the team's channel: who changed what, with where to read more. Changes one person makes within a minute
 * share one message, updated as they come. A Change carries no secret, so none can leak here.
 */
export function announcementMessage(actorId: string, changes: Change[]): SlackMessage {
  const actor = mentionUser(actorId);
  const [only] = changes;
  if (only && changes.length === 1) {
    const line = `${actor} ${describeChange(only)}`;
    return message(line, [section(line), context(`More: \`${escapeMrkdwn(lookUpCommand(only))}\``)]);
  }
  const lines = changes.map((change) => `• ${describeChange(change)}`);
  const title = `${actor} made ${changes.length} changes:`;
  return message(`${title} ${changes.map(describeChange).join('; ')}`, [
    ...packLines([title, ...lines]).map((text) => section(text)),
    context(`Each with its outcome: \`/voice audit ${escapeMrkdwn(actorId)}\``),
  ]);
}
