import type { KnownBlock } from '@slack/types';
import { count, counted } from '../../counts.js';
import { type AuditChange, type AuditPage, actionWords, batchNamed } from '../../ops/api.js';
import type { AuditOutcome } from '../../store/audit.js';
import type { AuditFilter } from '../../store/audit-changes.js';
import { ACTION, PAGE } from '../ids.js';
import { bold, code, escapeAndTruncate, escapeMrkdwn, mentionUser, truncate } from '../mrkdwn.js';
import { encodeValue } from '../paging.js';
import { actions, button, context, LIMITS, message, packLines, type SlackMessage, section } from './blocks.js';
import { pager } from './pager.js';

/** Changes on one page of `/voice audit`. */
export const AUDIT_PAGE_SIZE = 20;

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
  unknown: ':hourglass_flowing_sand:',
};

// Caps on each piece of a line, counted after escaping, so that a line stays under 500 characters.
const MAX = { actor: 60, target: 80, agent: 70, errorCode: 40, errorMessage: 120 } as const;

/** `2024-05-01T12:34Z`: UTC to the minute, enough to tell events apart at a glance. */
export function minute(at: string): string {
  const time = new Date(at);
  return code(Number.isNaN(time.getTime()) ? at : `${time.toISOString().slice(0, 16)}Z`, 30);
}

function agentText(agent: { id: string; name?: string }): string {
  const id = code(agent.id, MAX.agent);
  return agent.name ? `${bold(agent.name, MAX.agent)} (${id})` : id;
}

/** What the change was about: its target, and the agents a map moved the number between. */
function subject(change: AuditChange): string[] {
  const target = change.target ? [bold(change.target, MAX.target)] : [];
  if (!change.agent) return target;
  if (change.action.startsWith('agent.')) return [agentText(change.agent)];
  // Any other change that names an agent routed its number there (a map, a batch of maps).
  const from = change.previousAgent ? ` from ${agentText(change.previousAgent)}` : '';
  return [...target, `${from} → ${agentText(change.agent)}`.trim()];
}

/** An outcome and its error code, left out when it only repeats the outcome ("denied `denied`"). */
function outcomeText(outcome: string, errorCode: string | undefined): string {
  const said = outcome === 'unknown' ? 'unknown, being settled' : outcome;
  return errorCode && errorCode !== outcome ? `${said} ${code(errorCode, MAX.errorCode)}` : said;
}

function noteText(note: AuditChange['notes'][number]): string {
  const what =
    note.action === 'change.announce'
      ? 'announcement'
      : note.action === 'agent.token'
        ? 'agent token'
        : note.action === 'access.denied'
          ? `attempt by ${truncate(mentionUser(note.actorId), MAX.actor)}`
          : escapeMrkdwn(actionWords(note.action, false));
  return `${what} ${outcomeText(note.outcome, note.errorCode)}`;
}

/** What was asked, in words: "bought" once it succeeded, "buy" while it was not. */
function whatText(change: AuditChange): string {
  if (change.attempted) return `attempt to ${escapeAndTruncate(actionWords(change.attempted, false), MAX.target)}`;
  const words = escapeMrkdwn(actionWords(change.action, change.outcome === 'succeeded'));
  return change.undo ? `Undo: ${words}` : words;
}

/** A batch's items by outcome: `12 succeeded, 1 failed`. */
function batchText(batch: NonNullable<AuditChange['batch']>): string {
  const parts = [`${count(batch.succeeded)} succeeded`];
  if (batch.failed) parts.push(`${count(batch.failed)} failed`);
  if (batch.cancelled) parts.push(`${count(batch.cancelled)} cancelled`);
  if (batch.settling) parts.push(`${count(batch.settling)} being settled`);
  return `(${parts.join(', ')})`;
}

/** "Items: buy of 3 numbers in DE" and its time to the second, so that two batches' buttons read differently. */
function itemsButtonText(change: AuditChange): string {
  const time = new Date(change.at);
  const when = Number.isNaN(time.getTime()) ? change.at : `${time.toISOString().slice(11, 19)} UTC`;
  const batch = batchNamed(change.action);
  const agent = batch?.routes && change.agent ? (change.agent.name ?? change.agent.id) : undefined;
  const what = [
    batch?.words.items ?? 'batch of',
    change.target ?? 'numbers',
    ...(change.region ? [`in ${change.region}`] : []),
    ...(agent ? [`to ${truncate(agent, 16)}`] : []),
  ].join(' ');
  return `Items: ${what}, ${when}`;
}

