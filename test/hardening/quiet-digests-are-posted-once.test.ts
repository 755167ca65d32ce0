// A quiet subscription gets no message per change but a digest: posted at a background pass once it is due (09:00
// UTC, or at once for a channel that never had one), by the one replica holding the background lease, and once
// however many replicas pass. Real processes on this run's engine, one fake Slack, one sandbox.
import { expect, it } from 'vitest';
import { BOT_TOKEN, NOTIFY_CHANNEL, SIGNING_SECRET } from '../harness/app.js';
import { askToBuy, availableNumber, outcome, pressConfirm, startReplicas, useProcessBed } from './process-support.js';
import { until } from './support.js';

const bed = useProcessBed('voice-ops-digests-', [BOT_TOKEN, SIGNING_SECRET]);

const QUIET = 'CQUIETDIGEST';
const subscriptions = [{ channel: QUIET, kinds: ['buy'], labels: [], without: [], owners: [], quiet: true }];

const postsIn = (channel: string) =>
  bed.slack.calls('chat.postMessage').filter((call) => call.body.channel === channel);

it('a quiet subscription gets one digest of a change made on one replica, however many replicas pass', async () => {
  const [a, b] = await startReplicas(bed, 2, {
    VOICE_SUBSCRIPTIONS: JSON.stringify(subscriptions),
    RECONCILE_INTERVAL_S: '1',
  });
  if (!a || !b) throw new Error('two replicas');
  const number = await availableNumber(bed.sandbox, 'US');
  const confirmationId = await askToBuy(bed.slack, a.eventsUrl, number);
  await outcome(bed.slack, await pressConfirm(bed.slack, b.eventsUrl, confirmationId));

  const [digest] = await until(
    () => postsIn(QUIET),
    (posts) => posts.length > 0,
    'the digest',
  );
  expect(String(digest?.body.text)).toContain('Digest: 1 change');
  expect(JSON.stringify(digest?.body.blocks)).toContain(number);
  // The announcements channel gets it as ever, whether before or after the digest's pass.
  const announced = () => postsIn(NOTIFY_CHANNEL).some((call) => JSON.stringify(call.body).includes(number));
  await until(announced, Boolean, 'the announcement');

  // Several more passes, on whichever replica holds the lease: nothing more is posted until the next day's 09:00.
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  expect(postsIn(QUIET)).toHaveLength(1);
  const sql = await bed.database.sql();
  expect(await sql.all('SELECT id FROM digest_lines')).toEqual([]);
  expect(await sql.all('SELECT channel FROM digests')).toEqual([{ channel: QUIET }]);
});
