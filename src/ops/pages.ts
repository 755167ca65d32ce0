// A page of a list is data: its items, where it stands (page k of n), the total, and the filter that made it, so
// that a view can render it and its Previous and Next buttons can ask for the neighbouring pages.
import type { ChannelBinding } from '../settings-schema.js';

export interface Page<T, F> {
  items: T[];
  /** 1-based. */
  page: number;
  /** At least 1, even when the list is empty. */
  pages: number;
  /** Items matching the filter, on every page. */
  total: number;
  filter: F;
  /** The binding of the channel it was asked in, which left out what it does not cover. */
  scope?: ChannelBinding;
}

/** Where a list is asked: in a bound channel it shows only what the binding covers. */
export interface ListedIn {
  channelId?: string;
}

export interface PageRequest {
  /** 1-based; a page past the end (the list shrank meanwhile) gives the last page. */
  page: number;
  size: number;
}

export function pageOf<T, F>(all: readonly T[], request: PageRequest, filter: F): Page<T, F> {
  const size = Math.max(1, Math.floor(request.size));
  const pages = Math.max(1, Math.ceil(all.length / size));
  const page = Math.min(pages, Math.max(1, Math.floor(request.page) || 1));
  return { items: all.slice((page - 1) * size, page * size), page, pages, total: all.length, filter };
}
