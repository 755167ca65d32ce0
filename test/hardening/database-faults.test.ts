// The database fails like any dependency: a Postgres that cannot be reached stops start-up with one sentence; a
// database written by newer code stops an older process; and a Postgres restarted in the middle of a change leaves
// /readyz answering 503 and commands told why, nothing half-done, and the change resolved and reported, once, when
// the server is back. The app's own process, on a Postgres server of the test's own (it is stopped mid-test).
import { createServer } from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { LATEST_VERSION } from '../../src/store/migrations.js';
import { openEngine } from '../../src/store/open-store.js';
import { shownText } from '../e2e/support.js';
import { BOT_TOKEN, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { type AppProcess, appEnvironment, spawnApp } from '../harness/app-process.js';
import { TEST_ENGINE } from '../harness/database.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { slashCommand } from '../harness/payloads.js';
import { createDatabase, startPostgres } from '../harness/postgres.js';
import { postToSlackApp } from '../harness/signing.js';
import {
  askToBuy,
  availableNumber,
  inspectDatabase,
  pressConfirm,
  purchased,
  useProcessBed,
} from './process-support.js';
import { until } from './support.js';

const PASSWORD = 'pg-secret-Zq81';
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

  it('a Postgres restarted during a change: /readyz says so, commands are told, and the change is resolved once when it is back', async () => {
    const server = await startPostgres();
    try {
      const env = { DATABASE_URL: await createDatabase(server.url()), VOICE_API_TIMEOUT_MS: '1000' };
      const app = start(env);
      const { eventsUrl } = await app.ready;
      const readyz = eventsUrl.replace('/slack/events', '/readyz');
      const number = await availableNumber(bed.sandbox, 'ES');

      const confirmationId = await askToBuy(bed.slack, eventsUrl, number);
      bed.sandbox.faults.inject('buyNumber', { type: 'hold' }, { times: 1 });
      const buys = bed.sandbox.requestCount('buyNumber');
      const answers = await pressConfirm(bed.slack, eventsUrl, confirmationId);
      await until(
        () => bed.sandbox.requestCount('buyNumber'),
        (count) => count > buys,
        'the buy to reach the provider',
      );

      await server.stop();
      const down = await until(
        async () => (await fetch(readyz)).status,
        (status) => status === 503,
        '/readyz to say the database is gone',
      );
      expect(down).toBe(503);
      expect(JSON.stringify(await (await fetch(readyz)).json())).toContain('cannot be reached');

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
      const sql = await openEngine({
        kind: 'postgres',
        url: env.DATABASE_URL,
        poolSize: 1,
        statementTimeoutMs: 10_000,
      });
      try {
        const trail = await sql.all<{ outcome: string; params: string | null }>(
          "SELECT outcome, params FROM audit_events WHERE action = 'number.buy' ORDER BY id",
        );
        expect(trail.map((row) => row.outcome)).toEqual(['requested', 'confirmed', 'succeeded']);
        expect(JSON.parse(trail.at(-1)?.params ?? '{}')).toEqual({ reconciled: true });
        expect(await sql.get('SELECT count(*) AS n FROM intents WHERE closed_at IS NULL')).toEqual({ n: 0 });
      } finally {
        await sql.close();
      }
      app.child.kill('SIGTERM');
      await app.exited;
    } finally {
      await server.remove();
    }
  });
});

it('a database written by newer code stops an older process with a sentence saying so', async () => {
  const first = start(bed.database.env);
  await first.ready;
  first.child.kill('SIGTERM');
  await first.exited;
  const db = await bed.database.sql();
  await (TEST_ENGINE === 'sqlite'
    ? db.run(`PRAGMA user_version = ${LATEST_VERSION + 1}`)
    : db.run('UPDATE voice_ops_schema SET version = ?', [LATEST_VERSION + 1]));
  const { exit, output } = await failedStart(start(bed.database.env));
  expect(exit).toEqual({ code: 1, signal: null });
  expect(output).toContain(
    `has schema version ${LATEST_VERSION + 1}, but this code knows versions up to ${LATEST_VERSION}: run a newer voice-ops`,
  );
  expect((await inspectDatabase(bed.database)).count).toBe(0);
});
