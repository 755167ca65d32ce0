// A moment as people type it after `as of` and `since`: ISO times and dates, and the words people use (`10 min ago`,
// `last tuesday 9:00`, `this morning`), every form read in the person's time zone (UTC when none is known) unless it
// names an offset, the app's clock as now, and an unreadable or future time refused in one sentence naming the forms
// and the zone.
import { describe, expect, it } from 'vitest';
import type { TimeZone } from '../../src/ops/time-zone.js';
import { parseTypedTime, TIME_FORMS, utcText, zoneSaid } from '../../src/ops/typed-time.js';

const NOW = new Date('2026-11-28T10:15:30.250Z');

/** The moment `typed` names, as an ISO string; fails the test when it is refused. */
async function read(typed: string, zone?: TimeZone): Promise<string> {
  const parsed = await parseTypedTime(typed, NOW, zone);
  if (!parsed.ok) throw new Error(`expected "${typed}" to read, got: ${parsed.message}`);
  return parsed.at.toISOString();
}

async function refusal(typed: string): Promise<string> {
  const parsed = await parseTypedTime(typed, NOW);
  if (parsed.ok) throw new Error(`expected "${typed}" to be refused, got ${parsed.at.toISOString()}`);
  expect(parsed.reason).toBe('invalid');
  return parsed.message;
}

