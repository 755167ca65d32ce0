// Which changes a subscription picks: its kinds, then its filter read on the tags of what the change touched, each
// untagged number or agent reading as no labels and no owner.
import { describe, expect, it } from 'vitest';
import { destinationsOf, subscribes } from '../../src/ops/subscriptions.js';
import { DEFAULT_SETTINGS, type Subscription } from '../../src/settings-schema.js';
import { NO_TAGS } from '../../src/store/tags.js';

const everything: Subscription = { channel: 'CALL', kinds: [], labels: [], without: [], owners: [], quiet: false };
const sales = { labels: ['team:sales'], owner: 'SSALES' };

describe('a subscription', () => {
  it('picks the kinds it names, every kind when it names none', () => {
    expect(subscribes(everything, 'settings', [])).toBe(true);
    expect(subscribes({ ...everything, kinds: ['route'] }, 'route', [NO_TAGS])).toBe(true);
    expect(subscribes({ ...everything, kinds: ['route'] }, 'buy', [NO_TAGS])).toBe(false);
  });

  it('reads its filter on any of the tags a change touched: labels all there, none excluded, one of its owners', () => {
    const filtered = { ...everything, labels: ['team:sales'], without: ['test'], owners: ['SSALES'] };
    expect(subscribes(filtered, 'route', [NO_TAGS, sales])).toBe(true);
    expect(subscribes(filtered, 'route', [{ ...sales, labels: ['team:sales', 'test'] }])).toBe(false);
    expect(subscribes(filtered, 'route', [{ labels: ['team:sales'] }])).toBe(false);
    expect(subscribes({ ...everything, without: ['test'] }, 'route', [NO_TAGS])).toBe(true);
    expect(subscribes({ ...everything, without: ['test'] }, 'settings', [])).toBe(false);
  });

  it('never posts in the announcements channel twice, and keeps quiet ones for their digest', () => {
    const settings = {
      ...DEFAULT_SETTINGS,
      announcementsChannel: 'CNOTIFY',
      subscriptions: [
        { ...everything, channel: 'CNOTIFY' },
        { ...everything, channel: 'CLOUD' },
        { ...everything, channel: 'CQUIET', quiet: true },
      ],
    };
    expect(destinationsOf(settings, 'buy', [NO_TAGS])).toEqual({
      announcements: 'CNOTIFY',
      subscribed: ['CLOUD'],
      quiet: ['CQUIET'],
    });
  });
});
