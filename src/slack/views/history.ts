// `/voice history`: one number's or agent's changes, newest first, a line each with when, what, who, how and the
// audit id; Older pages back.
import type { HistoryEntry, HistoryPage } from '../../ops/api.js';
import { ACTION } from '../ids.js';
import { bold, code, escapeMrkdwn, mentionUser } from '../mrkdwn.js';
import { encodeValue } from '../paging.js';
import { minute } from './audit.js';
import { actions, button, context, LIMITS, message, packLines, type SlackMessage, section } from './blocks.js';
import { mrkdwnOf } from './phrase.js';
import { agentLabel } from './text.js';

/** Where a History button or Older leads: the number or agent, and the audit id to read before. */
export const historyValue = (subject: string, before?: number): string => encodeValue({ subject, before });

const line = (entry: HistoryEntry): string =>
  `• ${minute(entry.at)} ${mrkdwnOf(entry.what)} · ${mentionUser(entry.actorId)} · ${escapeMrkdwn(entry.how)} · ` +
  `audit #${entry.auditId}`;

/**
 * "*History of +4930…*": one bold span, its subject inside it (a number) or beside it as code (an agent id), since a
 * bold span within another shows its asterisks.
 */
const titleOf = (page: HistoryPage): string =>
  page.of === 'number'
    ? bold(`History of ${page.subject}`)
    : `${bold('History of')} ${agentLabel({ id: page.subject, name: page.name })}`;

export function historyMessage(page: HistoryPage): SlackMessage {
  const title = `${titleOf(page)}, newest first`;
  const lines = page.entries.map(line);
  return message(`History of ${escapeMrkdwn(page.subject)}`, [
    // A page's lines in as many sections as Slack's limit on one takes, so that none is cut.
    ...(lines.length
      ? packLines([title, ...lines], LIMITS.sectionText).map((text) => section(text))
      : [section(`${title}: nothing older.`)]),
    ...(page.older !== undefined
      ? [
          actions([
            button({ text: 'Older', actionId: ACTION.historyOlder, value: historyValue(page.subject, page.older) }),
          ]),
        ]
      : []),
    context(`Each change in full: ${code(`/voice audit ${page.subject}`)}`),
  ]);
}
