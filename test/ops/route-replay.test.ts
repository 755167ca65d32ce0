// The routing rebuilt from audit rows as the app writes them: maps (single, reconciled, a batch's items), buys,
// releases and the reconciler's dropped routes, replayed in id order up to a moment; what changed after it, per number.
import { describe, expect, it } from 'vitest';
import { ROUTE_DROPPED, replayRoutes } from '../../src/ops/route-replay.js';
import type { AuditEvent } from '../../src/store/audit.js';
import type { Tags } from '../../src/store/tags.js';

const A = '+14155550100';
const B = '+14155550101';
const C = '+4930123456';

let nextId = 1;

/** An audit row as the store reads it back, a minute after 09:00 for each `minute`. */
function row(minute: number, fields: Partial<AuditEvent> & Pick<AuditEvent, 'action'>): AuditEvent {
  const id = nextId++;
  return {
    id,
    at: new Date(Date.UTC(2026, 10, 27, 9, minute)).toISOString(),
    actorId: 'UOPERATOR',
    source: 'command',
    outcome: 'succeeded',
    correlationId: `c-${id}`,
    hash: 'h',
    ...fields,
  };
}

const mapped = (minute: number, number: string, agentId: string, more: Partial<AuditEvent> = {}) =>
  row(minute, { action: 'routing.map', target: number, params: { agentId }, ...more });

async function* rows(...events: AuditEvent[]): AsyncGenerator<AuditEvent> {
  yield* events;
}

const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 9, minute));

describe('replayRoutes', () => {
  it('routes a number as its last successful map at or before the moment says, a re-route included', async () => {
    const log = [
      mapped(1, A, 'agt_1'),
      mapped(2, B, 'agt_1'),
      mapped(3, A, 'agt_2', { params: { agentId: 'agt_2', previousAgentId: 'agt_1' } }),
    ];
    expect((await replayRoutes(rows(...log), at(0))).asOf).toEqual(new Map());
    expect((await replayRoutes(rows(...log), at(1))).asOf).toEqual(new Map([[A, 'agt_1']]));
    expect((await replayRoutes(rows(...log), at(2))).asOf).toEqual(
      new Map([
        [A, 'agt_1'],
        [B, 'agt_1'],
      ]),
    );
    expect((await replayRoutes(rows(...log), at(9))).asOf).toEqual(
      new Map([
        [A, 'agt_2'],
        [B, 'agt_1'],
      ]),
    );
  });

  it('takes only succeeded rows: requests, confirmations, failures and refusals move nothing', async () => {
    const log = [
      mapped(1, A, 'agt_1', { outcome: 'requested' }),
      mapped(1, A, 'agt_1', { outcome: 'confirmed' }),
      mapped(1, A, 'agt_1', { outcome: 'failed' }),
      mapped(1, A, 'agt_1', { outcome: 'denied' }),
      mapped(1, A, 'agt_1', { outcome: 'rejected' }),
      mapped(1, B, 'agt_1', { outcome: 'awaiting_approval' }),
    ];
    expect((await replayRoutes(rows(...log), at(9))).asOf).toEqual(new Map());
  });

  it('routes a map whose outcome was unknown only from the row that settled it', async () => {
    const settled = { params: { agentId: 'agt_1', reconciled: true }, source: 'system' as const };
    const log = [mapped(1, A, 'agt_1', { outcome: 'unknown' }), mapped(3, A, 'agt_1', settled)];
    expect((await replayRoutes(rows(...log), at(2))).asOf).toEqual(new Map());
    expect((await replayRoutes(rows(...log), at(3))).asOf).toEqual(new Map([[A, 'agt_1']]));
  });

  it('leaves a number released, bought anew, or whose route was dropped routing nowhere', async () => {
    const log = [
      mapped(1, A, 'agt_1'),
      mapped(1, B, 'agt_1'),
      mapped(1, C, 'agt_2'),
      row(2, { action: 'number.release', target: A, params: { numberId: 'pn_a' } }),
      row(3, { action: ROUTE_DROPPED, target: B, actorId: 'provider', source: 'provider' }),
      row(4, { action: 'number.buy', target: C }),
    ];
    expect((await replayRoutes(rows(...log), at(1))).asOf.size).toBe(3);
    expect((await replayRoutes(rows(...log), at(9))).asOf).toEqual(new Map());
  });

  it("replays a batch's items like single maps, and its batch rows, other actions and odd rows not at all", async () => {
    const log = [
      row(1, { action: 'batch.map', target: '2 numbers', params: { agentId: 'agt_9' }, correlationId: 'batch-1' }),
      mapped(1, A, 'agt_9', { correlationId: 'batch-1' }),
      mapped(1, B, 'agt_9', {
        correlationId: 'batch-1',
        source: 'system',
        params: { reconciled: true, agentId: 'agt_9' },
      }),
      row(1, { action: 'agent.create', target: 'agt_9', params: { name: 'Night' } }),
      row(1, { action: 'number.search', target: C }),
      row(1, { action: 'routing.map', params: { agentId: 'agt_8' } }),
      row(1, { action: 'routing.map', target: C }),
      row(1, { action: 'routing.map', target: C, params: { agentId: 7 } }),
    ];
    expect((await replayRoutes(rows(...log), at(9))).asOf).toEqual(
      new Map([
        [A, 'agt_9'],
        [B, 'agt_9'],
      ]),
    );
  });

  it('goes by each row’s time for the moment, and by id order for the routing now', async () => {
    // The second map is stamped before the moment, though written after a row stamped past it (another clock).
    const log = [mapped(1, A, 'agt_1'), mapped(8, A, 'agt_2'), mapped(4, B, 'agt_3'), mapped(6, A, 'agt_4')];
    const replayed = await replayRoutes(rows(...log), at(5));
    expect(replayed.asOf).toEqual(
      new Map([
        [A, 'agt_1'],
        [B, 'agt_3'],
      ]),
    );
    expect(replayed.changes).toEqual([
      { number: A, before: 'agt_1', after: 'agt_4', ownership: [], by: ['UOPERATOR'], outside: false, undone: false },
    ]);
  });

  it('lists each number changed after the moment, by number: its agent then and now, bought or released, by whom', async () => {
    const log = [
      mapped(1, B, 'agt_1'),
      mapped(1, A, 'agt_1'),
      mapped(3, B, 'agt_2', { actorId: 'UOTHER' }),
      mapped(4, B, 'agt_3'),
      mapped(5, B, 'agt_2', { actorId: 'UOTHER' }),
      row(6, { action: 'number.release', target: A, actorId: 'UADMIN' }),
      row(7, { action: 'number.buy', target: C }),
      row(8, { action: 'number.release', target: C, actorId: 'provider', source: 'provider' }),
      row(9, { action: 'number.buy', target: '+4930999999', actorId: 'UOPERATOR', outcome: 'failed' }),
    ];
    const { changes } = await replayRoutes(rows(...log), at(2));
    expect(changes).toEqual([
      {
        number: A,
        before: 'agt_1',
        after: undefined,
        ownership: ['released'],
        by: ['UADMIN'],
        outside: false,
        undone: false,
      },
      {
        number: B,
        before: 'agt_1',
        after: 'agt_2',
        ownership: [],
        by: ['UOTHER', 'UOPERATOR'],
        outside: false,
        undone: false,
      },
      {
        number: C,
        before: undefined,
        after: undefined,
        ownership: ['bought', 'released'],
        by: ['UOPERATOR'],
        outside: true,
        undone: false,
      },
    ]);
    expect((await replayRoutes(rows(...log), at(9))).changes).toEqual([]);
  });

  it('marks a number whose changes since include an Undo’s, told by the Undo’s own row sharing their request', async () => {
    const log = [
      mapped(1, A, 'agt_1'),
      mapped(3, A, 'agt_2', { params: { agentId: 'agt_2', previousAgentId: 'agt_1' } }),
      mapped(4, A, 'agt_1', { correlationId: 'the-undo', params: { agentId: 'agt_1', previousAgentId: 'agt_2' } }),
      row(4, { action: 'change.undo', target: 'c-2', correlationId: 'the-undo' }),
      mapped(5, B, 'agt_1'),
    ];
    const { changes } = await replayRoutes(rows(...log), at(2));
    expect(changes.map(({ number, before, after, undone }) => ({ number, before, after, undone }))).toEqual([
      { number: A, before: 'agt_1', after: 'agt_1', undone: true },
      { number: B, before: undefined, after: 'agt_1', undone: false },
    ]);
  });

  it('leaves no route after the playground was reset: each number routed then is released by whoever reset it', async () => {
    const log = [
      mapped(1, A, 'agt_1'),
      mapped(1, B, 'agt_2'),
      row(5, { action: 'playground.reset', source: 'system', actorId: 'UADMIN' }),
      mapped(6, C, 'agt_1'),
    ];
    expect((await replayRoutes(rows(...log), at(9))).asOf).toEqual(new Map([[C, 'agt_1']]));
    const { changes } = await replayRoutes(rows(...log), at(2));
    expect(changes.map(({ number, after, ownership, by }) => ({ number, after, ownership, by }))).toEqual([
      { number: A, after: undefined, ownership: ['released'], by: ['UADMIN'] },
      { number: B, after: undefined, ownership: ['released'], by: ['UADMIN'] },
      { number: C, after: 'agt_1', ownership: [], by: ['UOPERATOR'] },
    ]);
  });
});

