// A bulk plan, its progress, its result and its announcement. Each message lists at most a page of items, so that
// a plan of 1,000 stays within Slack's limits; the rest is a page away, or in `/voice audit`.
import { count, counted } from '../../counts.js';
import type { BatchLine, BatchView } from '../../ops/batches.js';
import type { BatchAnnouncement } from '../../ops/notify.js';
import { ACTION, PAGE } from '../ids.js';
import { bold, code, escapeAndTruncate, mentionUser } from '../mrkdwn.js';
import { encodeValue } from '../paging.js';
import { actions, button, context, header, message, type SlackMessage, section } from './blocks.js';
import { expiryLine } from './confirmation.js';
import { pager } from './pager.js';
import { agentLabel, agentNameOrId } from './text.js';

/** Items listed on one page of a plan. */
export const BATCH_PAGE_SIZE = 20;
/** Failures listed with their reason in a result; the rest are counted, and in `/voice audit`. */
const FAILURES_SHOWN = 15;
const REASON_MAX = 150;

const STATE_MARK: Record<BatchLine['state'], string> = {
  pending: ':white_small_square:',
  running: ':hourglass_flowing_sand:',
  succeeded: ':white_check_mark:',
  failed: ':x:',
  cancelled: ':heavy_multiplication_x:',
  unchanged: ':heavy_equals_sign:',
};

function itemLine(line: BatchLine, shownBefore: boolean): string {
  const number = bold(line.number);
  const mark = shownBefore ? '' : `${STATE_MARK[line.state]} `;
  if (line.state === 'unchanged') return `${mark}${number}: already routes there, unchanged`;
  const from = line.previousAgent ? `re-route from ${agentNameOrId(line.previousAgent)}` : 'route';
  const error = line.error ? `: ${escapeAndTruncate(line.error, REASON_MAX)}` : '';
  return `${mark}${number}: ${from}${error}`;
}

function totalsLine(view: BatchView): string {
  const { add, reroute, unchanged } = view.plan.totals;
  return [
    `${counted(add, 'number')} to route`,
    ...(reroute ? [`:warning: ${count(reroute)} re-routed from another agent: their callers will reach this one`] : []),
    ...(unchanged ? [`${count(unchanged)} already routed there (unchanged)`] : []),
  ].join(' · ');
}

/** The page of items, with Previous and Next when the plan is longer than one page. */
function itemsBlocks(view: BatchView, planned: boolean) {
  const lines = view.items.items.map((line) => `• ${itemLine(line, planned)}`);
  const { page, pages, filter } = view.items;
  const at = (target: number) => encodeValue({ batchId: filter.batchId, page: target });
  return [
    ...(lines.length ? [section(lines.join('\n'))] : []),
    ...(pages > 1
      ? pager({
          page,
          pages,
          summary: counted(view.items.total, 'number'),
          actionIds: PAGE.batch,
          previous: page > 1 ? at(page - 1) : undefined,
          next: page < pages ? at(page + 1) : undefined,
        })
      : []),
  ];
}

const title = (view: BatchView) => `Route ${counted(view.total, 'number')} to ${view.plan.agent.name}`;

/** The plan, for its one confirmation: every item's effect, a page at a time, and the totals. */
export function planMessage(view: BatchView, now: Date): SlackMessage {
  const agent = agentLabel(view.plan.agent);
  if (view.total === 0) {
    const text = `Every one of these numbers already routes to ${agent}: nothing to change.`;
    return message(text, [section(text), ...itemsBlocks(view, true)]);
  }
  const intro = `*Plan:* route to ${agent}. ${totalsLine(view)}.`;
  return message(intro, [
    header(`Plan: ${title(view)}`),
    section(intro),
    ...itemsBlocks(view, true),
    context(expiryLine(view.expiresAt, now)),
    actions([
      button({
        text: `Apply to ${counted(view.total, 'number')}`,
        actionId: ACTION.confirmBatch,
        value: view.id,
        // Taking numbers away from the agent their callers reach now is the destructive part.
        style: view.plan.totals.reroute ? 'danger' : 'primary',
      }),
      button({ text: 'Cancel', actionId: ACTION.cancelBatch, value: view.id }),
    ]),
  ]);
}

