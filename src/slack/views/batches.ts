// A bulk plan, its progress, its result and its announcement. Each message lists at most a page of items, so that
// a plan of 1,000 stays within Slack's limits; the rest is a page away, or in `/voice audit`.

import type { ModalView } from '@slack/types';
import { count, counted } from '../../counts.js';
import {
  type BatchAnnouncement,
  type BatchLine,
  type BatchView,
  type BulkWords,
  bulkWordsOf,
  KIND,
  numberOf,
  typedCount,
} from '../../ops/api.js';
import { ACTION, CALLBACK, INPUT, PAGE } from '../ids.js';
import { bold, code, escapeAndTruncate, escapeMrkdwn, mentionMember, mentionUser } from '../mrkdwn.js';
import { encodeValue } from '../paging.js';
import { actions, button, context, header, message, modal, plainText, type SlackMessage, section } from './blocks.js';
import { expiryLine } from './confirmation.js';
import { regionLabel } from './numbers.js';
import { pager } from './pager.js';
import { mrkdwnOf } from './phrase.js';
import { routeBoughtBlock } from './route-bought.js';
import { agentLabel, agentNameOrId } from './text.js';
import { undoButton, undoWithheld } from './undo.js';

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

/** What each kind of batch does, in the words of its messages. */
const wordsOf = (view: Pick<BatchView, 'plan'>): BulkWords => bulkWordsOf(view.plan.request.kind);

/** What the item does, or did: its number, and what changes for its callers. */
const effectOf = (line: BatchLine): string =>
  mrkdwnOf(bulkWordsOf(line.change.kind).effect(line.change, line.state === 'unchanged'));

function itemLine(line: BatchLine, shownBefore: boolean): string {
  const mark = shownBefore ? '' : `${STATE_MARK[line.state]} `;
  const error = line.error ? `: ${escapeAndTruncate(line.error, REASON_MAX)}` : '';
  return `${mark}${bold(numberOf(line.change))}: ${effectOf(line)}${error}`;
}

/** The plan in one sentence, with its totals. */
const planSummary = (view: BatchView): string =>
  `*Plan:* ${mrkdwnOf(wordsOf(view).plan(view.plan.request, { ...view.plan.totals, agent: view.plan.agent }))}`;

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

/** Owners a plan's left-out numbers are listed under, and numbers listed under each; the rest are counted. */
const LEFT_OUT_SHOWN = 10;

/**
 * The numbers a plan left out: because another team owns them (or the agent they would route to), by team, and
 * because the channel's binding does not cover them.
 */
function leftOutBlocks(view: Pick<BatchView, 'plan'>) {
  const byOwner = new Map<string, string[]>();
  for (const { number, owner } of view.plan.leftOut ?? []) {
    const numbers = byOwner.get(owner) ?? [];
    numbers.push(number);
    byOwner.set(owner, numbers);
  }
  const lines = [...byOwner].slice(0, LEFT_OUT_SHOWN).map(([owner, left]) => {
    const more = left.length - LEFT_OUT_SHOWN;
    const numbers = left.slice(0, LEFT_OUT_SHOWN).map((number) => bold(number));
    return `• Left out: owned by ${mentionMember(owner)}: ${numbers.join(', ')}${more > 0 ? ` and ${count(more)} more` : ''}`;
  });
  const others = byOwner.size - lines.length;
  const rest = others > 0 ? `\n…and ${counted(others, 'more team')}.` : '';
  const outside = view.plan.outsideScope ?? [];
  const more = outside.length - LEFT_OUT_SHOWN;
  const unbound = outside.length
    ? [
        section(
          `• Left out: not covered by this channel's binding: ${outside
            .slice(0, LEFT_OUT_SHOWN)
            .map((number) => bold(number))
            .join(', ')}` + `${more > 0 ? ` and ${count(more)} more` : ''}`,
        ),
      ]
    : [];
  const owned = lines.length
    ? [
        section(`${lines.join('\n')}${rest}`),
        context('Only the owning team’s members with the operator role, and admins, may change them.'),
      ]
    : [];
  return [...owned, ...unbound];
}

