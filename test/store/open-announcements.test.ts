// Each person's open announcement message on both engines: one per person, replaced, forgotten, or aged out.
import { describe, expect, it } from 'vitest';
import { type OpenAnnouncement, OpenAnnouncements } from '../../src/store/open-announcements.js';
import { ENGINES, useTempDatabases } from './helpers.js';

const message = (messageTs: string, postedAt: string, changes: unknown[] = []): OpenAnnouncement => ({
  channelId: 'C0001',
  messageTs,
  changes,
  postedAt,
});

describe.each(ENGINES)('OpenAnnouncements on %s', (engine) => {
  const temp = useTempDatabases(engine);

  it("keeps a person's open message with the changes it lists, and replaces it with their next", async () => {
    const open = new OpenAnnouncements(await temp.open());
    expect(await open.get('U_ADA')).toBeUndefined();

    const first = message('1.0001', '2026-11-01T09:00:00.000Z', [{ kind: 'number.buy', target: '+15550100' }]);
    await open.keep('U_ADA', first);
    expect(await open.get('U_ADA')).toEqual(first);

    const next = message('1.0002', '2026-11-01T09:10:00.000Z', [{ kind: 'agent.create' }, 'note', 3]);
    await open.keep('U_ADA', next);
    expect(await open.get('U_ADA')).toEqual(next);
    expect(await open.get('U_BOB')).toBeUndefined();
  });

  it("forgets one person's message, and every message posted at or before a time", async () => {
    const open = new OpenAnnouncements(await temp.open());
    await open.keep('U_ADA', message('1.0001', '2026-11-01T09:00:00.000Z'));
    await open.keep('U_BOB', message('1.0002', '2026-11-01T09:05:00.000Z'));
    await open.keep('U_CAROL', message('1.0003', '2026-11-01T09:10:00.000Z'));
    await open.keep('U_DAN', message('1.0004', '2026-11-01T09:15:00.000Z'));

    await open.forget('U_DAN');
    await open.forget('U_NOBODY');
    await open.forgetPostedBy(new Date('2026-11-01T09:05:00.000Z'));

    expect(await open.get('U_ADA')).toBeUndefined();
    expect(await open.get('U_BOB')).toBeUndefined();
    expect(await open.get('U_CAROL')).toEqual(message('1.0003', '2026-11-01T09:10:00.000Z'));
    expect(await open.get('U_DAN')).toBeUndefined();
  });
});
