// A batch's card, as `/voice audit`'s Items button shows it at any point of its life: it never reads as done before
// the batch has ended, and offers no plan again before then.
import { describe, expect, it } from 'vitest';
import type { BatchView } from '../../src/ops/batches.js';
import { pageOf } from '../../src/ops/pages.js';
import { ACTION } from '../../src/slack/ids.js';
import {
  ANNOUNCED_NUMBERS,
  batchAnnouncementMessage,
  planMessage,
  resultMessage,
} from '../../src/slack/views/batches.js';
import { elements, rendered } from './support.js';

function batch(state: BatchView['state'], counts: Partial<BatchView['counts']>): BatchView {
  return {
    id: 'b_1',
    state,
    requestedBy: 'U0ALICE',
    expiresAt: '2025-03-01T12:44:00.000Z',
    plan: {
      request: { kind: 'routing.map', agentId: 'agt_berlin' },
      agent: { id: 'agt_berlin', name: 'Berlin' },
      totals: { change: 10, taken: 0, unchanged: 0 },
    },
    counts: { pending: 0, running: 0, succeeded: 0, failed: 0, cancelled: 0, unchanged: 0, ...counts },
    total: 10,
    items: pageOf([], { page: 1, size: 20 }, { batchId: 'b_1' }),
    failures: [],
  };
}

describe('resultMessage', () => {
  it('says a batch waiting for its approver, under way or expired has not ended, and offers nothing again', () => {
    const cases = [
      [batch('awaiting', { pending: 10 }), 'Waiting for a second approver'],
      [batch('running', { succeeded: 3, failed: 1, running: 2, pending: 4 }), 'Under way: routed 3 of 10 numbers'],
      [batch('expired', { pending: 10 }), 'Not applied'],
    ] as const;
    for (const [view, headline] of cases) {
      const shown = resultMessage(view);
      expect(rendered(shown)).toContain(headline);
      expect(rendered(shown)).not.toContain(':white_check_mark:');
      expect(elements(shown, ACTION.planAgain)).toEqual([]);
    }
  });

  it('counts the items being settled of an ended batch, says they will be told, never failed, and offers no Undo yet', () => {
    const undo = {};
    const settling = resultMessage({ ...batch('finished', { succeeded: 8, running: 2 }), undo });
    expect(rendered(settling)).toContain(
      'Routed 8 of 10 numbers to *Berlin* (`agt_berlin`); 2 being settled: the provider has not answered for them ' +
        'yet, and you will be told how they end.',
    );
    expect(rendered(settling)).not.toMatch(/failed|:white_check_mark:/);
    expect(elements(settling, ACTION.undoChange)).toEqual([]);
    const one = rendered(resultMessage(batch('finished', { succeeded: 9, running: 1 })));
    expect(one).toContain(
      '1 being settled: the provider has not answered for it yet, and you will be told how it ends',
    );
    const settled = resultMessage({ ...batch('finished', { succeeded: 10 }), undo });
    expect(rendered(settled)).toContain(':white_check_mark: Routed 10 of 10 numbers');
    expect(rendered(settled)).not.toContain('being settled');
    expect(elements(settled, ACTION.undoChange)).toHaveLength(1);
    // While the batch runs, its items under way are not being settled: they are not counted so.
    expect(rendered(resultMessage(batch('running', { succeeded: 3, running: 2 })))).not.toContain('being settled');
  });

  it('says where a batch cut short stopped, and offers the rest again', () => {
    const shown = resultMessage(batch('interrupted', { succeeded: 4, pending: 6 }));
    expect(rendered(shown)).toContain('Stopped: 4 of 10 routed');
    expect(elements(shown, ACTION.planAgain)).toHaveLength(1);
  });
});

