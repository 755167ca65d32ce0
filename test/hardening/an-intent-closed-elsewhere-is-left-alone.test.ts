// A reconciliation pass that finds a change interrupted, and meanwhile sees another replica resolve it first, leaves
// it alone: no second audit row, no second word to the requester, no announcement. The other replica is played by a
// store of the test's own on the same database, which closes the intent while the pass's read of the provider is
// held; the pass then reads its answer (it ends ok, so it did reach its close) and finds the intent closed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Intents } from '../../src/store/intents.js';
import { announcementCalls, auditRows, voiceNumber, waitUntil } from '../e2e/support.js';
import { OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { metricValue } from '../harness/metrics.js';
import { callsSince } from './support.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

it('a pass that finds the intent closed by another replica tells, audits and announces nothing', async () => {
  const number = await voiceNumber(t, 'AU');
  // Opened an hour ago by a replica that then died mid-buy: settled, and not under way anywhere.
  const elsewhere = new Intents(await t.database.sql(), { now: () => new Date(Date.now() - 3_600_000) });
  const correlationId = randomUUID();
  await elsewhere.open({
    correlationId,
    action: 'number.buy',
    change: { kind: 'number.buy', number },
    actor: { userId: OPERATOR, source: 'command' },
    replyAddress: t.slack.respondUrl('left-waiting'),
  });
  const reads = t.sandbox.requestCount('listPurchasedNumbers');
  const since = t.slack.mark();
  const announcementsBefore = announcementCalls(t).length;
  t.sandbox.faults.inject('listPurchasedNumbers', { type: 'hold' });

  const pass = t.app.reconcile();
  await waitUntil(() => t.sandbox.requestCount('listPurchasedNumbers') > reads, 'the pass to ask the provider');
  expect(await elsewhere.close(correlationId, 'failed')).toBe(true);
  t.sandbox.faults.clear();
  await pass;
  await t.settled();

  expect(await metricValue(t.app.probesUrl, 'voice_ops_reconciler_last_pass_ok')).toBe(1);
  expect((await auditRows(t)).filter((row) => row.correlation_id === correlationId)).toEqual([]);
  expect(callsSince(t, RESPONSE_URL, since).filter((call) => call.responseUrlId === 'left-waiting')).toEqual([]);
  expect(announcementCalls(t).length).toBe(announcementsBefore);
});
