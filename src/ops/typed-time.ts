// A moment as a person types it after `as of` or `since`: an ISO time, a date, today or yesterday (at a time), or so
// long ago. UTC unless the text names its offset, since the audit log keeps UTC and a team may span time zones. A
// moment still to come is refused: nothing has happened then yet.
import { fail, type Result } from './types.js';
import { visible } from './visible.js';

/** The forms a moment may take, as an error names them. */
export const TIME_FORMS =
  'an ISO time (2026-11-27T09:00Z, 2026-11-27T09:00:00+01:00, or 2026-11-27T09:00 in UTC), a date (2026-11-27, ' +
  'from 00:00 UTC), today or yesterday with a time (yesterday 09:00, in UTC), yesterday, or N minutes, hours or ' +
  'days ago';

/** A moment read, and how it is said back: "2026-11-27 09:00 UTC". */
export interface TypedTime {
  at: Date;
  said: string;
}

/** Characters of an unreadable time echoed back. */
const ECHO_MAX = 60;
const MINUTE_MS = 60_000;
const UNIT_MS = { minute: MINUTE_MS, hour: 60 * MINUTE_MS, day: 24 * 60 * MINUTE_MS } as const;

// A time as the answers say it back (`2026-11-27 09:00 UTC`) reads as typed, so that it can be copied into a command.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z| ?UTC|[+-]\d{2}:\d{2})?)?$/i;
const DAY_WORD = /^(today|yesterday)(?:\s+(\d{1,2}):(\d{2}))?$/i;
const AGO = /^(\d{1,6})\s+(minute|hour|day)s?\s+ago$/i;

/** `2026-11-27 09:00 UTC`, with the seconds (and milliseconds) only when there are any. */
export function utcText(at: Date): string {
  const text = at
    .toISOString()
    .slice(0, 23)
    .replace('T', ' ')
    .replace(/\.000$/, '')
    .replace(/:00$/, '');
  return `${text} UTC`;
}

/** The moment `typed` names, `now` being the app's clock; an unreadable or future one is refused, naming the forms. */
export function parseTypedTime(typed: string, now: Date): Result<TypedTime> {
  const text = typed.trim();
  const at = isoTime(text) ?? dayWordTime(text, now) ?? agoTime(text, now);
  if (at === undefined || Number.isNaN(at.getTime())) {
    const echo = text.length > ECHO_MAX ? `${visible(text.slice(0, ECHO_MAX))}…` : visible(text);
    return fail('invalid', `"${echo}" is not a time Voice Ops can read. Give ${TIME_FORMS}.`);
  }
  const said = utcText(at);
  if (at > now) {
    const current = utcText(new Date(now.getTime() - now.getUTCMilliseconds()));
    return fail(
      'invalid',
      `${said} is still to come (it is ${current} now), and nothing has happened then yet. Give a time in the ` +
        `past: ${TIME_FORMS}.`,
    );
  }
  return { ok: true, at, said };
}

/** Milliseconds since the epoch of a UTC calendar time, or undefined when no such time exists (2026-02-30, 24:00). */
function utcTime(parts: { year: number; month: number; day: number; hour: number; minute: number; second: number }) {
  const { year, month, day, hour, minute, second } = parts;
  const time = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(time);
  const exists =
    back.getUTCFullYear() === year &&
    back.getUTCMonth() === month - 1 &&
    back.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60;
  return exists ? time : undefined;
}

function isoTime(text: string): Date | undefined {
  const match = ISO.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', offset = 'Z'] = match;
  const time = utcTime({
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
  });
  const offsetMs = offsetOf(offset);
  if (time === undefined || offsetMs === undefined) return undefined;
  return new Date(time + Number(fraction.slice(0, 3).padEnd(3, '0')) - offsetMs);
}

/** `+01:00` in milliseconds; `Z` and `UTC` are 0. */
function offsetOf(offset: string): number | undefined {
  if (!/^[+-]/.test(offset)) return 0;
  const [hours = 0, minutes = 0] = offset.slice(1).split(':').map(Number);
  if (hours > 23 || minutes > 59) return undefined;
  return (offset.startsWith('-') ? -1 : 1) * (hours * 60 + minutes) * MINUTE_MS;
}

/** `today 14:30`, `yesterday 09:00`, `yesterday` (00:00): days of the UTC calendar. */
function dayWordTime(text: string, now: Date): Date | undefined {
  const match = DAY_WORD.exec(text);
  if (!match) return undefined;
  const [, word = '', hour = '0', minute = '0'] = match;
  const time = utcTime({
    year: now.getUTCFullYear(),
    month: now.getUTCMonth() + 1,
    day: now.getUTCDate(),
    hour: Number(hour),
    minute: Number(minute),
    second: 0,
  });
  if (time === undefined) return undefined;
  return new Date(word.toLowerCase() === 'yesterday' ? time - UNIT_MS.day : time);
}

/** `90 minutes ago`, `1 hour ago`, `2 days ago`. */
function agoTime(text: string, now: Date): Date | undefined {
  const match = AGO.exec(text);
  if (!match) return undefined;
  const [, count = '0', unit = ''] = match;
  return new Date(now.getTime() - Number(count) * UNIT_MS[unit.toLowerCase() as keyof typeof UNIT_MS]);
}
