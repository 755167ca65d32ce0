// A replica that dies is taken over at once, not when its leases lapse: its liveness (an advisory lock of its own
// database session on Postgres, a file lock beside the SQLite file) ends with the process, the other replica sees
// that, frees its leases and resolves its changes. Leases here last ten minutes and provider calls time out after a
// minute, so that neither can explain an outcome within the test: only liveness can.
import { expect, it } from 'vitest';
import { shownText } from '../e2e/support.js';
import { BOT_TOKEN, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { type AppProcess, appEnvironment, spawnApp } from '../harness/app-process.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import {
  availableNumber,
  buyHeldAtProvider,
  inspectDatabase,
  numbersAndAgent,
  planOf,
  pressApply,
  reached,
  useProcessBed,
} from './process-support.js';
import { until } from './support.js';

const bed = useProcessBed('voice-ops-takeover-', [BOT_TOKEN, SIGNING_SECRET]);

const NO_LAPSE = { LEASE_TTL_S: '600', VOICE_API_TIMEOUT_MS: '60000', RECONCILE_INTERVAL_S: '0' };

type Replica = AppProcess & { eventsUrl: string };

async function replica(): Promise<Replica> {
  const app = spawnApp({
    via: 'node',
    env: { ...appEnvironment(bed.slack, bed.sandbox, bed.database.env), ...NO_LAPSE },
  });
  bed.started.push(app);
  return { ...app, eventsUrl: (await app.ready).eventsUrl };
}

async function kill(app: Replica): Promise<void> {
  app.child.kill('SIGKILL');
  await app.exited;
}

const tookOver = (app: Replica) =>
  until(
    () => Promise.resolve(app.entries()),
    (entries) => entries.some((entry) => String(entry.msg).startsWith('another replica stopped')),
    'the survivor to find the other replica dead',
  );

/** What the reconciler tells the requester on `answers` once it has checked with the provider. */
const reconcilerAnswer = (answers: string) =>
  bed.slack.waitFor(
    RESPONSE_URL,
    (call) => call.responseUrlId === answers && shownText(call).includes('checked with the provider'),
    { timeoutMs: 30_000 },
  );

it('a replica killed mid-buy: the other resolves the buy and tells the requester, without waiting for a lease', async () => {
  const a = await replica();
  const b = await replica();
  const number = await availableNumber(bed.sandbox, 'FR');
  const { answers, buys } = await buyHeldAtProvider(bed, a.eventsUrl, number);
  await kill(a);
  // The provider carries out the request it had, as a real one does after its client has gone.
  bed.sandbox.faults.clear();

  const told = await reconcilerAnswer(answers);
  expect(shownText(told)).toContain(`Bought *${number}*`);
  await tookOver(b);
  const { trail, events } = await inspectDatabase(bed.database);
  expect(trail).toEqual(['number.buy requested', 'number.buy confirmed', 'number.buy succeeded']);
  expect(events.at(-1)?.params).toEqual({ reconciled: true });
  expect(bed.sandbox.requestCount('buyNumber') - buys).toBe(1);
});

it("a dead replica's change the provider could not show at the first look is resolved at a later one", async () => {
  const a = await replica();
  const b = await replica();
  const number = await availableNumber(bed.sandbox, 'FR');
  const { answers, buys } = await buyHeldAtProvider(bed, a.eventsUrl, number);
  // The provider's purchased list cannot be read when the other replica first looks at the dead one's buy.
  bed.sandbox.faults.inject('listPurchasedNumbers', { type: 'status', status: 503 });
  await kill(a);
  await tookOver(b);
  await until(
    () => Promise.resolve(b.entries()),
    (entries) =>
      entries.some((entry) => String(entry.msg).startsWith('the provider did not answer the reconciliation')),
    'the first look to meet the provider down',
  );
  // The provider answers again, and carries out the buy it held.
  bed.sandbox.faults.clear();

  const told = await reconcilerAnswer(answers);
  expect(shownText(told)).toContain(`Bought *${number}*`);
  const { trail } = await inspectDatabase(bed.database);
  expect(trail).toEqual(['number.buy requested', 'number.buy confirmed', 'number.buy succeeded']);
  expect(bed.sandbox.requestCount('buyNumber') - buys).toBe(1);
});

it('a replica killed mid-batch: the other settles the items under way and tells where the batch stopped', async () => {
  const count = 6;
  const agentId = await numbersAndAgent(bed.sandbox, 'NL', count, { name: 'Utrecht desk', language: 'nl-NL' });
  const a = await replica();
  const b = await replica();
  const plan = await planOf(bed.slack, a.eventsUrl, `map NL to ${agentId}`);
  bed.sandbox.faults.inject('mapNumber', { type: 'hold' });
  const maps = bed.sandbox.requestCount('mapNumber');
  await pressApply(bed.slack, a.eventsUrl, plan);
  // A batch runs four items at a time: all four are held at the provider when the replica dies.
  const reachedMaps = 4;
  await reached(bed.sandbox, 'mapNumber', maps, reachedMaps);
  await kill(a);
  bed.sandbox.faults.clear();

  const told = await bed.slack.waitFor(
    'chat.postEphemeral',
    (call) => call.body.user === OPERATOR && shownText(call).includes('stopped at'),
    { timeoutMs: 30_000 },
  );
  expect(shownText(told)).toContain(`stopped at ${reachedMaps} of ${count}`);
  await tookOver(b);
  const rows = await (await bed.database.sql()).all<{ state: string; n: number | string }>(
    'SELECT state, COUNT(*) AS n FROM batch_items GROUP BY state',
  );
  const states = Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]));
  expect(states).toEqual({ succeeded: reachedMaps, pending: count - reachedMaps });
});
