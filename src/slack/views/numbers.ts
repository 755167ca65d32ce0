import type { Button, KnownBlock } from '@slack/types';
import { counted } from '../../counts.js';
import {
  type NumberFilter,
  type NumberSummary,
  type NumbersPage,
  type Role,
  regionName,
  type SearchPage,
} from '../../ops/api.js';
import type { AvailableNumber } from '../../provider/schemas.js';
import { ACTION, PAGE } from '../ids.js';
import { bold, code, escapeMrkdwn } from '../mrkdwn.js';
import { encodeValue, nextSearchPosition, previousSearchPosition, type SearchPosition, searchPage } from '../paging.js';
import { actions, button, capped, context, message, type SlackMessage, section } from './blocks.js';
import { listPager, pager } from './pager.js';
import { can } from './roles.js';
import { scopeLead } from './scope.js';
import { describeTagFilter, tagsText } from './tags.js';
import { agentLabel } from './text.js';

/** Two blocks a number (row and buttons): 20 rows, the intro, the pager and Buy stay under Slack's 50 blocks. */
export const NUMBERS_PAGE_SIZE = 20;
/** One block a result, plus title, notes and the pager: under 50 blocks in a message. */
const SEARCH_ROWS = 40;

export function buyNumberButton(): Button {
  return button({ text: 'Buy a number', actionId: ACTION.searchNumbers });
}

/** "not routed", "in Germany (DE)", "containing 415", "labelled `de`": what a filter keeps, in escaped mrkdwn. */
export function describeNumberFilter(filter: NumberFilter): string {
  const parts = [
    ...(filter.routed === true ? ['routed'] : filter.routed === false ? ['not routed'] : []),
    ...(filter.region === undefined ? [] : [`in ${escapeMrkdwn(regionLabel(filter.region))}`]),
    ...(filter.agentId === undefined ? [] : [`routed to ${code(filter.agentId)}`]),
    ...(filter.digits === undefined ? [] : [`containing ${code(filter.digits)}`]),
    ...describeTagFilter(filter),
  ];
  return parts.join(', ');
}

/** "United States (US)", raw: the caller escapes it, as bold() or escapeMrkdwn() does. */
export function regionLabel(region: string): string {
  const name = regionName(region);
  return name ? `${name} (${region})` : region;
}

/** "*Phone numbers* · not routed", or the empty state. */
/** The list's title and filter, or why it is empty; the Home tab, under its own heading, gives a subtitle. */
export function numbersIntro(page: NumbersPage, title = '*Phone numbers*'): KnownBlock {
  const filter = describeNumberFilter(page.filter);
  const titled = `${scopeLead(page.scope, 'numbers')}${title}${filter ? ` · ${filter}` : ''}`;
  if (page.total > 0) return section(titled);
  return section(filter ? `${titled}\nNo numbers match.` : `${titled}\nNo numbers yet.`);
}

function numberRow(number: NumberSummary, role: Role): KnownBlock[] {
  const route = number.agentId
    ? `Routes to ${agentLabel({ id: number.agentId, name: number.agentName })}`
    : '_Not routed_';
  const facts = [
    escapeMrkdwn(number.status),
    ...(number.region ? [escapeMrkdwn(number.region)] : []),
    ...(number.capabilities ? [capabilityText(number.capabilities)] : []),
  ].join(' · ');
  const noVoice = number.capabilities && !number.capabilities.includes('voice') ? `\n${NO_VOICE}` : '';
  const tags = tagsText(number.tags);
  const routeAndTags = tags ? `${route} · ${tags}` : route;
  const row = section(`${bold(number.number)}  ${code(number.id)} · ${facts}${noVoice}\n${routeAndTags}`);
  const buttons = [
    ...(can(role, 'operator') ? [button({ text: 'Map', actionId: ACTION.mapNumber, value: number.number })] : []),
    ...(can(role, 'admin')
      ? [button({ text: 'Release', actionId: ACTION.releaseNumber, value: number.id, style: 'danger' })]
      : []),
  ];
  return buttons.length ? [row, actions(buttons)] : [row];
}

