// Two replicas on one Postgres database whose hosts' clocks disagree by four minutes: one runs two minutes ahead,
// the other two minutes behind (libfaketime moves each process's clock; both stay inside Slack's five-minute
// signature window). Every expiry they compare is the database's time, so neither takes a lease the other holds,
// reconciles a change the other still runs, or starts a change on a number the other is changing.
// On SQLite every process shares one host's clock, and SQLite reads it: there the same path is the proof
// (test/store/one-clock-and-liveness.test.ts keeps the host's clock out of what replicas compare).
import { describe, expect, it } from 'vitest';
import { shownText } from '../e2e/support.js';
import { BOT_TOKEN, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { type AppProcess, appEnvironment, FAKETIME_MISSING, spawnApp } from '../harness/app-process.js';
import { TEST_ENGINE } from '../harness/database.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { slashCommand } from '../harness/payloads.js';
import { postToSlackApp } from '../harness/signing.js';
import {
  availableNumber,
  buyHeldAtProvider,
  inspectDatabase,
  numbersAndAgent,
  outcome,
  purchased,
  reached,
  useProcessBed,
} from './process-support.js';
import { until } from './support.js';

const bed = useProcessBed('voice-ops-skew-', [BOT_TOKEN, SIGNING_SECRET]);

const AHEAD_S = 120;
const BEHIND_S = -120;

type Replica = AppProcess & { eventsUrl: string };

async function replica(clockOffsetS: number, env: Record<string, string> = {}): Promise<Replica> {
  const app = spawnApp({
    via: 'node',
    env: { ...appEnvironment(bed.slack, bed.sandbox, bed.database.env), RECONCILE_INTERVAL_S: '0', ...env },
    clockOffsetS,
  });
  bed.started.push(app);
  const { eventsUrl } = await app.ready;
  // The process's clock really is moved: its log stamps its ready line that far from this process's time.
  const ready = app.entries().find((entry) => entry.msg === 'Voice Ops is ready');
  expect(Math.abs(Date.parse(String(ready?.time)) - Date.now() - clockOffsetS * 1000)).toBeLessThan(20_000);
  return { ...app, eventsUrl };
}

const logged = (app: Replica, message: string) => app.entries().filter((entry) => entry.msg === message).length;

/** Starts a replica and waits until it runs the background work, so that the next one started must not take it. */
async function holderOfBackground(clockOffsetS: number, env?: Record<string, string>): Promise<Replica> {
  const app = await replica(clockOffsetS, env);
  await until(
    () => Promise.resolve(logged(app, 'this replica runs the background work')),
    (count) => count > 0,
    'the first replica to take the background lease',
  );
  return app;
}

async function background(): Promise<{ holder: string; expiresAt: string } | undefined> {
  return (await bed.database.sql()).get<{ holder: string; expiresAt: string }>(
    'SELECT holder, expires_at AS "expiresAt" FROM leases WHERE name = \'background\'',
  );
}

let replies = 0;
async function command(app: Replica, text: string): Promise<string> {
  const id = `skew-${++replies}`;
  const body = slashCommand({ text, userId: OPERATOR, responseUrl: bed.slack.respondUrl(id) });
  expect((await postToSlackApp(app.eventsUrl, SIGNING_SECRET, body)).status).toBe(200);
  return id;
}

// Without libfaketime the test is left out with a message, except in CI, where its absence fails the run.
const leftOut = FAKETIME_MISSING !== undefined && !process.env.CI;
if (leftOut && TEST_ENGINE === 'postgres') process.stderr.write(`${FAKETIME_MISSING} Its tests are left out.\n`);

describe.skipIf(TEST_ENGINE !== 'postgres' || leftOut)('replicas whose clocks are minutes apart, on Postgres', () => {
  it('the replica ahead never takes the background lease from the live holder behind', async () => {
    const behind = await holderOfBackground(BEHIND_S);
    const ahead = await replica(AHEAD_S);
    const held = await background();
    if (!held) throw new Error('the background lease is not in the database');
    // The holder renews a third of the way through each lease, the other replica tries on the same beat: each
    // renewal seen is one more try of the replica ahead.
    const seen = new Set<string>([held.expiresAt]);
    await until(
      async () => {
        const now = await background();
        expect(now?.holder).toBe(held.holder);
        if (now) seen.add(now.expiresAt);
        return seen.size;
      },
      (renewals) => renewals >= 6,
      'the holder to renew its lease five times',
    );
    expect(logged(ahead, 'this replica runs the background work')).toBe(0);
    expect(logged(behind, 'lost the background lease')).toBe(0);
  });

  it('the reconciler ahead leaves alone a buy that the replica behind still runs, and it ends as bought', async () => {
    // The replica ahead looks for unsettled changes every 2 s; the one behind waits a minute for the provider.
    const ahead = await holderOfBackground(AHEAD_S, { VOICE_API_TIMEOUT_MS: '1000' });
    const behind = await replica(BEHIND_S, { VOICE_API_TIMEOUT_MS: '60000' });
    const number = await availableNumber(bed.sandbox, 'JP');
    const { answers, buys } = await buyHeldAtProvider(bed, behind.eventsUrl, number);
    // Two looks of the reconciler ahead, the second begun after the buy's intent was open.
    const looks = logged(ahead, 'looked for changes left unsettled');
    await until(
      () => Promise.resolve(logged(ahead, 'looked for changes left unsettled')),
      (count) => count >= looks + 2,
      'the reconciler ahead to look twice while the buy runs',
    );
    expect(
      bed.slack
        .calls(RESPONSE_URL)
        .filter((call) => call.responseUrlId === answers)
        .map(shownText),
    ).not.toEqual(expect.arrayContaining([expect.stringContaining('not bought')]));
    bed.sandbox.faults.clear();

    expect(shownText(await outcome(bed.slack, answers))).toContain(`Bought *${number}*`);
    const { trail, events } = await inspectDatabase(bed.database);
    expect(trail).toEqual(['number.buy requested', 'number.buy confirmed', 'number.buy succeeded']);
    expect(events.at(-1)?.params).not.toEqual({ reconciled: true });
    expect(bed.sandbox.requestCount('buyNumber') - buys).toBe(1);
  });

  it('a number being changed by the replica behind is refused to the replica ahead, and the reverse', async () => {
    const agentId = await numbersAndAgent(bed.sandbox, 'IT', 2, { name: 'Roma desk', language: 'it-IT' });
    const [first, second] = await purchased(bed.sandbox);
    if (!first || !second) throw new Error('two numbers bought in the sandbox');
    const ahead = await replica(AHEAD_S, { VOICE_API_TIMEOUT_MS: '60000' });
    const behind = await replica(BEHIND_S, { VOICE_API_TIMEOUT_MS: '60000' });

    for (const [runner, other, number] of [
      [behind, ahead, first],
      [ahead, behind, second],
    ] as const) {
      bed.sandbox.faults.inject('mapNumber', { type: 'hold' }, { times: 1 });
      const maps = bed.sandbox.requestCount('mapNumber');
      const running = await command(runner, `map ${number} ${agentId}`);
      await reached(bed.sandbox, 'mapNumber', maps);
      const refused = await outcome(bed.slack, await command(other, `map ${number} ${agentId}`));
      expect(shownText(refused)).toContain(`Another change to ${number} is in progress`);
      expect(bed.sandbox.requestCount('mapNumber')).toBe(maps + 1);
      bed.sandbox.faults.clear();
      expect(shownText(await outcome(bed.slack, running))).toContain('Routed');
    }
  });
});
