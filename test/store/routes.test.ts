import { describe, expect, it } from 'vitest';
import { RoutingRecords } from '../../src/store/routes.js';
import { manualClock, useTempDatabases } from './helpers.js';

const temp = useTempDatabases();

function records() {
  const clock = manualClock();
  return { clock, routes: new RoutingRecords(temp.open(), { now: clock.now }) };
}

describe('RoutingRecords', () => {
  it('records a map and reads it back by number', () => {
    const { routes } = records();
    const stored = routes.set({ phoneNumber: '+15550100', agentId: 'agent-1', numberId: 'num-1', updatedBy: 'U_ADA' });

    expect(stored).toEqual({
      phoneNumber: '+15550100',
      agentId: 'agent-1',
      numberId: 'num-1',
      updatedAt: '2026-11-01T09:00:00.000Z',
      updatedBy: 'U_ADA',
    });
    expect(routes.forNumber('+15550100')).toEqual(stored);
    expect(routes.forNumber('+15550199')).toBeUndefined();
  });

  it('replaces the record of a re-mapped number: a number routes to one agent', () => {
    const { routes, clock } = records();
    routes.set({ phoneNumber: '+15550100', agentId: 'agent-1', numberId: 'num-1', updatedBy: 'U_ADA' });
    clock.advance(60_000);
    const remapped = routes.set({ phoneNumber: '+15550100', agentId: 'agent-2', updatedBy: 'U_BOB' });

    expect(remapped).toEqual({
      phoneNumber: '+15550100',
      agentId: 'agent-2',
      numberId: undefined,
      updatedAt: '2026-11-01T09:01:00.000Z',
      updatedBy: 'U_BOB',
    });
    expect(routes.all()).toEqual([remapped]);
    expect(routes.forAgent('agent-1')).toEqual([]);
  });

  it('lists the numbers of an agent, and all records, ordered by number', () => {
    const { routes } = records();
    routes.set({ phoneNumber: '+15550300', agentId: 'agent-1', updatedBy: 'U_ADA' });
    routes.set({ phoneNumber: '+15550100', agentId: 'agent-1', updatedBy: 'U_ADA' });
    routes.set({ phoneNumber: '+15550200', agentId: 'agent-2', updatedBy: 'U_ADA' });

    expect(routes.forAgent('agent-1').map((route) => route.phoneNumber)).toEqual(['+15550100', '+15550300']);
    expect(routes.all().map((route) => route.phoneNumber)).toEqual(['+15550100', '+15550200', '+15550300']);
  });

  it('forgets a released number and every number of a deleted agent, and nothing else', () => {
    const { routes } = records();
    routes.set({ phoneNumber: '+15550100', agentId: 'agent-1', updatedBy: 'U_ADA' });
    routes.set({ phoneNumber: '+15550200', agentId: 'agent-1', updatedBy: 'U_ADA' });
    routes.set({ phoneNumber: '+15550300', agentId: 'agent-2', updatedBy: 'U_ADA' });
    routes.set({ phoneNumber: '+15550400', agentId: 'agent-3', updatedBy: 'U_ADA' });

    routes.removeNumber('+15550400');
    routes.removeAgent('agent-1');
    routes.removeNumber('+15550999'); // unknown: nothing to do

    expect(routes.all().map((route) => [route.phoneNumber, route.agentId])).toEqual([['+15550300', 'agent-2']]);
  });
});
