// What a Previous or Next button (or the Home tab's private_metadata) carries: which list, which page, which filter.
// Slack returns the text as it was sent, so each is read back through its schema; what does not parse is ignored.
import { z } from 'zod';
import { agentFilter, numberFilter, type SearchRequest, type SearchStart, searchStart } from '../ops/api.js';
import { auditCursor, auditFilter } from '../store/audit-changes.js';

/** Slack's limit on a button's value. */
export const BUTTON_VALUE_MAX = 2000;

const pageNumber = z.number().int().min(1);

export const numbersPosition = z.object({ page: pageNumber, filter: numberFilter });
export type NumbersPosition = z.infer<typeof numbersPosition>;

export const agentsPosition = z.object({ page: pageNumber, filter: agentFilter });
export type AgentsPosition = z.infer<typeof agentsPosition>;

export const auditPosition = z.object({ page: pageNumber, filter: auditFilter, cursor: auditCursor.optional() });
export type AuditPosition = z.infer<typeof auditPosition>;

/**
 * A page of the search: its region and digits, and the way back. `starts` holds where every page after the first up to
 * this one starts (this page's last); when they outgrow a button, the oldest are let go and counted in `skipped`.
 */
export const searchPosition = z.object({
  region: z.string().optional(),
  digits: z.string().optional(),
  starts: z.array(searchStart),
  skipped: z.number().int().min(0),
});
export type SearchPosition = z.infer<typeof searchPosition>;

/** The first page of a search. */
export function searchFrom(region: string | undefined, digits?: string): SearchPosition {
  return { region, digits, starts: [], skipped: 0 };
}

/** What to ask the provider for this page. */
export function searchRequestOf(position: SearchPosition): SearchRequest {
  return { region: position.region, digits: position.digits, start: position.starts.at(-1) };
}

/** The Home tab's own pages and filter, kept in its private_metadata. */
export const homePosition = z.object({ agentsPage: pageNumber, numbersPage: pageNumber, numbersFilter: numberFilter });
export type HomePosition = z.infer<typeof homePosition>;

export const FIRST_HOME_POSITION: HomePosition = { agentsPage: 1, numbersPage: 1, numbersFilter: {} };

/** A button value; refused, rather than cut, when Slack would not take it. */
export function encodeValue(value: object): string {
  const text = JSON.stringify(value);
  if (text.length > BUTTON_VALUE_MAX) throw new RangeError(`a button value of ${text.length} characters`);
  return text;
}

export function decodeValue<T>(schema: z.ZodType<T>, text: string | undefined): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(text ?? ''));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function searchPage(position: SearchPosition): number {
  return position.skipped + position.starts.length + 1;
}

/** The search page after this one, keeping as many starts back as a button holds. */
export function nextSearchPosition(position: SearchPosition, start: SearchStart): SearchPosition {
  const next = { ...position, starts: [...position.starts, start] };
  while (JSON.stringify(next).length > BUTTON_VALUE_MAX && next.starts.length > 1) {
    next.starts = next.starts.slice(1);
    next.skipped += 1;
  }
  return next;
}

/** The page before this one; the first page when its start was let go. */
export function previousSearchPosition(position: SearchPosition): SearchPosition {
  const starts = position.starts.slice(0, -1);
  return starts.length === 0 ? searchFrom(position.region, position.digits) : { ...position, starts };
}

/**
 * The last search a person was shown: its position, the search form's view when it was shown in one, and the
 * number whose Buy was last pressed in it (a number bought by typing its command leaves the search alone).
 */
export interface ShownSearch {
  position: SearchPosition;
  viewId?: string;
  privateMetadata?: string;
  buying?: string;
}
