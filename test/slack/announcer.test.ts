// The announcer with Slack's own Web API client against the fake Slack: a message holds at most 50 changes, so that
// a long burst never outgrows what Slack takes; the 51st change starts a new message.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change } from '../../src/ops/api.js';
import { BURST_MS, slackAnnouncer } from '../../src/slack/announcer.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { type FakeSlack, startFakeSlack } from '../harness/fake-slack.js';
import { limitViolations, many } from '../views/support.js';

let fake: FakeSlack;
beforeAll(async () => {
  fake = await startFakeSlack();
});
afterAll(async () => {
  await fake.close();
});

/** Slack's own Web API client, pointed at the fake. */
function slackClient(): webApi.WebClient {
  return new webApi.WebClient('xoxb-announcer-test', {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: webApi.LogLevel.ERROR,
  });
}

describe('slackAnnouncer', () => {
  it('gathers at most 48 of one person’s changes in a message; the next one starts another', async () => {
    const client = slackClient();
    const at = new Date('2026-11-02T10:00:00Z');
    const store = await openStore({ kind: 'sqlite', path: ':memory:' });
    const announcer = slackAnnouncer(client, store, () => at);
    const changes = many(
      49,
      (i): Change => ({
        action: 'routing.map',
        number: `+1415555${String(i).padStart(4, '0')}`,
        agent: { id: `ag_${i}`, name: `${'A long agent name '.repeat(5)}${i}` },
        previousAgent: { id: `ag_old_${i}`, name: `${'A former agent name '.repeat(5)}${i}` },
      }),
    );
    for (const change of changes) {
      await announcer.announce({ actor: { userId: 'UBUSY', source: 'command' }, change }, async () => ({
        announcements: 'CBURST',
        subscribed: [],
      }));
    }

    const [full, next, ...more] = fake.messages('CBURST');
    expect(more).toEqual([]);
    expect(full?.edits).toBe(47);
    expect(full?.text).toMatch(/^<@UBUSY> made 48 changes:/);
    expect(JSON.stringify(full?.blocks)).toContain('+14155550047');
    expect(JSON.stringify(full?.blocks)).not.toContain('+14155550048');
    expect(limitViolations(full?.blocks)).toEqual([]);
    expect(full?.blocks.length).toBeLessThanOrEqual(50);
    expect(next?.edits).toBe(0);
    expect(next?.text).toBe(
      '<@UBUSY> re-routed *+14155550048* (US) from ' +
        `*${'A former agent name '.repeat(5)}48* (\`ag_old_48\`) to *${'A long agent name '.repeat(5)}48* (\`ag_48\`)`,
    );
    await store.close();
  });

  it('keeps a person’s open message in the store: a restarted process rewrites it within the minute, then posts anew', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voice-ops-announcer-'));
    const path = join(dir, 'voice-ops.db');
    let at = new Date('2026-11-02T11:00:00Z');
    const buy = (i: number): Change => ({ action: 'number.buy', number: { id: `pn_${i}`, number: `+1415666000${i}` } });
    const announceWith = async (store: Store, i: number) =>
      slackAnnouncer(slackClient(), store, () => at).announce(
        { actor: { userId: 'URESTART', source: 'command' }, change: buy(i) },
        async () => ({ announcements: 'CRESTART', subscribed: [] }),
      );
    try {
      const before = await openStore({ kind: 'sqlite', path });
      await announceWith(before, 1);
      await before.close();

      // Another process on the same database, half a minute later: the same message, rewritten.
      at = new Date(at.getTime() + BURST_MS / 2);
      const after = await openStore({ kind: 'sqlite', path });
      await announceWith(after, 2);
      expect(fake.messages('CRESTART').map((message) => message.edits)).toEqual([1]);
      expect(fake.messages('CRESTART')[0]?.text).toMatch(/^<@URESTART> made 2 changes:/);

      // A minute after the post, the next change starts a message of its own.
      at = new Date(at.getTime() + BURST_MS / 2);
      await announceWith(after, 3);
      expect(fake.messages('CRESTART').map((message) => message.edits)).toEqual([1, 0]);
      await after.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
