// Previous and Next under a page of a list, with where the page stands: "Page 3 of 500 · 10,000 numbers".
import type { KnownBlock } from '@slack/types';
import { count, counted } from '../../counts.js';
import type { Page } from '../../ops/api.js';
import { encodeValue } from '../paging.js';
import { actions, button, context } from './blocks.js';

export interface PagerInput {
  page: number;
  /** Unknown for the provider's search, which does not say how many pages it has. */
  pages?: number;
  /** After the page count: "+" when it is a lower bound. */
  pagesSuffix?: string;
  /** What the list holds, e.g. "10,000 numbers"; our own mrkdwn. */
  summary: string;
  actionIds: { previous: string; next: string };
  /** Button values; a button is left out where there is nowhere to go. */
  previous?: string;
  next?: string;
  /** Label of Previous when it goes back to the first page rather than the one before. */
  previousLabel?: string;
}

export function pager(input: PagerInput): KnownBlock[] {
  const where =
    input.pages === undefined
      ? `Page ${count(input.page)}`
      : `Page ${count(input.page)} of ${count(input.pages)}${input.pagesSuffix ?? ''}`;
  const buttons = [
    ...(input.previous === undefined
      ? []
      : [
          button({
            text: input.previousLabel ?? '◀ Previous',
            actionId: input.actionIds.previous,
            value: input.previous,
          }),
        ]),
    ...(input.next === undefined
      ? []
      : [button({ text: 'Next ▶', actionId: input.actionIds.next, value: input.next })]),
  ];
  return [context(`${where} · ${input.summary}`), ...(buttons.length ? [actions(buttons)] : [])];
}

/** The pager of a filtered list: each button carries the page it leads to and the filter. */
export function listPager(
  page: Page<unknown, object>,
  noun: string,
  actionIds: { previous: string; next: string },
): KnownBlock[] {
  const at = (target: number) => encodeValue({ page: target, filter: page.filter });
  return pager({
    page: page.page,
    pages: page.pages,
    summary: counted(page.total, noun),
    actionIds,
    previous: page.page > 1 ? at(page.page - 1) : undefined,
    next: page.page < page.pages ? at(page.page + 1) : undefined,
  });
}
