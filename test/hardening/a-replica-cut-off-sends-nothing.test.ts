// A replica whose own database session is cut while it runs (a network partition, a failover, an operator ending the
// session) has lost its liveness: the other replicas may take its leases and changes over, so it sends the provider
// no change until it holds its liveness again, and a change begun before the loss sends nothing even after. Here the
// test ends the replica's session and keeps its advisory lock, as a session the server has not yet let go of would.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { livenessLockOf } from '../../src/store/postgres-liveness.js';
import { shownText } from '../e2e/support.js';
import { BOT_TOKEN, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { type AppProcess, appEnvironment, spawnApp } from '../harness/app-process.js';
import { TEST_ENGINE } from '../harness/database.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { metricValue } from '../harness/metrics.js';
import {
  askToBuy,
  availableNumber,
  inspectDatabase,
  numbersAndAgent,
  outcome,
  planOf,
  pressApply,
  pressConfirm,
  reached,
  useProcessBed,
} from './process-support.js';
import { until } from './support.js';

const bed = useProcessBed('voice-ops-fence-', [BOT_TOKEN, SIGNING_SECRET]);

async function replica(env: Record<string, string> = {}): Promise<AppProcess & { eventsUrl: string }> {
  const app = spawnApp({ via: 'node', env: { ...appEnvironment(bed.slack, bed.sandbox, bed.database.env), ...env } });
  bed.started.push(app);
  return { ...app, eventsUrl: (await app.ready).eventsUrl };
}

const logged = (app: AppProcess, message: string) =>
  until(
    () => Promise.resolve(app.entries().some((entry) => String(entry.msg).startsWith(message))),
    Boolean,
    `the log line "${message}"`,
  );

/**
 * Ends the replica's liveness session and keeps its lock; resolves once the replica knows. `restore` lets the lock go
 * and resolves once the replica holds it again.
 */
async function cutOff(app: AppProcess): Promise<{ restore(): Promise<void> }> {
  if (bed.database.target.kind !== 'postgres') throw new Error('a Postgres database');
  const cutter = new pg.Client({ connectionString: bed.database.target.url });
  await cutter.connect();
  const { rows } = await cutter.query<{ pid: number; name: string }>(
    'SELECT pid, application_name AS name FROM pg_stat_activity ' +
      "WHERE datname = current_database() AND application_name LIKE 'voice-ops liveness %'",
  );
  const [session] = rows;
  if (!session || rows.length !== 1) throw new Error(`one liveness session, not ${rows.length}`);
  const [namespace, key] = livenessLockOf(session.name.replace('voice-ops liveness ', ''));
  await cutter.query('SELECT pg_terminate_backend($1)', [session.pid]);
  // Waits for the ended session to let go, then keeps the lock, so that the replica cannot take it back.
  await cutter.query('SELECT pg_advisory_lock($1, $2)', [namespace, key]);
  await logged(app, 'this replica lost its liveness');
  return {
    async restore() {
      await cutter.end();
      await logged(app, 'this replica holds its liveness again');
    },
  };
}

describe.skipIf(TEST_ENGINE !== 'postgres')('a replica cut off from its database session, on Postgres', () => {
  it('sends no change while its liveness is lost, is not ready meanwhile, and changes again once it holds it', async () => {
    const app = await replica();
    const cut = await cutOff(app);
    try {
      // Taken out of a load balancer's rotation meanwhile: /readyz says it lost its liveness.
      const readiness = await until(
        async () => {
          const answer = await fetch(app.eventsUrl.replace('/slack/events', '/readyz'));
          return { status: answer.status, body: (await answer.json()) as unknown };
        },
        (seen) => seen.status === 503,
        '/readyz to say the replica is not ready',
      );
      expect(readiness.body).toMatchObject({ ok: false, checks: { database: 'liveness lost' } });

      const number = await availableNumber(bed.sandbox, 'GB');
      const buys = bed.sandbox.requestCount('buyNumber');
      const ask = () => askToBuy(bed.slack, app.eventsUrl, number);
      const withheld = await outcome(bed.slack, await pressConfirm(bed.slack, app.eventsUrl, await ask()));
      expect(shownText(withheld)).toContain('Nothing was sent to the provider');
      expect(bed.sandbox.requestCount('buyNumber')).toBe(buys);
      expect(await metricValue(app.eventsUrl.replace('/slack/events', ''), 'voice_ops_changes_withheld_total')).toBe(1);
      expect((await inspectDatabase(bed.database)).trail).toEqual([
        'number.buy requested',
        'number.buy confirmed',
        'number.buy failed',
      ]);

      await cut.restore();
      const bought = await outcome(bed.slack, await pressConfirm(bed.slack, app.eventsUrl, await ask()));
      expect(shownText(bought)).toContain(`Bought *${number}*`);
      expect(bed.sandbox.requestCount('buyNumber')).toBe(buys + 1);
    } finally {
      await cut.restore().catch(() => {});
    }
  });

  it('a buy begun before the loss is not sent again after it, even once its replica holds its liveness again', async () => {
    const app = await replica();
    const number = await availableNumber(bed.sandbox, 'GB');
    const buys = bed.sandbox.requestCount('buyNumber');
    // The provider asks for a wait before the buy is sent again; meanwhile the replica is cut off, and back.
    bed.sandbox.faults.inject('buyNumber', { type: 'rate_limit', retryAfterSeconds: 6 }, { times: 1 });
    const pressed = await pressConfirm(bed.slack, app.eventsUrl, await askToBuy(bed.slack, app.eventsUrl, number));
    await reached(bed.sandbox, 'buyNumber', buys);
    const cut = await cutOff(app);
    await cut.restore();

    const told = await outcome(bed.slack, pressed);
    expect(shownText(told)).toContain('Nothing was sent to the provider');
    // Withheld for the change's own epoch, once the replica held its liveness again, not for the replica's loss.
    const messages = app.entries().map((entry) => String(entry.msg));
    const back = messages.findIndex((msg) => msg.startsWith('this replica holds its liveness again'));
    const withheld = messages.findIndex((msg) => msg.startsWith('a change was not sent to the provider'));
    expect(back).toBeGreaterThanOrEqual(0);
    expect(withheld).toBeGreaterThan(back);
    expect(bed.sandbox.requestCount('buyNumber')).toBe(buys + 1);
    expect(await metricValue(app.eventsUrl.replace('/slack/events', ''), 'voice_ops_changes_withheld_total')).toBe(1);
    expect((await inspectDatabase(bed.database)).trail).toEqual([
      'number.buy requested',
      'number.buy confirmed',
      'number.buy failed',
    ]);
  });

  it('a batch begun before the loss sends no further item, even once its replica holds its liveness again, and is told once where it stopped', async () => {
    const count = 6;
    const agentId = await numbersAndAgent(bed.sandbox, 'FR', count, { name: 'Lyon desk', language: 'fr-FR' });
    const app = await replica({ VOICE_API_TIMEOUT_MS: '60000' });
    const plan = await planOf(bed.slack, app.eventsUrl, `map FR to ${agentId}`);
    bed.sandbox.faults.inject('mapNumber', { type: 'hold' });
    const maps = bed.sandbox.requestCount('mapNumber');
    const applyAnswers = await pressApply(bed.slack, app.eventsUrl, plan);
    // Four items at a time: four maps held at the provider, two items not started.
    await reached(bed.sandbox, 'mapNumber', maps, 4);

    const cut = await cutOff(app);
    await cut.restore();
    bed.sandbox.faults.clear();

    // Told once what became of the batch: that the runner stopped, then, as for a batch a dead process left, where.
    const stopped = await bed.slack.waitFor(
      RESPONSE_URL,
      (call) => call.responseUrlId === applyAnswers && shownText(call).includes('sent nothing more'),
    );
    expect(shownText(stopped)).toContain('you will be told where it stopped');
    const told = await bed.slack.waitFor(
      'chat.postEphemeral',
      (call) => call.body.user === OPERATOR && shownText(call).includes('stopped at'),
    );
    expect(shownText(told)).toContain(`stopped at 4 of ${count}`);
    expect(bed.sandbox.requestCount('mapNumber') - maps).toBe(4);
    expect(bed.slack.calls(RESPONSE_URL).filter((call) => /Routed \d+ of/.test(shownText(call)))).toEqual([]);
  });
});