describe("numbers' labels and owners as of a moment", () => {
  const labelled = (minute: number, number: string, after: object, outcome: AuditEvent['outcome'] = 'succeeded') =>
    row(minute, { action: 'label.change', target: number, outcome, params: { before: { labels: [] }, after } });

  it('are what the last label change by then left, forgotten by a release, and bare or as carried after a buy', async () => {
    const sales: Tags = { labels: ['de', 'team:sales'], owner: 'S0123ABC' };
    const log = [
      labelled(1, A, sales),
      labelled(2, B, { labels: ['old'] }),
      labelled(3, B, { labels: ['never'] }, 'failed'),
      row(4, { action: 'number.release', target: B }),
      row(5, { action: 'number.buy', target: B }),
      row(6, { action: 'number.buy', target: C, params: { tags: { labels: ['berlin'] } } }),
      labelled(7, A, { labels: [] }),
      row(8, { action: 'label.change', target: 'agt_1', params: { after: { labels: ['agents'] } } }),
    ];
    expect((await replayRoutes(rows(...log), at(0))).tagsAsOf).toEqual(new Map());
    expect((await replayRoutes(rows(...log), at(3))).tagsAsOf).toEqual(
      new Map<string, Tags>([
        [A, sales],
        [B, { labels: ['old'] }],
      ]),
    );
    expect((await replayRoutes(rows(...log), at(6))).tagsAsOf).toEqual(
      new Map<string, Tags>([
        [A, sales],
        [C, { labels: ['berlin'] }],
      ]),
    );
    expect((await replayRoutes(rows(...log), at(9))).tagsAsOf).toEqual(new Map([[C, { labels: ['berlin'] }]]));
  });
});
