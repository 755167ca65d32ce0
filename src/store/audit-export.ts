// Audit events as CSV (RFC 4180) or JSON lines, one chunk per row, so that an export streams at any size as the
// events are read (AuditLog.since).
import type { AuditEvent } from './audit.js';

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Both formats carry these fields, in this order, under these names. */
export const EXPORT_COLUMNS = [
  'id',
  'at',
  'actorId',
  'actorName',
  'teamId',
  'channelId',
  'source',
  'action',
  'target',
  'outcome',
  'errorCode',
  'errorMessage',
  'correlationId',
  'params',
  'hash',
] as const satisfies readonly (keyof AuditEvent)[];

// A spreadsheet runs a cell that starts with one of these as a formula (OWASP's list: =, +, -, @, tab, CR).
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

function csvField(text: string): string {
  const inert = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(inert) ? `"${inert.replaceAll('"', '""')}"` : inert;
}

function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

function csvText(event: AuditEvent, column: (typeof EXPORT_COLUMNS)[number]): string {
  const value = event[column];
  if (value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

type Events = AsyncIterable<AuditEvent> | Iterable<AuditEvent>;

/** A header row, then one row per event; `params` as JSON text. */
export async function* toCsv(events: Events): AsyncGenerator<string> {
  yield csvLine(EXPORT_COLUMNS);
  for await (const event of events) yield csvLine(EXPORT_COLUMNS.map((column) => csvText(event, column)));
}

/** One JSON object per line, every column present (null when absent), so that each line has the same shape. */
export async function* toJsonl(events: Events): AsyncGenerator<string> {
  for await (const event of events) {
    yield `${JSON.stringify(Object.fromEntries(EXPORT_COLUMNS.map((column) => [column, event[column] ?? null])))}\n`;
  }
}

export const FORMATTERS: Record<ExportFormat, (events: Events) => AsyncIterable<string>> = {
  csv: toCsv,
  jsonl: toJsonl,
};