/** A row (and its buttons) per number of the page. */
export function numberRows(numbers: NumberSummary[], role: Role): KnownBlock[] {
  return numbers.flatMap((number) => numberRow(number, role));
}

export function numbersMessage(input: { page: NumbersPage; role: Role }): SlackMessage {
  const { page, role } = input;
  return message(`Phone numbers: page ${page.page} of ${page.pages}, ${counted(page.total, 'number')}`, [
    numbersIntro(page),
    ...numberRows(page.items, role),
    ...listPager(page, 'number', PAGE.numbers),
    ...(can(role, 'operator') ? [actions([buyNumberButton()])] : []),
  ]);
}

/** " in United States (US) containing `415`": where and what a search looks for, escaped mrkdwn. */
function searchScope(position: SearchPosition): string {
  const where = position.region === undefined ? '' : ` in ${escapeMrkdwn(regionLabel(position.region))}`;
  const digits = position.digits === undefined ? '' : ` containing ${code(position.digits)}`;
  return `${where}${digits}`;
}

function searchTitle(position: SearchPosition): string {
  return `*Available numbers${searchScope(position)}*`;
}

/** "voice, sms", or "none": escaped mrkdwn. */
export function capabilityText(capabilities: string[]): string {
  return escapeMrkdwn(capabilities.length ? capabilities.join(', ') : 'none');
}

export const NO_VOICE = ":no_entry_sign: no voice: can't serve an AI agent";

function resultRow(available: AvailableNumber, role: Role): KnownBlock {
  const voice = available.capabilities.includes('voice');
  const text =
    `${bold(available.number)}  ${escapeMrkdwn(available.region)} · ${capabilityText(available.capabilities)}` +
    (voice ? '' : `\n${NO_VOICE}`);
  const buy = button({ text: 'Buy', actionId: ACTION.buyNumber, value: available.number });
  return section(text, voice && can(role, 'operator') ? buy : undefined);
}

/** Previous (back along the kept starts) and Next (where the provider's pages go on) under a page of results. */
function searchPager(page: SearchPage, position: SearchPosition): KnownBlock[] {
  const first = position.starts.length === 0 && position.skipped === 0;
  const backToFirst = position.skipped > 0 && position.starts.length === 1;
  return pager({
    page: searchPage(position),
    summary: page.next ? 'more on the next pages' : 'the last page',
    actionIds: PAGE.search,
    previous: first ? undefined : encodeValue(previousSearchPosition(position)),
    previousLabel: backToFirst ? '◀ First page' : undefined,
    next: page.next ? encodeValue(nextSearchPosition(position, page.next)) : undefined,
  });
}

/** The results of one search page, shared by the search message and the search modal. */
export function searchResultsBlocks(input: { page: SearchPage; position: SearchPosition; role: Role }): KnownBlock[] {
  const { page, position, role } = input;
  if (!page.data.length && !page.next && searchPage(position) === 1) {
    return [section(`No numbers available${searchScope(position)}.`)];
  }
  const { shown, hidden } = capped(page.data, SEARCH_ROWS);
  return [
    section(searchTitle(position)),
    ...shown.map((available) => resultRow(available, role)),
    ...(hidden ? [context(`Showing ${shown.length} of the ${counted(page.data.length, 'number')} on this page.`)] : []),
    ...(page.stopped
      ? [
          context(
            `Looked through ${counted(page.scanned, 'number')} for sale and stopped there, having found ` +
              `${page.data.length}: Next looks further.`,
          ),
        ]
      : []),
    ...(can(role, 'operator')
      ? []
      : [context('Buying a number needs the operator role: `/voice access` says who can give it.')]),
    ...searchPager(page, position),
  ];
}

export function searchResultsMessage(input: { page: SearchPage; position: SearchPosition; role: Role }): SlackMessage {
  const { region, digits } = input.position;
  const title = `Available numbers${region === undefined ? '' : ` in ${region}`}${digits ? ` containing ${digits}` : ''}`;
  return message(escapeMrkdwn(title), searchResultsBlocks(input));
}
