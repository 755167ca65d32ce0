// A moment typed after `as of` or `since`: an ISO time or date, or words (`10 min ago`, `last tuesday 9:00`) read by
// chrono, in the person's Slack time zone, else UTC. A team may span time zones, so every answer names the zone.
import type { ParsedResult } from 'chrono-node/en';
import { type ClockTime, clockIn, momentOf, offsetMinutesAt, type TimeZone } from './time-zone.js';
import { fail, type Result } from './types.js';
import { visible } from './visible.js';

/** The forms a moment may take, as an error names them. */
export const TIME_FORMS =
  'an ISO time (2026-11-27T09:00Z, 2026-11-27T09:00:00+01:00, or 2026-11-27T09:00), a date (2026-11-27, from 00:00), ' +
  'or words such as 10 min ago, 3 hours ago, yesterday, yesterday 09:00, this morning or last tuesday 9:00 (a day ' +
  'named alone, from 00:00)';

/** In which zone a time without an offset was read, as every answer about a typed time says it. */
export const zoneSaid = (zone: TimeZone | undefined): string =>
  zone
    ? `A time without an offset is read in your Slack time zone, ${zone.name}.`
    : 'A time without an offset is read in UTC, as Slack gives no time zone for you.';

/** A moment read, and how it is said back. */
export interface TypedTime {
  at: Date;
  /** In the zone it was read in, with UTC beside it: "2026-11-27 09:00 Europe/Paris (08:00 UTC)". */
  said: string;
  /** In UTC, as a command reads it the same in any zone: "2026-11-27 08:00 UTC". */
  utc: string;
}

/** Characters of an unreadable time echoed back. */
const ECHO_MAX = 60;

// A time as the answers say it back in UTC (`2026-11-27 09:00 UTC`) reads as typed, so that it can be copied into a
// command.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z| ?UTC|[+-]\d{2}:\d{2})?)?$/i;
const MINUTE_MS = 60_000;

type Chrono = typeof import('chrono-node/en');
// Loaded by the first time typed in words rather than at start, as the phone number library is (routing-text.ts).
let chrono: Promise<Chrono> | undefined;
const chronoLibrary = () => {
  chrono ??= import('chrono-node/en').catch((error: unknown) => {
    chrono = undefined; // tried again by the next time typed
    throw error;
  });
  return chrono;
};
// Anything that starts as a date is read as ISO alone: chrono would read 2026-13-01 as January 13th.
const DATE_START = /^\d{4}-\d/;

/** `2026-11-27 09:00`: a UTC date's date and time, with the seconds (and milliseconds) only when there are any. */
const clockText = (clock: Date): string =>
  clock
    .toISOString()
    .slice(0, 23)
    .replace('T', ' ')
    .replace(/\.000$/, '')
    .replace(/:00$/, '');

/** `2026-11-27 09:00 UTC`. */
export const utcText = (at: Date): string => `${clockText(at)} UTC`;

/** `2026-11-27 09:00 Europe/Paris (08:00 UTC)`, the UTC date too when it differs; UTC alone without a zone. */
export function zonedText(at: Date, zone: TimeZone | undefined): string {
  if (!zone) return utcText(at);
  const local = clockText(clockIn(at, zone));
  const utc = clockText(at);
  const sameDay = local.slice(0, 10) === utc.slice(0, 10);
  return `${local} ${zone.name} (${sameDay ? utc.slice(11) : utc} UTC)`;
}