/** The plan, for its one confirmation: every item's effect, a page at a time, and the totals. */
export function planMessage(view: BatchView, now: Date): SlackMessage {
  if (view.total === 0) {
    const already = wordsOf(view).alreadySo ?? `routes${toAgent(view) || ' as asked'}`;
    const text = `Every one of these numbers ${view.plan.leftOut ? 'you may change ' : ''}already ${already}: nothing to change.`;
    return message(text, [section(text), ...itemsBlocks(view, true), ...leftOutBlocks(view)]);
  }
  const intro = `${planSummary(view)}.`;
  const typed = typedCount(view);
  const words = wordsOf(view);
  return message(intro, [
    header(`Plan: ${words.doing.toLowerCase()} ${counted(view.total, 'number')}`),
    section(intro),
    ...itemsBlocks(view, true),
    ...leftOutBlocks(view),
    context(expiryLine(view.expiresAt, now)),
    ...(typed
      ? [context(`:keyboard: You will be asked to type ${code(typed)}, the count of numbers, to confirm.`)]
      : []),
    actions([
      button({
        text: `${words.apply} ${counted(view.total, 'number')}`,
        // A release asks for the count, typed in a modal; anything else is confirmed by the click.
        actionId: typed ? ACTION.confirmBatchTyped : ACTION.confirmBatch,
        value: view.id,
        // Taking numbers away from the agent their callers reach now is the destructive part.
        style: view.plan.totals.taken || typed ? 'danger' : 'primary',
      }),
      button({ text: 'Cancel', actionId: ACTION.cancelBatch, value: view.id }),
    ]),
  ]);
}

/** ` to *Agent*` for a map's batch; nothing for the others. */
const toAgent = (view: Pick<BatchView, 'plan'>): string =>
  view.plan.agent ? ` to ${agentLabel(view.plan.agent)}` : '';

