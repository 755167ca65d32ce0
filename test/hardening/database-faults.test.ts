// The database fails like any dependency: a Postgres that cannot be reached stops start-up with one sentence; a
// database written by newer code stops an older process; and a Postgres restarted in the middle of a change leaves
// /readyz answering 503 and commands told why, nothing half-done, and the change resolved and reported, once, when
// the server is back; a batch it cuts short starts no other item, and offers Resume once the server is back. The
// app's own process, on a Postgres server of the test's own (it is stopped mid-test).
import { createServer } from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { BATCH_CONCURRENCY } from '../../src/ops/batches.js';
import { ACTION } from '../../src/slack/ids.js';
import { LATEST_VERSION } from '../../src/store/migrations.js';
import { openEngine } from '../../src/store/open-store.js';
import type { Sql } from '../../src/store/sql.js';
import { type Block, buttonValues, EPHEMERAL, onlyButton, shownText } from '../e2e/support.js';
import { BOT_TOKEN, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { type AppProcess, appEnvironment, spawnApp } from '../harness/app-process.js';
import { TEST_ENGINE } from '../harness/database.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { blockAction, slashCommand } from '../harness/payloads.js';
import { createDatabase, type PostgresServer, startPostgres } from '../harness/postgres.js';
import { postToSlackApp } from '../harness/signing.js';
import {
  availableNumber,
  buyHeldAtProvider,
  inspectDatabase,
  numbersAndAgent,
  purchased,
  useProcessBed,
} from './process-support.js';
import { until } from './support.js';

const PASSWORD = 'pg-secret-Zq81';
/** Numbers the batch maps: more than it runs at once, so that some are left to start. */
const BATCH_NUMBERS = 10;
const bed = useProcessBed('voice-ops-db-faults-', [BOT_TOKEN, SIGNING_SECRET, PASSWORD]);

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function start(env: Record<string, string>): AppProcess {
  const app = spawnApp({ via: 'node', env: { ...appEnvironment(bed.slack, bed.sandbox, env) } });
  bed.started.push(app);
  return app;
}

/** Waits for the process to exit without becoming ready; its exit and what it wrote. */
async function failedStart(app: AppProcess) {
  const startedAnyway = app.ready.then(() => {
    throw new Error(`the app started:\n${app.output()}`);
  });
  return { exit: await Promise.race([app.exited, startedAnyway]), output: app.output() };
}

interface OwnPostgres {
  server: PostgresServer;
  app: AppProcess;
  databaseUrl: string;
}

/**
 * Starts the app on a database of a Postgres server of the test's own (which the test may stop and start), runs
 * `test`, then stops the app; the server is removed whatever happens.
 */
async function onPostgresOfItsOwn(env: Record<string, string>, test: (own: OwnPostgres) => Promise<void>) {
  const server = await startPostgres();
  try {
    const databaseUrl = await createDatabase(server.url());
    const app = start({ ...env, DATABASE_URL: databaseUrl });
    await test({ server, app, databaseUrl });
    app.child.kill('SIGTERM');
    await app.exited;
  } finally {
    await server.remove();
  }
}

/** What the app left in its database, read on a connection of the test's own. */
async function readBack<T>(databaseUrl: string, read: (sql: Sql) => Promise<T>): Promise<T> {
  const sql = await openEngine({ kind: 'postgres', url: databaseUrl, poolSize: 1, statementTimeoutMs: 10_000 });
  try {
    return await read(sql);
  } finally {
    await sql.close();
  }
}

describe.runIf(TEST_ENGINE === 'postgres')('on Postgres', () => {
  it('a Postgres that cannot be reached stops start-up with one sentence naming its host, never its password', async () => {
    const port = await closedPort();
    const { exit, output } = await failedStart(
      start({ DATABASE_URL: `postgres://voiceops:${PASSWORD}@127.0.0.1:${port}/voiceops` }),
    );
    expect(exit).toEqual({ code: 1, signal: null });
    expect(output).toContain(`Cannot reach the Postgres database \\"voiceops\\" on 127.0.0.1:${port}`);
    expect(output).toContain('Check DATABASE_URL');
    expect(output).not.toContain(PASSWORD);
    expect(output).not.toMatch(/\n\s+at /); // a sentence, not a stack trace
  });

  it('a Postgres that refuses the database named stops start-up with one sentence saying what to check', async () => {
    const url = new URL(inject('postgresUrl'));
    url.pathname = '/no_such_database';
    const { exit, output } = await failedStart(start({ DATABASE_URL: url.toString() }));
    expect(exit).toEqual({ code: 1, signal: null });
    expect(output).toContain('Cannot use the Postgres database \\"no_such_database\\"');
    expect(output).toContain("Check DATABASE_URL's user, password and database");
    expect(output).not.toMatch(/\n\s+at /);
  });

  it('a Postgres restarted during a change: /readyz says so, commands are told, and the change is resolved once when it is back', () =>
    onPostgresOfItsOwn({ VOICE_API_TIMEOUT_MS: '1000' }, async ({ server, app, databaseUrl }) => {
      const { eventsUrl } = await app.ready;
      const readyz = eventsUrl.replace('/slack/events', '/readyz');
      const number = await availableNumber(bed.sandbox, 'ES');

      const { answers, buys } = await buyHeldAtProvider(bed, eventsUrl, number);

      await server.stop();
      const down = await until(
        async () => (await fetch(readyz)).status,
        (status) => status === 503,
        '/readyz to say the database is gone',
      );
      expect(down).toBe(503);
      const said = await (await fetch(readyz)).text();
      expect(JSON.parse(said)).toMatchObject({ checks: { database: 'unreachable' } });
      // The probe says which dependency, never where it is: the log names the database.
      const where = new URL(databaseUrl);
      for (const secret of [where.host, where.port, where.pathname.slice(1)]) expect(said).not.toContain(secret);

      // A command meanwhile is told what is wrong, and nothing else happens.
      const id = 'db-down-command';
      const body = slashCommand({ text: 'numbers', userId: OPERATOR, responseUrl: bed.slack.respondUrl(id) });
      const asked = await postToSlackApp(eventsUrl, SIGNING_SECRET, body);
      expect(asked.status).toBe(200);
      expect(asked.body).toContain('cannot reach its database');

      // The provider finishes the buy while the app cannot write its outcome down.
      bed.sandbox.faults.clear();
      await until(
        () => purchased(bed.sandbox),
        (numbers) => numbers.includes(number),
        'the provider to finish the buy',
      );

      await server.start();
      await until(
        async () => (await fetch(readyz)).status,
        (status) => status === 200,
        '/readyz to recover by itself',
        30_000,
      );
      // Told first that the database went away mid-change, then, once it is back, what became of the change.
      const lost = await bed.slack.waitFor(
        RESPONSE_URL,
        (call) => call.responseUrlId === answers && shownText(call).includes('lost its database'),
      );
      expect(shownText(lost)).toContain('you will be told what became of it');
      const told = await bed.slack.waitFor(
        RESPONSE_URL,
        (call) => call.responseUrlId === answers && shownText(call).includes(`Bought *${number}*`),
        { timeoutMs: 45_000 },
      );
      expect(shownText(told)).toContain('checked with the provider');
      expect(bed.sandbox.requestCount('buyNumber') - buys).toBe(1);

      // Nothing half-done: the outcome the lost connection could not write is there once, from the reconciler.
      await readBack(databaseUrl, async (sql) => {
        const trail = await sql.all<{ outcome: string; params: string | null }>(
          "SELECT outcome, params FROM audit_events WHERE action = 'number.buy' ORDER BY id",
        );
        expect(trail.map((row) => row.outcome)).toEqual(['requested', 'confirmed', 'succeeded']);
        expect(JSON.parse(trail.at(-1)?.params ?? '{}')).toEqual({ reconciled: true });
        expect(await sql.get('SELECT count(*) AS n FROM intents WHERE closed_at IS NULL')).toEqual({ n: 0 });
      });
    }));

  it('a Postgres restarted during a batch: no item starts while it is gone, and the requester is offered Resume', () =>
    onPostgresOfItsOwn({ RECONCILE_INTERVAL_S: '0' }, async ({ server, app, databaseUrl }) => {
      const { eventsUrl } = await app.ready;
      const agentId = await numbersAndAgent(bed.sandbox, 'IT', BATCH_NUMBERS, { name: 'Roma desk', language: 'it-IT' });
      const planId = 'db-down-batch-plan';
      const asked = slashCommand({
        text: `map IT to ${agentId}`,
        userId: OPERATOR,
        responseUrl: bed.slack.respondUrl(planId),
      });
      expect((await postToSlackApp(eventsUrl, SIGNING_SECRET, asked)).status).toBe(200);
      const plan = await bed.slack.waitFor(
        RESPONSE_URL,
        (call) => call.responseUrlId === planId && shownText(call).includes('Plan'),
      );
      const batchId = onlyButton((plan.body.blocks ?? []) as Block[], ACTION.confirmBatch);

      bed.sandbox.faults.inject('mapNumber', { type: 'hold' });
      const maps = bed.sandbox.requestCount('mapNumber');
      const appliedId = 'db-down-batch-apply';
      const apply = blockAction({
        userId: OPERATOR,
        actionId: ACTION.confirmBatch,
        value: batchId,
        container: EPHEMERAL,
        responseUrl: bed.slack.respondUrl(appliedId),
      });
      expect((await postToSlackApp(eventsUrl, SIGNING_SECRET, apply)).status).toBe(200);
      await until(
        () => Promise.resolve(bed.sandbox.requestCount('mapNumber') - maps),
        (count) => count >= BATCH_CONCURRENCY,
        'the first items to reach the provider',
      );
      expect(bed.sandbox.requestCount('mapNumber') - maps, 'the items run at once').toBe(BATCH_CONCURRENCY);

      // The provider answers the items under way while the app cannot write their outcomes down.
      await server.stop();
      bed.sandbox.faults.clear();
      const lost = await bed.slack.waitFor(
        RESPONSE_URL,
        (call) => call.responseUrlId === appliedId && shownText(call).includes('lost its database'),
      );
      expect(shownText(lost)).toContain('you will be told what became of it');
      expect(bed.sandbox.requestCount('mapNumber') - maps, 'no item started after the loss').toBe(BATCH_CONCURRENCY);

      await server.start();
      const told = await bed.slack.waitFor(
        'chat.postEphemeral',
        (call) => call.body.user === OPERATOR && shownText(call).includes('stopped at'),
        { timeoutMs: 45_000 },
      );
      expect(shownText(told)).toContain(`stopped at ${BATCH_CONCURRENCY} of ${BATCH_NUMBERS} when it was cut short`);
      expect(buttonValues((told.body.blocks ?? []) as Block[], ACTION.planAgain)).toHaveLength(1);
      // Each map whose answer was lost is sent again by the reconciler (a map twice has one effect); none of the
      // items not started was sent.
      expect(bed.sandbox.requestCount('mapNumber') - maps).toBe(2 * BATCH_CONCURRENCY);

      await readBack(databaseUrl, async (sql) => {
        const states = await sql.all<{ state: string; n: number }>(
          'SELECT state, count(*) AS n FROM batch_items WHERE batch_id = ? GROUP BY state ORDER BY state',
          [batchId],
        );
        expect(states).toEqual([
          { state: 'pending', n: BATCH_NUMBERS - BATCH_CONCURRENCY },
          { state: 'succeeded', n: BATCH_CONCURRENCY },
        ]);
        // Each item's outcome is written once, by the reconciler, under the batch's correlation id.
        const routed = await sql.get<{ n: number }>(
          "SELECT count(*) AS n FROM audit_events WHERE action = 'routing.map' AND outcome = 'succeeded' AND correlation_id = ?",
          [batchId],
        );
        expect(routed).toEqual({ n: BATCH_CONCURRENCY });
        expect(await sql.get('SELECT count(*) AS n FROM intents WHERE closed_at IS NULL')).toEqual({ n: 0 });
      });
    }));
});

it('a database written by newer code stops an older process with a sentence saying so', async () => {
  const first = start(bed.database.env);
  await first.ready;
  first.child.kill('SIGTERM');
  await first.exited;
  const written = (await inspectDatabase(bed.database)).count;
  const db = await bed.database.sql();
  await (TEST_ENGINE === 'sqlite'
    ? db.run(`PRAGMA user_version = ${LATEST_VERSION + 1}`)
    : db.run('UPDATE voice_ops_schema SET version = ?', [LATEST_VERSION + 1]));
  const { exit, output } = await failedStart(start(bed.database.env));
  expect(exit).toEqual({ code: 1, signal: null });
  expect(output).toContain(
    `has schema version ${LATEST_VERSION + 1}, but this code knows versions up to ${LATEST_VERSION}: run a newer voice-ops`,
  );
  expect((await inspectDatabase(bed.database)).count).toBe(written);
});
