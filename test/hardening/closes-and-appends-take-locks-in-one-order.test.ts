// A change's outcome and the reconciler can close the same intent at once (the change's lease lapsed while the
// provider held its call). Both lock the intent's row and then the audit chain; were the outcome's transaction to
// take the chain first, each would wait for the other until Postgres broke the deadlock by failing one. Here the
// reconciler's transaction (a close, then an append, through the app's own store) holds the row while the app's
// outcome waits for it, and appends only then: nothing fails, the outcome is audited once, by the reconciler, and the
// app's late "done" is refused in the open as a second outcome.
// Postgres only: SQLite's transactions take the file's one writer lock at BEGIN, so two cannot interleave.
import { setTimeout } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeOn } from '../../src/store/open-store.js';
import { auditRows, buyThroughApp, createAgentThroughApp, rowsOf, sandboxAvailable } from '../e2e/support.js';
import { OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { TEST_ENGINE } from '../harness/database.js';
import { signal } from '../harness/signal.js';

const WAITING_FOR_A_LOCK =
  "SELECT COUNT(*) AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";

describe.runIf(TEST_ENGINE === 'postgres')('a change closed twice at once, on Postgres', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("lets the reconciler's close and append through while the change's outcome waits for the same intent", async () => {
    const [number] = (await sandboxAvailable(t, 'GB')).filter((entry) => entry.capabilities.includes('voice'));
    if (!number) throw new Error('the sandbox has no voice number for sale in GB');
    await buyThroughApp(t, OPERATOR, number.number);
    const { agent } = await createAgentThroughApp(t, OPERATOR, 'Night desk');
    const sql = await t.database.sql();
    const store = await storeOn(sql);

    t.sandbox.faults.inject('mapNumber', { type: 'hold' }, { times: 1 });
    const sent = await t.command(`map ${number.number} ${agent.id}`, OPERATOR);
    let open: { correlation_id: string } | undefined;
    while (!open) {
      [open] = await rowsOf<{ correlation_id: string }>(
        t,
        "SELECT correlation_id FROM intents WHERE closed_at IS NULL AND action = 'routing.map'",
      );
      if (!open) await setTimeout(10);
    }
    const correlationId = open.correlation_id;

    const rowHeld = signal();
    const appWaits = signal();
    // The reconciler's shape: the intent closed, then the outcome audited, in one transaction.
    const reconciler = store.transaction(async (store) => {
      expect(await store.intents.close(correlationId, 'failed')).toBe(true);
      rowHeld.fire();
      await appWaits.reached;
      await store.audit.append({
        actorId: OPERATOR,
        source: 'system',
        action: 'routing.map',
        target: number.number,
        outcome: 'failed',
        errorMessage: 'closed by the reconciler',
        correlationId,
      });
    });
    await rowHeld.reached;
    t.sandbox.faults.clear(); // the provider answers; the app's outcome now waits for the intent's row
    while ((await sql.get<{ waiting: number }>(WAITING_FOR_A_LOCK))?.waiting === 0) await setTimeout(10);
    appWaits.fire();

    await expect(reconciler).resolves.toBeUndefined();
    // The provider's "done" met a change settled as not done: the person is told both, never "Routed" alone.
    const answer = await t.respondedTo(sent.responseUrlId);
    expect(JSON.stringify(answer.body)).toContain('settled meanwhile as not done');
    const rows = (await auditRows(t)).filter((row) => row.correlation_id === correlationId);
    const outcomes = rows.filter((row) => ['succeeded', 'failed'].includes(row.outcome));
    expect(outcomes.map((row) => [row.outcome, row.source])).toEqual([['failed', 'system']]);
    expect(rows.filter((row) => row.action === 'change.second_outcome').map((row) => row.outcome)).toEqual([
      'rejected',
    ]);
  });
});
