// Several app processes on one database behave as one app: what one replica asks for another confirms; two clicks
// on two replicas make one change; a Slack retry that reaches another replica is dropped; a replica killed
// mid-change is resolved by another, once; replicas started together on an empty database all come up; the audit log
// stays one chain; an outside change is announced once; and one person's changes share one announcement whichever
// replica made them. Real processes, one fake Slack, one sandbox, and this run's engine (a SQLite file or a Postgres
// database).
import { expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { verifyChain } from '../../src/store/audit-chain.js';
import { LATEST_VERSION } from '../../src/store/migrations.js';
import { ProviderSnapshot } from '../../src/store/provider-snapshot.js';
import { blocksOf, onlyButton, shownText } from '../e2e/support.js';
import { BOT_TOKEN, NOTIFY_CHANNEL, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { metricValue } from '../harness/metrics.js';
import { slashCommand } from '../harness/payloads.js';
import { postToSlackApp } from '../harness/signing.js';
import {
  askToBuy,
  availableNumber,
  buyHeldAtProvider,
  inspectDatabase,
  numbersAndAgent,
  outcome,
  pressConfirm,
  providerCall,
  purchased,
  type Replica,
  startReplicas,
  useProcessBed,
} from './process-support.js';
import { until } from './support.js';

const bed = useProcessBed('voice-ops-replicas-', [BOT_TOKEN, SIGNING_SECRET]);

const replicas = (count: number, env: Record<string, string> = {}) => startReplicas(bed, count, env);

const announcements = () => bed.slack.calls('chat.postMessage').filter((call) => call.body.channel === NOTIFY_CHANNEL);

/** Where a replica serves /metrics. */
const baseUrlOf = (replica: Replica) => replica.eventsUrl.replace('/slack/events', '');

/**
 * When the provider's state the reconciler compares with was read: the start of the last pass that compared, written
 * in one transaction with whatever that pass audited.
 */
async function snapshotTakenAt(): Promise<Date | undefined> {
  const at = await new ProviderSnapshot(await bed.database.sql()).takenAt();
  return at === undefined ? undefined : new Date(at);
}

it('a confirmation asked for on one replica is confirmed on another', async () => {
  const [a, b] = await replicas(2);
  if (!a || !b) throw new Error('two replicas');
  const number = await availableNumber(bed.sandbox, 'CA');
  const buys = bed.sandbox.requestCount('buyNumber');
  const confirmationId = await askToBuy(bed.slack, a.eventsUrl, number);
  expect(shownText(await outcome(bed.slack, await pressConfirm(bed.slack, b.eventsUrl, confirmationId)))).toContain(
    `Bought *${number}*`,
  );
  expect(bed.sandbox.requestCount('buyNumber') - buys).toBe(1);
  expect((await inspectDatabase(bed.database)).trail).toEqual([
    'number.buy requested',
    'number.buy confirmed',
    'number.buy succeeded',
  ]);
});

it('Confirm pressed on two replicas at once makes one change', async () => {
  const [a, b] = await replicas(2);
  if (!a || !b) throw new Error('two replicas');
  const number = await availableNumber(bed.sandbox, 'BR');
  const buys = bed.sandbox.requestCount('buyNumber');
  const confirmationId = await askToBuy(bed.slack, a.eventsUrl, number);
  const pressed = await Promise.all(
    [a, b].map((replica) => pressConfirm(bed.slack, replica.eventsUrl, confirmationId)),
  );
  const shown = (await Promise.all(pressed.map((id) => outcome(bed.slack, id)))).map(shownText);
  expect(shown.filter((text) => text.includes(`Bought *${number}*`))).toHaveLength(1);
  // The other click lost the claim (not the number's lock, which a second winner would have met).
  expect(shown.filter((text) => /already used|That change is under way/.test(text))).toHaveLength(1);
  expect(bed.sandbox.requestCount('buyNumber') - buys).toBe(1);
  expect((await inspectDatabase(bed.database)).trail).toEqual([
    'number.buy requested',
    'number.buy confirmed',
    'number.buy succeeded',
  ]);
  expect((await purchased(bed.sandbox)).filter((entry) => entry === number)).toHaveLength(1);
});

it('a replica killed mid-buy is resolved by another replica: audited, announced and told once', async () => {
  const env = { VOICE_API_TIMEOUT_MS: '1000' };
  const [a, b] = await replicas(2, env);
  if (!a || !b) throw new Error('two replicas');
  const number = await availableNumber(bed.sandbox, 'IN');
  const { answers, buys } = await buyHeldAtProvider(bed, a.eventsUrl, number);
  a.child.kill('SIGKILL');
  await a.exited;
  const announcedBefore = announcements().length;
  bed.sandbox.faults.clear();

  const told = await bed.slack.waitFor(
    RESPONSE_URL,
    (call) => call.responseUrlId === answers && shownText(call).includes('checked with the provider'),
    { timeoutMs: 45_000 },
  );
  expect(shownText(told)).toContain(`Bought *${number}*`);
  await until(
    async () => (await inspectDatabase(bed.database)).trail,
    (trail) => trail.at(-1) === 'number.buy succeeded',
    'the reconciled outcome in the audit',
  );
  // The surviving replica stops, its work done; the replica started after it takes the background work over, and its
  // first pass, which would resolve the buy again were it left open, ends having found nothing left to do.
  b.child.kill('SIGTERM');
  expect(await b.exited).toEqual({ code: 0, signal: null });
  const [c] = await replicas(1, env);
  if (!c) throw new Error('a third replica');
  await until(
    () => metricValue(baseUrlOf(c), 'voice_ops_reconciler_last_pass_timestamp_seconds'),
    (at) => at > 0,
    "the third replica's first pass",
  );
  expect(await metricValue(baseUrlOf(c), 'voice_ops_reconciler_last_pass_ok'), 'it read the provider').toBe(1);
  const { trail, events } = await inspectDatabase(bed.database);
  expect(trail).toEqual(['number.buy requested', 'number.buy confirmed', 'number.buy succeeded']);
  expect(events.at(-1)?.params).toEqual({ reconciled: true });
  expect(
    bed.slack
      .calls(RESPONSE_URL)
      .filter((call) => call.responseUrlId === answers && shownText(call).includes('checked with the provider')),
  ).toHaveLength(1);
  expect(announcements().length - announcedBefore).toBe(1);
  expect(bed.sandbox.requestCount('buyNumber') - buys).toBe(1);
});

it('a Slack retry that reaches another replica is dropped: the command acts once', async () => {
  const [a, b] = await replicas(2);
  if (!a || !b) throw new Error('two replicas');
  const number = await availableNumber(bed.sandbox, 'AU');
  const id = 'replica-retry';
  const body = slashCommand({
    text: `numbers buy ${number}`,
    userId: OPERATOR,
    triggerId: 'T-RETRIED-ACROSS-REPLICAS',
    responseUrl: bed.slack.respondUrl(id),
  });
  expect((await postToSlackApp(a.eventsUrl, SIGNING_SECRET, body)).status).toBe(200);
  await bed.slack.waitFor(RESPONSE_URL, (call) => call.responseUrlId === id);
  expect((await postToSlackApp(b.eventsUrl, SIGNING_SECRET, body, { retryNum: 1 })).status).toBe(200);
  await until(
    () => b.entries().some((entry) => entry.msg === 'dropped a repeated delivery'),
    Boolean,
    'the other replica to drop the retry',
  );
  expect(bed.slack.calls(RESPONSE_URL).filter((call) => call.responseUrlId === id)).toHaveLength(1);
  const { confirmations, trail } = await inspectDatabase(bed.database);
  expect(confirmations).toHaveLength(1);
  expect(trail).toEqual(['number.buy requested']);
});

let commands = 0;

/** A command from the operator to one replica: its answer, once the replica stopped working on it. */
async function answerTo(replica: Replica, text: string) {
  const id = `replicas-command-${++commands}`;
  const body = slashCommand({ text, userId: OPERATOR, responseUrl: bed.slack.respondUrl(id) });
  const acked = await postToSlackApp(replica.eventsUrl, SIGNING_SECRET, body);
  expect(acked.status).toBe(200);
  bed.slack.showAcknowledgement(id, acked.json);
  return outcome(bed.slack, id);
}

/** An agent's row on a page of agents: its name and id, then its status, language and numbers. */
async function rowOf(replica: Replica, agentName: string): Promise<string> {
  const page = shownText(await answerTo(replica, 'agents'));
  return page
    .slice(page.indexOf(`*${agentName}*`))
    .split('\n')
    .slice(0, 2)
    .join('\n');
}

it("a page of agents shows another replica's map at the next command, though this one read the page before", async () => {
  const [a, b] = await replicas(2);
  if (!a || !b) throw new Error('two replicas');
  const bonn = await numbersAndAgent(bed.sandbox, 'DE', 1, { name: 'Bonn desk', language: 'de-DE' });
  const koeln = String(
    (await providerCall(bed.sandbox, 'POST', '/ai-agents', { name: 'Köln desk', language: 'de-DE' })).id,
  );
  const [number] = (await purchased(bed.sandbox)).filter((owned) => owned.startsWith('+49'));
  if (!number) throw new Error('a German number');
  expect(await rowOf(b, 'Bonn desk')).toContain('no numbers routed');

  expect(shownText(await answerTo(a, `map ${number} ${bonn}`))).toContain('Routed');
  expect(await rowOf(b, 'Bonn desk')).toContain(number);

  // And back the other way: a re-route confirmed through B moves the number on the page A read since.
  expect(await rowOf(a, 'Bonn desk')).toContain(number);
  const asked = await answerTo(b, `map ${number} ${koeln}`);
  const confirmed = await pressConfirm(bed.slack, b.eventsUrl, onlyButton(blocksOf(asked), ACTION.confirmChange));
  expect(shownText(await outcome(bed.slack, confirmed))).toContain('Re-routed');
  expect(await rowOf(a, 'Bonn desk')).toContain('no numbers routed');
  expect(await rowOf(a, 'Köln desk')).toContain(number);
});

it('three replicas started together on an empty database all come up, on the schema this code knows', async () => {
  // Without the migrations' lock, a replica would meet another's half-made schema and stop.
  const started = await replicas(3);
  expect(started).toHaveLength(3);
  const db = await bed.database.sql();
  const version =
    bed.database.target.kind === 'sqlite'
      ? (await db.get<{ user_version: number }>('PRAGMA user_version'))?.user_version
      : (await db.all<{ version: number }>('SELECT version FROM voice_ops_schema')).map((row) => row.version);
  expect(version).toEqual(bed.database.target.kind === 'sqlite' ? LATEST_VERSION : [LATEST_VERSION]);
});

it('the audit log stays one chain with appends from three replicas at once', async () => {
  const started = await replicas(3);
  const regions = ['GB', 'DE', 'FR'];
  await Promise.all(
    started.map(async (replica, index) => {
      const number = await availableNumber(bed.sandbox, regions[index]);
      const confirmationId = await askToBuy(bed.slack, replica.eventsUrl, number);
      await outcome(bed.slack, await pressConfirm(bed.slack, replica.eventsUrl, confirmationId));
    }),
  );
  const { events, count } = await inspectDatabase(bed.database);
  // Three buys of three rows each, and one row for the settings the configuration gave: written once, by whichever
  // replica started first.
  expect(count).toBe(10);
  expect(events.filter((event) => event.action === 'settings.change')).toHaveLength(1);
  expect(events.map((event) => event.id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  expect(await verifyChain(await bed.database.sql())).toMatchObject({ ok: true, rows: 10 });
});

it('a change made outside the app is audited and announced once, however many replicas watch', async () => {
  const watching = await replicas(3, { RECONCILE_INTERVAL_S: '1' });
  // The first pass of the replica holding the lease takes the baseline: a buy made after it is news.
  await until(snapshotTakenAt, (at) => at !== undefined, 'the baseline');
  const number = await availableNumber(bed.sandbox, 'JP');
  const response = await fetch(`${bed.sandbox.url}/buy-phone-number`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bed.sandbox.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ number }),
  });
  expect(response.ok).toBe(true);
  await until(
    async () => (await inspectDatabase(bed.database)).events.filter((event) => event.source === 'provider'),
    (rows) => rows.length > 0,
    'the outside buy in the audit',
  );
  // Two more passes, each of which read the provider after the buy was audited: still one row and one announcement.
  let seen = new Date();
  for (let pass = 0; pass < 2; pass++) {
    const after = seen;
    seen = (await until(snapshotTakenAt, (at) => at !== undefined && at > after, 'a later pass')) ?? after;
  }
  const outside = (await inspectDatabase(bed.database)).events.filter((event) => event.source === 'provider');
  expect(outside.map((event) => `${event.action} ${event.target}`)).toEqual([`number.buy ${number}`]);
  // One replica runs the passes: the one holding the background lease.
  const held = await Promise.all(
    watching.map(async (replica) => {
      const text = await (await fetch(`${baseUrlOf(replica)}/metrics`)).text();
      return Number(/^voice_ops_background_lease_held\{[^}]*\} (\d)$/m.exec(text)?.[1]);
    }),
  );
  expect(held.sort()).toEqual([0, 0, 1]);
  expect(announcements().filter((call) => JSON.stringify(call.body).includes(number))).toHaveLength(1);
});

it("one person's changes through two replicas within a minute share one announcement", async () => {
  const [a, b] = await replicas(2);
  if (!a || !b) throw new Error('two replicas');
  const before = announcements().length;
  for (const [replica, region] of [
    [a, 'US'],
    [b, 'NL'],
  ] as const) {
    const number = await availableNumber(bed.sandbox, region);
    const confirmationId = await askToBuy(bed.slack, replica.eventsUrl, number);
    expect(
      shownText(await outcome(bed.slack, await pressConfirm(bed.slack, replica.eventsUrl, confirmationId))),
    ).toContain('Bought');
  }
  await until(
    () => bed.slack.calls('chat.update').filter((call) => call.body.channel === NOTIFY_CHANNEL),
    (updates) => updates.length > 0,
    'the announcement to be rewritten',
  );
  expect(announcements().length - before).toBe(1);
  const [update] = bed.slack.calls('chat.update').filter((call) => call.body.channel === NOTIFY_CHANNEL);
  expect(String(update?.body.text)).toMatch(/made 2 changes/);
});
