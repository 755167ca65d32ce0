import type { Button, KnownBlock } from '@slack/types';
import type { NumberSummary } from '../../ops/numbers.js';
import type { Role } from '../../ops/types.js';
import type { AvailableNumber, AvailableNumberPage } from '../../provider/schemas.js';
import { ACTION } from '../ids.js';
import { bold, code, escapeMrkdwn } from '../mrkdwn.js';
import { actions, button, capped, context, message, moreLine, type SlackMessage, section } from './blocks.js';
import { regionName } from './regions.js';
import { can } from './roles.js';
import { agentLabel } from './text.js';

/** Two blocks a number (row and buttons): 20 rows stay under Slack's 50 blocks. */
const MESSAGE_ROWS = 20;
/** One block a result, plus title, notes and More: under 50 blocks in a message. */
const SEARCH_ROWS = 40;

export function buyNumberButton(): Button {
  return button({ text: 'Buy a number', actionId: ACTION.searchNumbers });
}

export function numbersIntro(count: number): KnownBlock {
  return section(count ? `*Phone numbers* (${count})` : '*Phone numbers*\nNo numbers yet.');
}

function numberRow(number: NumberSummary, agentNames: Record<string, string>, role: Role): KnownBlock[] {
  const route = number.agentId
    ? `Routes to ${agentLabel({ id: number.agentId, name: agentNames[number.agentId] })}`
    : '_Not routed_';
  const row = section(`${bold(number.number)}  ${code(number.id)} · ${escapeMrkdwn(number.status)}\n${route}`);
  const buttons = [
    ...(can(role, 'operator') ? [button({ text: 'Map', actionId: ACTION.mapNumber, value: number.number })] : []),
    ...(can(role, 'admin')
      ? [button({ text: 'Release', actionId: ACTION.releaseNumber, value: number.id, style: 'danger' })]
      : []),
  ];
  return buttons.length ? [row, actions(buttons)] : [row];
}

/** A row (and its buttons) per number up to `max`, then where to see the rest. */
export function numberRows(
  numbers: NumberSummary[],
  agentNames: Record<string, string>,
  role: Role,
  max: number,
  where?: string,
): KnownBlock[] {
  const { shown, hidden } = capped(numbers, max);
  return [
    ...shown.flatMap((number) => numberRow(number, agentNames, role)),
    ...(hidden ? [moreLine(hidden, where)] : []),
  ];
}

export function numbersMessage(input: {
  numbers: NumberSummary[];
  agentNames: Record<string, string>;
  role: Role;
}): SlackMessage {
  const { numbers, agentNames, role } = input;
  return message(`${numbers.length} phone numbers`, [
    numbersIntro(numbers.length),
    ...numberRows(numbers, agentNames, role, MESSAGE_ROWS),
    ...(can(role, 'operator') ? [actions([buyNumberButton()])] : []),
  ]);
}

function searchTitle(region: string | undefined): string {
  if (region === undefined) return '*Available numbers*';
  const name = regionName(region);
  return bold(`Available numbers in ${name ? `${name} (${region})` : region}`);
}

function resultRow(available: AvailableNumber, role: Role): KnownBlock {
  const voice = available.capabilities.includes('voice');
  const capabilities = available.capabilities.length ? available.capabilities.join(', ') : 'none';
  const text =
    `${bold(available.number)}  ${escapeMrkdwn(available.region)} · ${escapeMrkdwn(capabilities)}` +
    (voice ? '' : "\n:no_entry_sign: no voice: can't serve an AI agent");
  const buy = button({ text: 'Buy', actionId: ACTION.buyNumber, value: available.number });
  return section(text, voice && can(role, 'operator') ? buy : undefined);
}

/** The results of one search page, shared by the search message and the search modal. */
export function searchResultsBlocks(input: { page: AvailableNumberPage; region?: string; role: Role }): KnownBlock[] {
  const { page, region, role } = input;
  if (!page.data.length && page.next_cursor === null) {
    return [
      section(region === undefined ? 'No numbers available.' : `No numbers available in ${escapeMrkdwn(region)}.`),
    ];
  }
  const { shown, hidden } = capped(page.data, SEARCH_ROWS);
  const more = button({
    text: 'More numbers',
    actionId: ACTION.moreNumbers,
    value: JSON.stringify({ region, cursor: page.next_cursor }),
  });
  return [
    section(searchTitle(region)),
    ...shown.map((available) => resultRow(available, role)),
    ...(hidden ? [context(`Showing ${shown.length} of the ${page.data.length} numbers on this page.`)] : []),
    ...(can(role, 'operator')
      ? []
      : [context('Buying a number needs the operator role: an admin adds you to `VOICE_OPERATORS`.')]),
    ...(page.next_cursor === null ? [] : [actions([more])]),
  ];
}

export function searchResultsMessage(input: { page: AvailableNumberPage; region?: string; role: Role }): SlackMessage {
  const title = input.region === undefined ? 'Available numbers' : `Available numbers in ${input.region}`;
  return message(escapeMrkdwn(title), searchResultsBlocks(input));
}
