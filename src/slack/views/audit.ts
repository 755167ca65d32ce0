import type { AuditEvent, AuditOutcome } from '../../store/audit.js';
import { bold, code, escapeAndTruncate, mentionUser, truncate } from '../mrkdwn.js';
import { capped, context, LIMITS, message, type SlackMessage, section, textMessage } from './blocks.js';

const OUTCOME_EMOJI: Record<AuditOutcome, string> = {
  requested: ':memo:',
  confirmed: ':ballot_box_with_check:',
  succeeded: ':white_check_mark:',
  failed: ':x:',
  denied: ':no_entry:',
  cancelled: ':heavy_multiplication_x:',
  expired: ':hourglass:',
  rejected: ':no_entry_sign:',
  awaiting_approval: ':raised_hand:',
  approved: ':thumbsup:',
};

// Caps on each piece of a line, counted after escaping, so that a line stays under 500 characters and 200
// events pack into well under Slack's 50 blocks.
const MAX = { actor: 60, target: 80, params: 80, errorCode: 40, errorMessage: 120 } as const;
/** Sections of lines, leaving room for the title and the "more" line. */
const MAX_SECTIONS = 47;

/** `2024-05-01T12:34Z`: UTC to the minute, enough to tell events apart at a glance. */
function minute(at: string): string {
  const time = new Date(at);
  return code(Number.isNaN(time.getTime()) ? at : `${time.toISOString().slice(0, 16)}Z`, 30);
}

function paramsText(params: Record<string, unknown>): string {
  const pairs = Object.entries(params).map(
    ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
  return escapeAndTruncate(pairs.join(' '), MAX.params);
}

function eventLine(event: AuditEvent): string {
  const parts = [
    minute(event.at),
    truncate(mentionUser(event.actorId), MAX.actor),
    code(event.action),
    ...(event.target ? [bold(event.target, MAX.target)] : []),
    `${OUTCOME_EMOJI[event.outcome]} ${event.outcome}`,
    ...(event.params && Object.keys(event.params).length ? [paramsText(event.params)] : []),
    ...(event.errorCode ? [code(event.errorCode, MAX.errorCode)] : []),
    ...(event.errorMessage ? [escapeAndTruncate(event.errorMessage, MAX.errorMessage)] : []),
  ];
  return parts.join(' ');
}

/** Joins lines into as few texts as fit Slack's section limit, never splitting a line. */
function packLines(lines: string[], max: number): string[] {
  const packed: string[] = [];
  for (const line of lines) {
    const last = packed.at(-1);
    if (last !== undefined && last.length + 1 + line.length <= max) packed[packed.length - 1] = `${last}\n${line}`;
    else packed.push(line);
  }
  return packed;
}

/** Newest first, as given: one line per event. */
export function auditMessage(events: AuditEvent[]): SlackMessage {
  if (!events.length) return textMessage('No audit events yet.');
  const title = `*Audit log*: the last ${events.length} events, newest first. Times are UTC.`;
  const { shown, hidden } = capped(packLines(events.map(eventLine), LIMITS.sectionText), MAX_SECTIONS);
  return message(`Audit log: ${events.length} events`, [
    section(title),
    ...shown.map((text) => section(text)),
    ...(hidden
      ? [context(`${hidden} more sections of older events not shown: ask for fewer with \`/voice audit N\`.`)]
      : []),
  ]);
}
