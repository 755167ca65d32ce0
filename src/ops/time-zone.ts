// A person's time zone from users.info, and clock times in it. A named zone's offset is read for the moment concerned;
// a name the runtime does not know falls back to the offset Slack gave for now.
import { z } from 'zod';

export const timeZone = z.object({
  /** The zone's IANA name: `Europe/Paris`. */
  name: z.string().min(1),
  /** Its offset from UTC now, in seconds, as Slack gives it (`tz_offset`). */
  offsetSeconds: z.number().int(),
});
export type TimeZone = z.infer<typeof timeZone>;

/** A clock time: what a person reads on a wall clock, in no zone. */
export interface ClockTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formats = new Map<string, Intl.DateTimeFormat | undefined>();

/** The runtime's format of a zone's clock times, or undefined for a zone name it does not know. */
function formatIn(name: string): Intl.DateTimeFormat | undefined {
  if (!formats.has(name)) {
    try {
      const options = { timeZone: name, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric' } as const;
      formats.set(name, new Intl.DateTimeFormat('en-US', { ...options, hour: 'numeric', minute: 'numeric' }));
    } catch {
      formats.set(name, undefined);
    }
  }
  return formats.get(name);
}

/** The zone's offset from UTC at the moment `at` (milliseconds since the epoch), in milliseconds. */
function offsetAt(zone: TimeZone, at: number): number {
  const format = formatIn(zone.name);
  if (!format) return zone.offsetSeconds * 1000;
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    Number(format.formatToParts(at).find((entry) => entry.type === type)?.value);
  const minuteStart = at - (((at % 60_000) + 60_000) % 60_000);
  const asUtc = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'));
  return asUtc - minuteStart;
}

/** The zone's offset from UTC at the moment `at`, in minutes east of UTC. */
export const offsetMinutesAt = (zone: TimeZone, at: Date): number => offsetAt(zone, at.getTime()) / 60_000;

/** With the zone's offset at about that moment, so that a clock time in summer reads with summer's offset. */
export function momentOf(clock: ClockTime, zone: TimeZone): number {
  const asUtc = Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute, clock.second);
  const guess = asUtc - offsetAt(zone, asUtc);
  return asUtc - offsetAt(zone, guess);
}

/** The clock time of a moment in the zone (the milliseconds kept, as the UTC date's). */
export function clockIn(at: Date, zone: TimeZone): Date {
  return new Date(at.getTime() + offsetAt(zone, at.getTime()));
}
