// Changes made outside Voice Ops (straight through the provider's API, as its dashboard would) are noticed by the
// reconciler: the first read is the baseline, every later difference is audited once with source `provider`,
// routing records it invalidates are dropped and audited, and all of it is announced in one message, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderClient } from '../../src/provider/index.js';
import { callsSince } from '../hardening/support.js';
import { NOTIFY_CHANNEL, OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { auditRows, buyThroughApp, createAgentThroughApp, mapThroughApp, shownText, voiceNumber } from './support.js';

let t: TestApp;
let outside: ProviderClient;
beforeAll(async () => {
  t = await startTestApp();
  // Someone with the provider's key, working in its dashboard or scripts: no Voice Ops involved.
  outside = new ProviderClient({ baseUrl: t.sandbox.url, apiKey: t.sandbox.apiKey, timeoutMs: 2_000 });
  await t.app.reconcile();
});
afterAll(async () => {
  await outside?.close();
  await t?.close();
});

const providerRows = async () => (await auditRows(t)).filter((row) => row.source === 'provider');
const outsideAnnouncements = (since: number) =>
  callsSince(t, 'chat.postMessage', since).filter(
    (call) => call.body.channel === NOTIFY_CHANNEL && shownText(call).includes('outside Voice Ops'),
  );

describe('the reconciler', () => {
  it('takes its first read as the baseline: nothing is news', async () => {
    expect(await providerRows()).toEqual([]);
  });

  it('audits, corrects and announces once what changed outside, and nothing it made itself', async () => {
    // Made through Voice Ops: never reported as outside changes.
    const { agent } = await createAgentThroughApp(t, OPERATOR, 'Inside desk');
    const routed = await voiceNumber(t, 'AU');
    await buyThroughApp(t, OPERATOR, routed);
    await mapThroughApp(t, OPERATOR, routed, agent.id);

    // Made outside: a number bought, an agent created, and the routed number released.
    const bought = await voiceNumber(t, 'AU', 1);
    await outside.buyNumber(bought);
    const created = await outside.createAgent({ name: 'Dashboard desk', language: 'en-GB' });
    const routedId = (await outside.listPurchasedNumbers()).find((entry) => entry.number === routed)?.id ?? '';
    await outside.releaseNumber(routedId);

    const since = t.slack.mark();
    await t.app.reconcile();

    const rows = await providerRows();
    expect(rows.map((row) => [row.action, row.target, row.outcome, row.actor_name]).sort()).toEqual(
      [
        ['agent.create', created.id, 'succeeded', 'outside Voice Ops'],
        ['number.buy', bought, 'succeeded', 'outside Voice Ops'],
        ['number.release', routed, 'succeeded', 'outside Voice Ops'],
        ['routing.drop', routed, 'succeeded', 'outside Voice Ops'],
      ].sort(),
    );
    const [announcement, ...more] = outsideAnnouncements(since);
    expect(more).toEqual([]);
    const text = shownText(announcement ?? ({ method: '', body: {}, at: 0 } as never));
    expect(text).toContain('3 changes were made outside Voice Ops');
    for (const expected of [bought, routed, 'Dashboard desk']) expect(text).toContain(expected);
    expect(text).not.toContain('Inside desk');

    // The dropped route no longer shows: the released number is gone from the app's records.
    const listed = await t.command('numbers');
    expect(shownText(await t.respondedTo(listed.responseUrlId))).not.toContain(routed);
  });

  it('reports each outside change once: a second pass finds nothing new', async () => {
    const before = (await providerRows()).length;
    const since = t.slack.mark();
    await t.app.reconcile();
    expect(await providerRows()).toHaveLength(before);
    expect(outsideAnnouncements(since)).toEqual([]);
  });

  it('changes nothing while the provider does not answer, and says so once', async () => {
    const deleted = (await outside.listAgents()).find((agent) => agent.name === 'Dashboard desk');
    await outside.deleteAgent(deleted?.id ?? '');
    t.sandbox.faults.inject('listAgents', { type: 'status', status: 503 });
    const warnings = () => t.logs.lines().filter((line) => line.includes('did not answer the reconciliation')).length;
    const before = (await providerRows()).length;
    try {
      await t.app.reconcile();
      await t.app.reconcile();
      expect(await providerRows()).toHaveLength(before);
      expect(warnings()).toBe(1);
    } finally {
      t.sandbox.faults.clear();
    }
    await t.app.reconcile();
    expect((await providerRows()).slice(before).map((row) => [row.action, row.target])).toEqual([
      ['agent.delete', deleted?.id],
    ]);
  });
});