/** One change in one line, in escaped mrkdwn: also the history on a number's or an agent's card. */
export function changeLine(change: AuditChange): string {
  const parts = [
    minute(change.at),
    truncate(mentionUser(change.actorId), MAX.actor),
    whatText(change),
    ...subject(change),
    `${OUTCOME_EMOJI[change.outcome]} ${outcomeText(change.outcome, change.errorCode)}`,
    ...(change.batch ? [batchText(change.batch)] : []),
    ...(change.errorMessage ? [escapeAndTruncate(change.errorMessage, MAX.errorMessage)] : []),
    ...(change.notes.length ? [`· ${change.notes.map(noteText).join(', ')}`] : []),
  ];
  return parts.join(' ');
}

/** The person a filter names, as Slack shows a person once the log has them as an actor; as typed (code) before. */
function filteredPerson(actorId: string, items: readonly AuditChange[]): string {
  return items.some((change) => change.actorId === actorId) ? truncate(mentionUser(actorId), MAX.actor) : code(actorId);
}

/**
 * "by <@U1>, about `agt_1`, failed": what a filter keeps, in escaped mrkdwn. A user id only typed is echoed as code
 * rather than as a mention the app did not check; one the page's changes name as their actor, as a mention.
 */
function describeAuditFilter(filter: AuditFilter, items: readonly AuditChange[]): string {
  return [
    ...(filter.actorId === undefined ? [] : [`by ${filteredPerson(filter.actorId, items)}`]),
    ...(filter.actorName === undefined ? [] : [`by @${escapeAndTruncate(filter.actorName, MAX.actor)}`]),
    ...(filter.target === undefined ? [] : [`about ${code(filter.target)}`]),
    ...(filter.agentId === undefined ? [] : [`about agent ${code(filter.agentId)}`]),
    ...(filter.failed ? ['that failed or were refused'] : []),
  ].join(', ');
}

/** "170 changes", or "100,000+ changes" when the count stopped there. */
function changesCounted(page: AuditPage): string {
  return page.atLeast ? `${count(page.total)}+ changes` : counted(page.total, 'change');
}

function auditPager(page: AuditPage): KnownBlock[] {
  const at = (target: number, cursor: AuditPage['newer']) => encodeValue({ page: target, filter: page.filter, cursor });
  return pager({
    page: page.page,
    pages: page.pages,
    pagesSuffix: page.atLeast ? '+' : '',
    summary: changesCounted(page),
    actionIds: PAGE.audit,
    previous: page.newer ? at(page.page - 1, page.page - 1 > 1 ? page.newer : undefined) : undefined,
    next: page.older ? at(page.page + 1, page.older) : undefined,
  });
}

/** One line per change, newest first, with the way to older (and back to newer) pages. */
export function auditMessage(page: AuditPage): SlackMessage {
  const filter = describeAuditFilter(page.filter, page.items);
  const title = `*Audit log*${filter ? ` · ${filter}` : ''}: one line per change, newest first. Times are UTC.`;
  if (!page.items.length) {
    return message('Audit log: no changes', [section(`${title}\n${filter ? 'No changes match.' : 'No changes yet.'}`)]);
  }
  const sections = packLines(page.items.map(changeLine), LIMITS.sectionText);
  // A batch is one line; its items, each with its outcome, are a button away: one block a button, since an
  // action_id is unique within its block.
  const batches = page.items.filter((change) => change.batch);
  const texts = batches.map(itemsButtonText);
  const itemButtons = batches.map((change, at) => {
    const text = texts[at] ?? '';
    // Two batches alike to the second are told apart by the start of their ids.
    const twin = texts.indexOf(text) !== at || texts.lastIndexOf(text) !== at;
    return actions([
      button({
        text: twin ? `${truncate(text, LIMITS.buttonText - 11)} · ${change.correlationId.slice(0, 8)}` : text,
        actionId: ACTION.batchItems,
        value: encodeValue({ batchId: change.correlationId, page: 1 }),
      }),
    ]);
  });
  return message(`Audit log: page ${page.page}, ${changesCounted(page)}`, [
    section(title),
    ...sections.map((text) => section(text)),
    ...itemButtons,
    ...auditPager(page),
    ...(filter ? [] : [context('Filter by who or what: `/voice audit @user`, a number, an agent id, or `failed`.')]),
  ]);
}
