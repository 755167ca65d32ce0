// A quiet subscription's daily digest: one line per change since the channel's last digest, oldest first.
import type { DigestEntry } from '../../ops/api.js';
import { mentionUser } from '../mrkdwn.js';
import { batchAnnouncementMessage } from './batches.js';
import { LIMITS, message, packLines, type SlackMessage, section } from './blocks.js';
import { describeChange } from './changes.js';

function lineOf(entry: DigestEntry): string {
  if ('batch' in entry) return `• ${batchAnnouncementMessage(entry.batch).text}`;
  if ('outside' in entry) return `• ${describeChange(entry.outside)} (outside Voice Ops)`;
  return `• ${mentionUser(entry.actorId)} ${describeChange(entry.change)}`;
}

export function digestMessage(entries: readonly DigestEntry[]): SlackMessage {
  const intro = `:newspaper: Digest: ${entries.length === 1 ? '1 change' : `${entries.length} changes`} since the last one`;
  const sections = packLines(entries.map(lineOf)).map((text) => section(text));
  return message(intro, [section(intro), ...sections].slice(0, LIMITS.messageBlocks));
}