/** An unreadable or future moment is refused, naming the forms and the zone. */
export async function parseTypedTime(typed: string, now: Date, zone?: TimeZone): Promise<Result<TypedTime>> {
  const text = typed.trim();
  const at = DATE_START.test(text) ? isoTime(text, zone) : spokenTime(await chronoLibrary(), text, now, zone);
  if (at === undefined || Number.isNaN(at.getTime())) {
    const echo = text.length > ECHO_MAX ? `${visible(text.slice(0, ECHO_MAX))}…` : visible(text);
    return fail('invalid', `"${echo}" is not a time Voice Ops can read. Give ${TIME_FORMS}. ${zoneSaid(zone)}`);
  }
  const said = zonedText(at, zone);
  if (at > now) {
    const current = zonedText(new Date(now.getTime() - now.getUTCMilliseconds()), zone);
    return fail(
      'invalid',
      `${said} is still to come (it is ${current} now), and nothing has happened then yet. Give a time in the ` +
        `past: ${TIME_FORMS}.`,
    );
  }
  return { ok: true, at, said, utc: utcText(at) };
}

/** Whether a clock time exists on the calendar (not 2026-02-30, nor 24:00). */
function exists(clock: ClockTime): boolean {
  const back = new Date(Date.UTC(clock.year, clock.month - 1, clock.day));
  return (
    back.getUTCFullYear() === clock.year &&
    back.getUTCMonth() === clock.month - 1 &&
    back.getUTCDate() === clock.day &&
    clock.hour < 24 &&
    clock.minute < 60 &&
    clock.second < 60
  );
}

/** The moment of a clock time in the zone, or in UTC; undefined when no such time exists. */
function momentIn(clock: ClockTime, zone: TimeZone | undefined): number | undefined {
  if (!exists(clock)) return undefined;
  return zone
    ? momentOf(clock, zone)
    : Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute, clock.second);
}

function isoTime(text: string, zone: TimeZone | undefined): Date | undefined {
  const match = ISO.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', offset] = match;
  const clock = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
  };
  // A time that names its offset (Z, UTC, +01:00) is read in it; any other, in the person's zone.
  const offsetMs = offset === undefined ? undefined : offsetOf(offset);
  const time = momentIn(clock, offset === undefined ? zone : undefined);
  if (time === undefined || (offset !== undefined && offsetMs === undefined)) return undefined;
  return new Date(time + Number(fraction.slice(0, 3).padEnd(3, '0')) - (offsetMs ?? 0));
}

/** `+01:00` in milliseconds; `Z` and `UTC` are 0. */
function offsetOf(offset: string): number | undefined {
  if (!/^[+-]/.test(offset)) return 0;
  const [hours = 0, minutes = 0] = offset.slice(1).split(':').map(Number);
  if (hours > 23 || minutes > 59) return undefined;
  return (offset.startsWith('-') ? -1 : 1) * (hours * 60 + minutes) * MINUTE_MS;
}

/** The whole text must be one moment (`yesterday 25:00` is not `yesterday`). */
function spokenTime({ casual }: Chrono, text: string, now: Date, zone: TimeZone | undefined): Date | undefined {
  const results = casual.parse(text, { instant: now, timezone: zone ? offsetMinutesAt(zone, now) : 0 });
  const [read] = results;
  if (results.length !== 1 || !read || read.index !== 0 || read.text.length !== text.length) return undefined;
  const tags = read.tags();
  // So long ago (`10 min ago`, `3 days ago`), or a time naming its own zone: the moment chrono counted.
  if (read.start.isCertain('timezoneOffset') || tags.has('result/relativeDate')) return read.start.date();
  return wallClockTime(read, zone, tags.has('parser/ENCasualTimeParser'));
}

/**
 * At the zone's offset on that date, which may differ from today's across a change of clocks; a day named without a
 * time of day (`yesterday`) is read from its start.
 */
function wallClockTime(read: ParsedResult, zone: TimeZone | undefined, partOfDay: boolean): Date | undefined {
  const { start } = read;
  const timed = partOfDay || start.isCertain('hour');
  const part = (component: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second') => start.get(component) ?? 0;
  const time = momentIn(
    {
      year: part('year'),
      month: part('month'),
      day: part('day'),
      hour: timed ? part('hour') : 0,
      minute: timed ? part('minute') : 0,
      second: timed ? part('second') : 0,
    },
    zone,
  );
  return time === undefined ? undefined : new Date(time);
}