describe('parseTypedTime', () => {
  it.each([
    ['2026-11-27T09:00Z', '2026-11-27T09:00:00.000Z'],
    ['2026-11-27t09:00z', '2026-11-27T09:00:00.000Z'],
    ['2026-11-27T09:00:00+01:00', '2026-11-27T08:00:00.000Z'],
    ['2026-11-27T09:00-05:30', '2026-11-27T14:30:00.000Z'],
    ['2026-11-27T09:00', '2026-11-27T09:00:00.000Z'],
    ['2026-11-27 09:00', '2026-11-27T09:00:00.000Z'],
    ['2026-11-27T09:00:05.5Z', '2026-11-27T09:00:05.500Z'],
    ['2026-11-27', '2026-11-27T00:00:00.000Z'],
    ['2026-11-27 09:00 UTC', '2026-11-27T09:00:00.000Z'],
    ['yesterday 09:00', '2026-11-27T09:00:00.000Z'],
    ['Yesterday 9:05', '2026-11-27T09:05:00.000Z'],
    ['today 00:30', '2026-11-28T00:30:00.000Z'],
    ['yesterday', '2026-11-27T00:00:00.000Z'],
    ['today', '2026-11-28T00:00:00.000Z'],
    ['90 minutes ago', '2026-11-28T08:45:30.250Z'],
    ['1 minute ago', '2026-11-28T10:14:30.250Z'],
    ['1 hour ago', '2026-11-28T09:15:30.250Z'],
    ['2 HOURS AGO', '2026-11-28T08:15:30.250Z'],
    ['3 days ago', '2026-11-25T10:15:30.250Z'],
    ['  1 day   ago  ', '2026-11-27T10:15:30.250Z'],
    ['0 minutes ago', '2026-11-28T10:15:30.250Z'],
    // Now is Saturday 2026-11-28, 10:15:30 UTC.
    ['10 min ago', '2026-11-28T10:05:30.250Z'],
    ['an hour ago', '2026-11-28T09:15:30.250Z'],
    ['3 weeks ago', '2026-11-07T10:15:30.250Z'],
    ['last tuesday 9:00', '2026-11-24T09:00:00.000Z'],
    ['last tuesday', '2026-11-24T00:00:00.000Z'],
    ['this morning', '2026-11-28T06:00:00.000Z'],
    ['yesterday at 5pm', '2026-11-27T17:00:00.000Z'],
    ['27/11/2026', '2026-11-27T00:00:00.000Z'],
  ])('reads "%s" as %s', async (typed, iso) => {
    expect(await read(typed)).toBe(iso);
  });

  it('says the moment back in UTC, to the minute, with seconds only when it has them, in a form it reads again', async () => {
    const cases = [
      ['2026-11-27T09:00:00+01:00', '2026-11-27 08:00 UTC'],
      ['2026-11-27', '2026-11-27 00:00 UTC'],
      ['2026-11-27T09:00:05Z', '2026-11-27 09:00:05 UTC'],
      ['2026-11-27T09:00:05.250Z', '2026-11-27 09:00:05.250 UTC'],
    ];
    for (const [typed = '', said] of cases) {
      const parsed = await parseTypedTime(typed, NOW);
      expect(parsed.ok && parsed.said).toBe(said);
      expect(await read(said ?? '')).toBe(await read(typed));
    }
    expect(utcText(new Date('2026-11-27T09:30:00.000Z'))).toBe('2026-11-27 09:30 UTC');
  });

  const PARIS = { name: 'Europe/Paris', offsetSeconds: 3600 };
  const LOS_ANGELES = { name: 'America/Los_Angeles', offsetSeconds: -28800 };
  const AUCKLAND = { name: 'Pacific/Auckland', offsetSeconds: 46800 };

  it.each([
    ['2026-11-27T09:00', PARIS, '2026-11-27T08:00:00.000Z'],
    // Summer time: the offset is the one of the moment typed, not Slack's offset of today.
    ['2026-07-01 09:00', PARIS, '2026-07-01T07:00:00.000Z'],
    ['2026-11-27', LOS_ANGELES, '2026-11-27T08:00:00.000Z'],
    // Now is 02:15 on the 28th in Los Angeles, and 23:15 on the 28th in Auckland: their todays and yesterdays.
    ['today 01:00', LOS_ANGELES, '2026-11-28T09:00:00.000Z'],
    ['yesterday 09:00', AUCKLAND, '2026-11-26T20:00:00.000Z'],
    // A time that names its offset, or how long ago, is the same moment in every zone.
    ['2026-11-27T09:00Z', PARIS, '2026-11-27T09:00:00.000Z'],
    ['2026-11-27 09:00 UTC', AUCKLAND, '2026-11-27T09:00:00.000Z'],
    ['90 minutes ago', PARIS, '2026-11-28T08:45:30.250Z'],
    ['this morning', PARIS, '2026-11-28T05:00:00.000Z'],
    ['yesterday', AUCKLAND, '2026-11-26T11:00:00.000Z'],
    ['10 min ago', LOS_ANGELES, '2026-11-28T10:05:30.250Z'],
    // A zone name the runtime does not know is read at the offset Slack gave.
    ['2026-11-27T09:00', { name: 'Mars/Olympus_Mons', offsetSeconds: -3600 }, '2026-11-27T10:00:00.000Z'],
  ])('reads "%s" in %o as %s', async (typed, zone, iso) => {
    expect(await read(typed, zone)).toBe(iso);
  });

  it('reads a day of words at that day’s offset, not today’s, across a change of clocks', async () => {
    // Summer time ended in Paris on 2026-10-25: the Friday before was at +02:00, the Wednesday after at +01:00.
    const wednesday = new Date('2026-10-28T10:00:00.000Z');
    const friday = await parseTypedTime('last friday 9:00', wednesday, PARIS);
    expect(friday.ok && [friday.at.toISOString(), friday.said]).toEqual([
      '2026-10-23T07:00:00.000Z',
      '2026-10-23 09:00 Europe/Paris (07:00 UTC)',
    ]);
  });

  it('says a moment back in the zone it was read in, with UTC beside it, and in UTC to copy into a command', async () => {
    const paris = await parseTypedTime('2026-11-27 09:00', NOW, PARIS);
    expect(paris.ok && [paris.said, paris.utc]).toEqual([
      '2026-11-27 09:00 Europe/Paris (08:00 UTC)',
      '2026-11-27 08:00 UTC',
    ]);
    const midnight = await parseTypedTime('2026-11-27', NOW, PARIS);
    expect(midnight.ok && midnight.said).toBe('2026-11-27 00:00 Europe/Paris (2026-11-26 23:00 UTC)');
    expect(await read(paris.ok ? paris.utc : '', LOS_ANGELES)).toBe('2026-11-27T08:00:00.000Z');
    const toCome = await parseTypedTime('today 12:00', NOW, PARIS);
    expect(!toCome.ok && toCome.message).toContain(
      '2026-11-28 12:00 Europe/Paris (11:00 UTC) is still to come (it is 2026-11-28 11:15:30 Europe/Paris (10:15:30 UTC) now)',
    );
  });

  it.each([
    'someday',
    '2026-11-27T9:00Z',
    '2026-02-30',
    '2026-13-01',
    '2026-11-27T24:00Z',
    '2026-11-27T09:60Z',
    '2026-11-27T09:00+25:00',
    'yesterday 25:00',
    '2 hours ago at noon',
    '-3 days ago',
    '',
  ])('refuses "%s" in one sentence naming the forms it reads and the zone', async (typed) => {
    const message = await refusal(typed);
    expect(message).toContain(`is not a time Voice Ops can read. Give ${TIME_FORMS}. ${zoneSaid(undefined)}`);
    expect(message).not.toContain('\n');
  });

  it('names the person’s zone when it refuses a time', async () => {
    const parsed = await parseTypedTime('someday', NOW, PARIS);
    expect(!parsed.ok && parsed.message).toContain('read in your Slack time zone, Europe/Paris.');
  });

  it('refuses a moment still to come, saying what time it is now, and names the forms', async () => {
    const message = await refusal('today 10:16');
    expect(message).toBe(
      '2026-11-28 10:16 UTC is still to come (it is 2026-11-28 10:15:30 UTC now), and nothing has happened then ' +
        `yet. Give a time in the past: ${TIME_FORMS}.`,
    );
    expect(await refusal('2026-11-28T11:15+01:00:00')).toContain('is not a time');
    expect(await refusal('2027-01-01')).toContain('2027-01-01 00:00 UTC is still to come');
    expect(await refusal('tomorrow')).toContain('2026-11-29 00:00 UTC is still to come');
    expect(await read('2026-11-28T10:15:30.250Z')).toBe(NOW.toISOString());
  });

  it('echoes an unreadable time short, its hidden characters shown', async () => {
    expect(await refusal(`yesterday\u200B 09:00`)).toContain('"yesterday[U+200B] 09:00" is not a time');
    expect(await refusal('x'.repeat(500))).toContain(`"${'x'.repeat(60)}…" is not a time`);
  });
});