describe('batchAnnouncementMessage', () => {
  const actor = { userId: 'U0ALICE', teamId: 'T1', channelId: 'C1', source: 'command' as const };
  const numbers = (count: number) =>
    Array.from({ length: count }, (_, index) => ({ number: `+4930123450${String(index).padStart(2, '0')}` }));

  it('names the region a bulk buy bought in, and every number it bought', () => {
    const text = rendered(
      batchAnnouncementMessage({
        actor,
        batchId: 'b_1',
        kind: 'number.buy',
        region: 'DE',
        numbers: numbers(3),
        counts: { succeeded: 3, failed: 1, cancelled: 0, pending: 0 },
        total: 4,
      }),
    );
    expect(text).toContain(
      '<@U0ALICE> bought 3 numbers in Germany (DE): *+493012345000*, *+493012345001*, *+493012345002*. 1 failed.',
    );
  });

  it('names a long list up to a cap, then counts the rest', () => {
    const text = rendered(
      batchAnnouncementMessage({
        actor,
        batchId: 'b_1',
        kind: 'number.release',
        numbers: numbers(ANNOUNCED_NUMBERS + 5),
        counts: { succeeded: ANNOUNCED_NUMBERS + 5, failed: 0, cancelled: 0, pending: 0 },
        total: ANNOUNCED_NUMBERS + 5,
      }),
    );
    expect(text).toContain(`released ${ANNOUNCED_NUMBERS + 5} numbers: *+493012345000*`);
    expect(text).toContain(`*+493012345009* and 5 more.`);
    expect(text).not.toContain('+493012345010');
  });

  it('names the agent of a bulk map, and each number’s agent when a routing text routed each its own', () => {
    const one = rendered(
      batchAnnouncementMessage({
        actor,
        batchId: 'b_1',
        kind: 'routing.map',
        agent: { id: 'agt_berlin', name: 'Berlin' },
        numbers: numbers(1),
        counts: { succeeded: 1, failed: 0, cancelled: 0, pending: 0 },
        total: 1,
      }),
    );
    expect(one).toContain('<@U0ALICE> routed 1 number to *Berlin* (`agt_berlin`): *+493012345000*.');
    const each = rendered(
      batchAnnouncementMessage({
        actor,
        batchId: 'b_1',
        kind: 'routing.map',
        numbers: [
          { number: '+493012345000', agent: { id: 'agt_berlin', name: 'Berlin' } },
          { number: '+493012345001', agent: { id: 'agt_munich', name: 'Munich' } },
        ],
        counts: { succeeded: 2, failed: 0, cancelled: 0, pending: 0 },
        total: 2,
      }),
    );
    expect(each).toContain('routed 2 numbers: *+493012345000* to *Berlin*, *+493012345001* to *Munich*.');
  });
});

describe('planMessage', () => {
  it('says a labels plan with nothing left to change so, and lists the numbers it left out under their team', () => {
    const view: BatchView = {
      ...batch('planned', { unchanged: 1 }),
      plan: {
        request: { kind: 'label.change', add: ['vip'] },
        totals: { change: 0, taken: 0, unchanged: 1 },
        leftOut: [
          { number: '+4930123456', owner: 'SSALES' },
          { number: '+4930123457', owner: 'SSALES' },
        ],
      },
      total: 0,
    };
    const shown = rendered(planMessage(view, new Date('2025-03-01T12:34:00.000Z')));
    expect(shown).toContain(
      'Every one of these numbers you may change already has these labels and owner: nothing to change.',
    );
    expect(shown).toContain('Left out: owned by <!subteam^SSALES>: *+4930123456*, *+4930123457*');
  });

  it("lists the numbers a channel's binding does not cover apart from those another team owns", () => {
    const view: BatchView = {
      ...batch('planned', { pending: 1 }),
      plan: {
        request: { kind: 'label.change', add: ['vip'] },
        totals: { change: 1, taken: 0, unchanged: 0 },
        outsideScope: ['+4930123458'],
      },
      total: 1,
    };
    const shown = rendered(planMessage(view, new Date('2025-03-01T12:34:00.000Z')));
    expect(shown).toContain("Left out: not covered by this channel's binding: *+4930123458*");
    expect(shown).not.toContain('owned by');
  });
});
