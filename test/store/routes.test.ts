import { describe, expect, it } from 'vitest';
import { DeliveryKeys } from '../../src/store/dedupe.js';
import { LearnedFacts } from '../../src/store/facts.js';
import { RecordsMemo, type RecordsSeen } from '../../src/store/records-memo.js';
import { RoutingRecords } from '../../src/store/routes.js';
import { ENGINES, manualClock, useTempDatabases } from './helpers.js';

describe.each(ENGINES)('RoutingRecords on %s', (engine) => {
  const temp = useTempDatabases(engine);

  async function records() {
    const clock = manualClock();
    return { clock, routes: new RoutingRecords(await temp.open(), { now: clock.now }) };
  }

  it('records a map and reads it back by number', async () => {
    const { routes } = await records();
    const stored = await routes.set({
      phoneNumber: '+15550100',
      agentId: 'agent-1',
      numberId: 'num-1',
      updatedBy: 'U_ADA',
    });

    expect(stored).toEqual({
      phoneNumber: '+15550100',
      agentId: 'agent-1',
      numberId: 'num-1',
      updatedAt: '2026-11-01T09:00:00.000Z',
      updatedBy: 'U_ADA',
    });
    expect(await routes.forNumber('+15550100')).toEqual(stored);
    expect(await routes.forNumber('+15550199')).toBeUndefined();
  });

  it('replaces the record of a re-mapped number: a number routes to one agent', async () => {
    const { routes, clock } = await records();
    await routes.set({ phoneNumber: '+15550100', agentId: 'agent-1', numberId: 'num-1', updatedBy: 'U_ADA' });
    clock.advance(60_000);
    const remapped = await routes.set({ phoneNumber: '+15550100', agentId: 'agent-2', updatedBy: 'U_BOB' });

    expect(remapped).toEqual({
      phoneNumber: '+15550100',
      agentId: 'agent-2',
      numberId: undefined,
      updatedAt: '2026-11-01T09:01:00.000Z',
      updatedBy: 'U_BOB',
    });
    expect(await routes.all()).toEqual([remapped]);
    expect(await routes.forAgent('agent-1')).toEqual([]);
  });

  it('lists the numbers of an agent, and all records, ordered by number', async () => {
    const { routes } = await records();
    await routes.set({ phoneNumber: '+15550300', agentId: 'agent-1', updatedBy: 'U_ADA' });
    await routes.set({ phoneNumber: '+15550100', agentId: 'agent-1', updatedBy: 'U_ADA' });
    await routes.set({ phoneNumber: '+15550200', agentId: 'agent-2', updatedBy: 'U_ADA' });

    expect((await routes.forAgent('agent-1')).map((route) => route.phoneNumber)).toEqual(['+15550100', '+15550300']);
    expect((await routes.all()).map((route) => route.phoneNumber)).toEqual(['+15550100', '+15550200', '+15550300']);
  });

  it('reads a page of agents in one query: the numbers of each, in number order, and its learnt language', async () => {
    const sql = await temp.open();
    const routes = new RoutingRecords(sql, { now: manualClock().now });
    const facts = new LearnedFacts(sql);
    await routes.set({ phoneNumber: '+15550300', agentId: 'agent-1', updatedBy: 'U_ADA' });
    await routes.set({ phoneNumber: '+15550100', agentId: 'agent-1', updatedBy: 'U_ADA' });
    await routes.set({ phoneNumber: '+15550200', agentId: 'agent-2', updatedBy: 'U_ADA' });
    await routes.set({ phoneNumber: '+15550400', agentId: 'agent-3', updatedBy: 'U_ADA' });
    await facts.rememberAgent('agent-1', 'de-DE');
    await facts.rememberAgent('agent-4', 'fr-CA');
    await facts.rememberAgent('agent-3', 'en-GB');

    expect(await routes.ofAgents(['agent-1', 'agent-2', 'agent-4', 'agent-9'])).toEqual(
      new Map([
        ['agent-1', { numbers: ['+15550100', '+15550300'], language: 'de-DE' }],
        ['agent-2', { numbers: ['+15550200'] }],
        ['agent-4', { numbers: [], language: 'fr-CA' }],
      ]),
    );
    expect(await routes.ofAgents([])).toEqual(new Map());
  });

  it('answers a delivery from the page read at the version it found, and reads afresh for a newer one', async () => {
    const sql = await temp.open();
    const memo = new RecordsMemo();
    const here = new RoutingRecords(sql, { memo });
    // Another replica: the same database, a process of its own.
    const elsewhere = new RoutingRecords(sql);
    const keys = new DeliveryKeys(sql, { pruning: { lastAt: Number.NEGATIVE_INFINITY }, records: memo });
    const arrived = async (key: string) => {
      const seen = await keys.firstSeen(key);
      if (!seen.first) throw new Error(`${key} was seen before`);
      return seen.records;
    };
    const numbersOf = async (seen: RecordsSeen) => (await here.ofAgents(['agent-1'], seen)).get('agent-1')?.numbers;
    await elsewhere.set({ phoneNumber: '+15550100', agentId: 'agent-1', updatedBy: 'U_ADA' });

    const first = await arrived('d1');
    expect(await numbersOf(first)).toEqual(['+15550100']);
    await elsewhere.set({ phoneNumber: '+15550200', agentId: 'agent-1', updatedBy: 'U_ADA' });
    // A delivery that arrived before the other replica's map needs nothing newer: the page kept answers it.
    expect(await numbersOf(first)).toEqual(['+15550100']);
    // One that arrived after it reads afresh.
    const second = await arrived('d2');
    expect(await numbersOf(second)).toEqual(['+15550100', '+15550200']);
    // A delivery that writes, then reads, sees its own write though it arrived at the kept page's version.
    const third = await arrived('d3');
    expect(await numbersOf(third)).toEqual(['+15550100', '+15550200']);
    await here.removeNumber('+15550100');
    expect(await numbersOf(third)).toEqual(['+15550200']);
    // So does a language it learnt, which the page shows too.
    const fourth = await arrived('d4');
    expect((await here.ofAgents(['agent-1'], fourth)).get('agent-1')?.language).toBeUndefined();
    await new LearnedFacts(sql, { memo }).rememberAgent('agent-1', 'de-DE');
    expect((await here.ofAgents(['agent-1'], fourth)).get('agent-1')?.language).toBe('de-DE');
    // Without a delivery's version (the reconciler, a sweep) the records are read as they are.
    await elsewhere.set({ phoneNumber: '+15550300', agentId: 'agent-1', updatedBy: 'U_ADA' });
    expect((await here.ofAgents(['agent-1'])).get('agent-1')?.numbers).toEqual(['+15550200', '+15550300']);
  });

  it('keeps no page read inside a transaction, which may hold writes that never commit', async () => {
    const sql = await temp.open();
    const memo = new RecordsMemo();
    const keys = new DeliveryKeys(sql, { pruning: { lastAt: Number.NEGATIVE_INFINITY }, records: memo });
    const seen = await keys.firstSeen('d1');
    if (!seen.first) throw new Error('d1 was seen before');
    await sql
      .transaction(async (tx) => {
        await tx.run(
          "INSERT INTO routes (phone_number, agent_id, updated_at, updated_by) VALUES ('+15550100', 'agent-1', 't', 'U')",
        );
        const inside = new RoutingRecords(tx, { memo, inTransaction: true });
        expect((await inside.ofAgents(['agent-1'], seen.records)).get('agent-1')?.numbers).toEqual(['+15550100']);
        throw new Error('rolled back');
      })
      .catch(() => {});
    expect(await new RoutingRecords(sql, { memo }).ofAgents(['agent-1'], seen.records)).toEqual(new Map());
  });

  it.runIf(engine === 'postgres')(
    'makes a lone write wait for a transaction writing several routes, rather than deadlock with it',
    async () => {
      const sql = await temp.open();
      const routes = new RoutingRecords(sql);
      for (const phoneNumber of ['+15550100', '+15550200']) {
        await routes.set({ phoneNumber, agentId: 'agent-1', updatedBy: 'U_ADA' });
      }
      let lone: Promise<void> | undefined;
      await sql.transaction(async (tx) => {
        const inside = new RoutingRecords(tx, { inTransaction: true });
        await inside.removeNumber('+15550100');
        // Another replica drops the second route on its own, while this transaction holds the first.
        lone = routes.removeNumber('+15550200');
        // Its statement is at the server, waiting for a lock, before this transaction goes on. Other test files share
        // the server: only this database's sessions count.
        const waiting =
          "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()";
        while (((await sql.get<{ n: number }>(waiting))?.n ?? 0) === 0) await new Promise((r) => setTimeout(r, 10));
        await inside.removeNumber('+15550200');
      });
      await lone;
      expect(await routes.all()).toEqual([]);
    },
  );

  it('maps every routed number to its agent', async () => {
    const { routes } = await records();
    expect(await routes.agentByNumber()).toEqual(new Map());
    await routes.set({ phoneNumber: '+15550100', agentId: 'agent-1', updatedBy: 'U_ADA' });
    await routes.set({ phoneNumber: '+15550200', agentId: 'agent-2', updatedBy: 'U_ADA' });

    expect(await routes.agentByNumber()).toEqual(
      new Map([
        ['+15550100', 'agent-1'],
        ['+15550200', 'agent-2'],
      ]),
    );
  });

  it('forgets a released number and every number of a deleted agent, and nothing else', async () => {
    const { routes } = await records();
    await routes.set({ phoneNumber: '+15550100', agentId: 'agent-1', updatedBy: 'U_ADA' });
    await routes.set({ phoneNumber: '+15550200', agentId: 'agent-1', updatedBy: 'U_ADA' });
    await routes.set({ phoneNumber: '+15550300', agentId: 'agent-2', updatedBy: 'U_ADA' });
    await routes.set({ phoneNumber: '+15550400', agentId: 'agent-3', updatedBy: 'U_ADA' });

    await routes.removeNumber('+15550400');
    await routes.removeAgent('agent-1');
    await routes.removeNumber('+15550999'); // unknown: nothing to do

    expect((await routes.all()).map((route) => [route.phoneNumber, route.agentId])).toEqual([['+15550300', 'agent-2']]);
  });
});
