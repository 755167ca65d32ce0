// A batch's card, as `/voice audit`'s Items button shows it at any point of its life: it never reads as done before
// the batch has ended, and offers no plan again before then.
import { describe, expect, it } from 'vitest';
import type { BatchView } from '../../src/ops/batches.js';
import { pageOf } from '../../src/ops/pages.js';
import { ACTION } from '../../src/slack/ids.js';
import { resultMessage } from '../../src/slack/views/batches.js';
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

  it('says where a batch cut short stopped, and offers the rest again', () => {
    const shown = resultMessage(batch('interrupted', { succeeded: 4, pending: 6 }));
    expect(rendered(shown)).toContain('Stopped: 4 of 10 routed');
    expect(elements(shown, ACTION.planAgain)).toHaveLength(1);
  });
});
