import { describe, expect, it } from 'vitest';
import { LearnedFacts } from '../../src/store/facts.js';
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
