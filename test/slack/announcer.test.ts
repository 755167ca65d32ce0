// The announcer with Slack's own Web API client against the fake Slack: a message holds at most 50 changes, so that
// a long burst never outgrows what Slack takes; the 51st change starts a new message.
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change } from '../../src/ops/index.js';
import { slackAnnouncer } from '../../src/slack/announcer.js';
import { type FakeSlack, startFakeSlack } from '../harness/fake-slack.js';
import { limitViolations, many } from '../views/support.js';

let fake: FakeSlack;
beforeAll(async () => {
  fake = await startFakeSlack();
});
afterAll(async () => {
  await fake.close();
});

describe('slackAnnouncer', () => {
  it('gathers at most 50 of one person’s changes in a message; the next one starts another', async () => {
    const client = new webApi.WebClient('xoxb-announcer-test', {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      logLevel: webApi.LogLevel.ERROR,
    });
    const at = new Date('2026-11-02T10:00:00Z');
    const announcer = slackAnnouncer(client, 'CBURST', () => at);
    const changes = many(
      51,
      (i): Change => ({
        action: 'routing.map',
        number: `+1415555${String(i).padStart(4, '0')}`,
        agent: { id: `ag_${i}`, name: `${'A long agent name '.repeat(5)}${i}` },
        previousAgent: { id: `ag_old_${i}`, name: `${'A former agent name '.repeat(5)}${i}` },
      }),
    );
    for (const change of changes) await announcer.announce({ actor: { userId: 'UBUSY', source: 'command' }, change });

    const [full, next, ...more] = fake.messages('CBURST');
    expect(more).toEqual([]);
    expect(full?.edits).toBe(49);
    expect(full?.text).toMatch(/^<@UBUSY> made 50 changes:/);
    expect(JSON.stringify(full?.blocks)).toContain('+14155550049');
    expect(JSON.stringify(full?.blocks)).not.toContain('+14155550050');
    expect(limitViolations(full?.blocks)).toEqual([]);
    expect(full?.blocks.length).toBeLessThanOrEqual(50);
    expect(next?.edits).toBe(0);
    expect(next?.text).toBe(
      '<@UBUSY> re-routed *+14155550050* (US) from ' +
        `*${'A former agent name '.repeat(5)}50* (\`ag_old_50\`) to *${'A long agent name '.repeat(5)}50* (\`ag_50\`)`,
    );
  });
});