/** "37 of 120 done, 1 failed", with Stop. */
export function progressMessage(view: Pick<BatchView, 'id' | 'total' | 'plan' | 'counts'>): SlackMessage {
  const { succeeded, failed } = view.counts;
  const done = succeeded + failed;
  const text =
    `:hourglass_flowing_sand: Routing to ${agentLabel(view.plan.agent)}: ${count(done)} of ${count(view.total)} ` +
    `done${failed ? `, ${count(failed)} failed` : ''}.`;
  return message(text, [
    section(text),
    actions([button({ text: 'Stop', actionId: ACTION.stopBatch, value: view.id, style: 'danger' })]),
    context('Stop keeps the numbers not yet started from changing; those under way finish.'),
  ]);
}

function againButton(view: BatchView, which: 'failed' | 'rest', items: number) {
  const text =
    which === 'failed' ? `Plan the ${counted(items, 'failed one')} again` : `Resume: plan the ${count(items)} left`;
  return button({ text, actionId: ACTION.planAgain, value: encodeValue({ batchId: view.id, which }) });
}

function failuresBlocks(view: BatchView) {
  if (!view.failures.length) return [];
  const shown = view.failures.slice(0, FAILURES_SHOWN).map((line) => `• ${itemLine(line, false)}`);
  const more = view.failures.length - shown.length;
  return [
    section(`*Failed:*\n${shown.join('\n')}`),
    ...(more ? [context(`And ${counted(more, 'more failure')}: ${code(`/voice audit failed`)}`)] : []),
  ];
}

/** How the batch ended: what was done, each failure with its reason, and the failed ones offered again. */
export function resultMessage(view: BatchView): SlackMessage {
  const { succeeded, failed, cancelled, pending } = view.counts;
  const agent = agentLabel(view.plan.agent);
  const left = cancelled + pending;
  const headline =
    view.state === 'stopped'
      ? `:octagonal_sign: Stopped: ${count(succeeded)} of ${count(view.total)} routed to ${agent}, ${count(left)} not started.`
      : `${failed ? ':warning:' : ':white_check_mark:'} Routed ${count(succeeded)} of ${counted(view.total, 'number')} to ${agent}${failed ? `; ${count(failed)} failed` : ''}.`;
  const again = [
    ...(failed ? [againButton(view, 'failed', failed)] : []),
    ...(left && view.state === 'stopped' ? [againButton(view, 'rest', left)] : []),
  ];
  return message(headline, [
    section(headline),
    ...failuresBlocks(view),
    ...(again.length ? [actions(again)] : []),
    context(`Every item is in ${code('/voice audit')}.`),
  ]);
}

/** To the requester of a batch a stopped app cut short: where it stopped, and Resume. */
export function interruptedMessage(view: BatchView): SlackMessage {
  const { succeeded, failed, pending, cancelled } = view.counts;
  const left = pending + cancelled;
  const text =
    `:warning: Your batch routing numbers to ${agentLabel(view.plan.agent)} stopped at ${count(succeeded + failed)} ` +
    `of ${count(view.total)} when the app restarted. Nothing more happens by itself.`;
  return message(text, [
    section(text),
    ...failuresBlocks(view),
    ...(left ? [actions([againButton(view, 'rest', left)])] : []),
  ]);
}

/** One message for a whole batch in the team's channel: who, what, how many, and what failed. */
export function batchAnnouncementMessage(announcement: BatchAnnouncement): SlackMessage {
  const { succeeded, failed, cancelled } = announcement.counts;
  const actor = mentionUser(announcement.actor.userId);
  const extra = [
    ...(failed ? [`${count(failed)} failed`] : []),
    ...(cancelled ? [`${count(cancelled)} stopped before they started`] : []),
  ];
  const text =
    `${actor} routed ${counted(succeeded, 'number')} to ${agentLabel(announcement.agent)}` +
    `${extra.length ? ` (${extra.join(', ')})` : ''}.`;
  return message(text, [section(text), context(`Each number: ${code(`/voice audit ${announcement.actor.userId}`)}`)]);
}