/** "37 of 120 done, 1 failed", with Stop. */
export function progressMessage(view: Pick<BatchView, 'id' | 'total' | 'plan' | 'counts'>): SlackMessage {
  const { succeeded, failed, running } = view.counts;
  // While a batch runs, its items counted running are those whose outcome is unknown: the batch has moved past them.
  const done = succeeded + failed + running;
  const text =
    `:hourglass_flowing_sand: ${wordsOf(view).doing}${toAgent(view)}: ${count(done)} of ${count(view.total)} ` +
    `done${failed ? `, ${count(failed)} failed` : ''}${running ? `, ${count(running)} being settled` : ''}.`;
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

/** An ended batch's items whose outcome is unknown: being settled, and told. */
function beingSettled(view: BatchView): string {
  const { running } = view.counts;
  if (!running || !ENDED.includes(view.state)) return '';
  return `; ${count(running)} being settled: the provider has not answered for ${running === 1 ? 'it' : 'them'} yet, and you will be told how ${running === 1 ? 'it ends' : 'they end'}`;
}

const ENDED: readonly BatchView['state'][] = ['finished', 'stopped', 'interrupted'];

/** Where the batch stands, in a line: its end, or (shown from `/voice audit`) that it has not ended yet. */
function headlineOf(view: BatchView): string {
  const { succeeded, failed, cancelled, pending, running } = view.counts;
  const done = wordsOf(view).done;
  const tally = `${count(succeeded)} of ${counted(view.total, 'number')}${toAgent(view)}`;
  const settling = beingSettled(view);
  switch (view.state) {
    case 'stopped':
    case 'interrupted':
      return `:octagonal_sign: Stopped: ${count(succeeded)} of ${count(view.total)} ${done.toLowerCase()}${toAgent(view)}, ${count(cancelled + pending)} not started${settling}.`;
    case 'awaiting':
      return ':hourglass_flowing_sand: Waiting for a second approver: nothing is done until then.';
    case 'expired':
      return ':no_entry_sign: Not applied: the plan expired, was cancelled or was replaced. Nothing was changed.';
    case 'running':
    case 'stopping':
      return `:hourglass_flowing_sand: Under way: ${done.toLowerCase()} ${tally} so far${failed ? `; ${count(failed)} failed` : ''}.`;
    default: {
      const mark = failed ? ':warning:' : running ? ':hourglass_flowing_sand:' : ':white_check_mark:';
      return `${mark} ${done} ${tally}${failed ? `; ${count(failed)} failed` : ''}${settling}.`;
    }
  }
}

/** Where the batch stands: what was done, each failure with its reason, and the failed ones offered again. */
export function resultMessage(view: BatchView): SlackMessage {
  const { failed, cancelled, pending } = view.counts;
  const left = cancelled + pending;
  const headline = headlineOf(view);
  const ended = ENDED.includes(view.state);
  // Undo waits for the batch's final word: what it walks back is known only once every item is settled.
  const undoable = ended && view.counts.succeeded > 0 && view.counts.running === 0;
  const again = [
    ...(failed && ended ? [againButton(view, 'failed', failed)] : []),
    ...(left && (view.state === 'stopped' || view.state === 'interrupted') ? [againButton(view, 'rest', left)] : []),
    ...(undoable ? undoButton(view.id, view.undo) : []),
  ];
  const routable = ended && view.counts.succeeded > 0 && wordsOf(view).routeNext;
  return message(headline, [
    section(headline),
    ...failuresBlocks(view),
    ...(routable ? [routeBoughtBlock({ batchId: view.id })] : []),
    ...(again.length ? [actions(again)] : []),
    ...(undoable ? undoWithheld(view.undo) : []),
    // Every item with what became of it, a page at a time, as the plan listed them.
    ...itemsBlocks(view, false),
    context(`Every item is in ${code('/voice audit')}.`),
  ]);
}

/** To the requester of a batch whose items being settled are settled: how the whole batch ended, once. */
export function settledMessage(view: BatchView): SlackMessage {
  const note = 'The provider has now answered for every number of your batch that was being settled.';
  const result = resultMessage(view);
  return message(`${result.text} ${note}`, [...result.blocks, context(note)]);
}

/** To the requester of a batch cut short (the app stopped, or lost its database): where it stopped, and Resume. */
export function interruptedMessage(view: BatchView): SlackMessage {
  const { succeeded, failed, pending, cancelled } = view.counts;
  const left = pending + cancelled;
  const text =
    `:warning: Your batch ${wordsOf(view).doing.toLowerCase()} numbers${toAgent(view)} stopped at ` +
    `${count(succeeded + failed)} of ${count(view.total)} when it was cut short (the app stopped, or lost its ` +
    'database). Nothing more happens by itself.';
  return message(text, [
    section(text),
    ...failuresBlocks(view),
    ...(left ? [actions([againButton(view, 'rest', left)])] : []),
  ]);
}

/** Numbers an announcement names; the rest are counted, and each is in `/voice audit`. */
export const ANNOUNCED_NUMBERS = 10;

/** `+4930…, +4930… to *Support* and 3 more`: the numbers a batch changed, as its announcement names them. */
function announcedNumbers(numbers: BatchAnnouncement['numbers']): string {
  const shown = numbers
    .slice(0, ANNOUNCED_NUMBERS)
    .map(({ number, agent }) => (agent ? `${bold(number)} to ${agentNameOrId(agent)}` : bold(number)));
  const more = numbers.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${count(more)} more` : shown.join(', ');
}

/** One message for a whole batch in the team's channel: who, what, how many, which numbers, and what failed. */
export function batchAnnouncementMessage(announcement: BatchAnnouncement): SlackMessage {
  const { succeeded, failed, cancelled } = announcement.counts;
  const actor = mentionUser(announcement.actor.userId);
  const extra = [
    ...(failed ? [`${count(failed)} failed`] : []),
    ...(cancelled ? [`${count(cancelled)} stopped before they started`] : []),
  ];
  const agent = announcement.agent ? ` to ${agentLabel(announcement.agent)}` : '';
  const region = announcement.region ? ` in ${escapeMrkdwn(regionLabel(announcement.region))}` : '';
  const numbers = announcement.numbers.length ? `: ${announcedNumbers(announcement.numbers)}` : '';
  const { of } = announcement;
  const changed =
    of === undefined
      ? counted(succeeded, 'number')
      : `${announcement.numbers.length} of the batch's ${count(of)} numbers`;
  const text =
    `${actor} ${bulkWordsOf(announcement.kind).done.toLowerCase()} ${changed}${region}${agent}` +
    `${numbers}.${extra.length ? ` ${extra.join(', ')}.` : ''}`;
  const undo = undoButton(announcement.batchId, announcement.undo);
  return message(text, [
    section(text),
    ...(undo.length ? [actions(undo)] : []),
    context(`Each number: ${code(`/voice audit ${announcement.actor.userId}`)}`),
  ]);
}

/** A plan that changed before it was confirmed: nothing was applied, and here is the plan as things stand now. */
export function planChangedMessage(view: BatchView, now: Date): SlackMessage {
  const note =
    ':arrows_counterclockwise: What the plan would do changed since it was shown: nothing was applied. Here is the ' +
    'plan as things stand now.';
  const plan = planMessage(view, now);
  return message(`${note} ${plan.text}`, [section(note), ...plan.blocks]);
}

/** The typed confirmation of a release: the count of numbers, typed, or nothing happens. */
export function batchTypedModal(view: BatchView, now: Date, privateMetadata: string): ModalView {
  const typed = typedCount(view) ?? '';
  return modal({
    title: 'Confirm release',
    callbackId: CALLBACK.confirmBatch,
    submit: 'Release',
    close: 'Cancel',
    privateMetadata,
    blocks: [
      section(`${planSummary(view)}.`),
      context(expiryLine(view.expiresAt, now)),
      {
        type: 'input',
        block_id: INPUT.typedConfirmation.block,
        label: plainText(`Type ${typed}, the count of numbers, to release them`),
        element: { type: 'plain_text_input', action_id: INPUT.typedConfirmation.action, max_length: 10 },
      },
    ],
  });
}

/** Items an Undo leaves out, listed at most this many; the rest counted. */
const LEFT_SHOWN = 10;

/** The inverse, and the items it leaves out with why; those changed again since can be included. */
export function undoPlanMessage(
  view: BatchView,
  { left, changedSince }: { left: string[]; changedSince: number },
  now: Date,
): SlackMessage {
  const plan = planMessage(view, now);
  // An Undo of a buy releases what was bought: the provider keeps what was paid.
  const refund =
    view.plan.request.kind === KIND.release
      ? [
          context(
            ':warning: This Undo releases the numbers bought. A release is not a refund: what was paid for them stays paid.',
          ),
        ]
      : [];
  if (!left.length) return { ...plan, blocks: [...plan.blocks, ...refund] };
  const shown = left.slice(0, LEFT_SHOWN).map((line) => `• ${escapeMrkdwn(line)}`);
  const more = left.length > LEFT_SHOWN ? [`…and ${left.length - LEFT_SHOWN} more.`] : [];
  const note = `Left out of this Undo:\n${[...shown, ...more].join('\n')}`;
  const undoes = view.plan.request.undoes;
  const include =
    changedSince && typeof undoes === 'string'
      ? [
          actions([
            button({
              text: `Include the ${counted(changedSince, 'number')} changed since`,
              actionId: ACTION.undoIncludingChanged,
              value: undoes,
            }),
          ]),
        ]
      : [];
  return { ...plan, blocks: [...plan.blocks, ...refund, context(note), ...include] };
}
