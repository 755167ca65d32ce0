// A replica whose own database session is cut while it runs (a network partition, a failover, an operator ending the
// session) has lost its liveness: the other replicas may take its leases and changes over, so it sends the provider
// no change until it holds its liveness again. Here the test ends the replica's session and keeps its advisory lock,
// as a session the server has not yet let go of would: the replica answers a buy with "nothing was sent", and buys
// again once it has its liveness back.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { livenessLockOf } from '../../src/store/postgres-liveness.js';
import { shownText } from '../e2e/support.js';
import { BOT_TOKEN, SIGNING_SECRET } from '../harness/app.js';
import { appEnvironment, spawnApp } from '../harness/app-process.js';
import { TEST_ENGINE } from '../harness/database.js';
import { askToBuy, availableNumber, inspectDatabase, outcome, pressConfirm, useProcessBed } from './process-support.js';
import { until } from './support.js';

const bed = useProcessBed('voice-ops-fence-', [BOT_TOKEN, SIGNING_SECRET]);

describe.skipIf(TEST_ENGINE !== 'postgres')('a replica cut off from its database session, on Postgres', () => {
  it('sends no change while its liveness is lost, and changes again once it holds it', async () => {
    if (bed.database.target.kind !== 'postgres') throw new Error('a Postgres database');
    const app = spawnApp({ via: 'node', env: appEnvironment(bed.slack, bed.sandbox, bed.database.env) });
    bed.started.push(app);
    const { eventsUrl } = await app.ready;
    const logged = (message: string) => app.entries().some((entry) => String(entry.msg).startsWith(message));

    const cutter = new pg.Client({ connectionString: bed.database.target.url });
    await cutter.connect();
    try {
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
      await until(() => Promise.resolve(logged('this replica lost its liveness')), Boolean, 'the replica to notice');

      const number = await availableNumber(bed.sandbox, 'GB');
      const buys = bed.sandbox.requestCount('buyNumber');
      const withheld = await outcome(
        bed.slack,
        await pressConfirm(bed.slack, eventsUrl, await askToBuy(bed.slack, eventsUrl, number)),
      );
      expect(shownText(withheld)).toContain('Nothing was sent to the provider');
      expect(bed.sandbox.requestCount('buyNumber')).toBe(buys);
      expect((await inspectDatabase(bed.database)).trail).toEqual([
        'number.buy requested',
        'number.buy confirmed',
        'number.buy failed',
      ]);

      await cutter.query('SELECT pg_advisory_unlock($1, $2)', [namespace, key]);
      await until(
        () => Promise.resolve(logged('this replica holds its liveness again')),
        Boolean,
        'the replica to hold its liveness again',
      );
      const bought = await outcome(
        bed.slack,
        await pressConfirm(bed.slack, eventsUrl, await askToBuy(bed.slack, eventsUrl, number)),
      );
      expect(shownText(bought)).toContain(`Bought *${number}*`);
      expect(bed.sandbox.requestCount('buyNumber')).toBe(buys + 1);
    } finally {
      await cutter.end();
    }
  });
});
