import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/ops/approvals.js';
import type { ConfirmationPrompt, PendingChange } from '../../src/ops/changes.js';
import type { Delete } from '../../src/ops/kinds/agent-delete.js';
import { ACTION, CALLBACK } from '../../src/slack/ids.js';
import { approvalRequestMessage } from '../../src/slack/views/approvals.js';
import { confirmationMessage, confirmationModal, confirmationSummary } from '../../src/slack/views/confirmation.js';
import { buttonLabel, elements, HOSTILE, HOSTILE_ESCAPED, rendered, unescapedMarkup } from './support.js';

const NOW = new Date('2025-03-01T12:00:00.000Z');
const EXPIRES = '2025-03-01T12:10:00.000Z';

function prompt(change: PendingChange, expiresAt = EXPIRES): ConfirmationPrompt {
  return { confirmationId: 'cf_42', expiresAt, change };
}

describe('confirmationSummary', () => {
  it('says that buying spends money', () => {
    expect(confirmationSummary({ kind: 'number.buy', number: '+14155550123' })).toBe(
      'Buy *+14155550123*. This spends money on the provider account.',
    );
  });

  it('says what releasing stops, and warns when the number routes to an agent', () => {
    const release = { kind: 'number.release', numberId: 'pn_1', number: '+14155550100' } as const;
    expect(confirmationSummary(release)).toBe(
      "Release *+14155550100* (id `pn_1`). It stops taking calls and goes back to the provider's inventory.",
    );
    const routed = confirmationSummary({ ...release, routedAgent: { id: 'ag_1', name: 'Support bot' } });
    expect(routed).toContain(':warning: It routes to *Support bot* (`ag_1`): callers will reach no agent.');
  });

  it('warns with the id alone when the routed agent has no known name', () => {
    const routed = confirmationSummary({
      kind: 'number.release',
      numberId: 'pn_1',
      number: '+14155550100',
      routedAgent: { id: 'ag_1' },
    });
    expect(routed).toContain(':warning: It routes to `ag_1`: callers will reach no agent.');
  });

  it('says that deleting stops the token', () => {
    const change: Delete = { kind: 'agent.delete', agentId: 'ag_1', agentName: 'Support bot' };
    expect(confirmationSummary(change)).toBe('Delete agent *Support bot* (`ag_1`). Its agent token stops working.');
  });

  it('says where a re-routed number went before', () => {
    const change = {
      kind: 'routing.map',
      phoneNumber: '+14155550100',
      agentId: 'ag_2',
      agentName: 'Sales bot',
      previousAgent: { id: 'ag_1', name: 'Support bot' },
    } as const;
    expect(confirmationSummary(change)).toBe(
      'Route *+14155550100* to *Sales bot* (`ag_2`). It now routes to *Support bot*: callers will reach the new ' +
        'agent instead.',
    );
    expect(confirmationSummary({ ...change, previousAgent: { id: 'ag_1' } })).toContain('It now routes to `ag_1`:');
  });

  it('escapes agent names', () => {
    const summary = confirmationSummary({
      kind: 'routing.map',
      phoneNumber: '+14155550100',
      agentId: 'ag_2',
      agentName: HOSTILE,
      previousAgent: { id: 'ag_1', name: HOSTILE },
    });
    expect(summary).toContain(`*${HOSTILE_ESCAPED}*`);
    expect(summary).not.toMatch(/<[!@h]/);
  });
});

describe('confirmationMessage', () => {
  it('offers Confirm and Cancel, both carrying the confirmation id', () => {
    const shown = confirmationMessage(prompt({ kind: 'number.buy', number: '+14155550123' }), NOW);
    const [confirm] = elements(shown, ACTION.confirmChange);
    expect([confirm?.value, confirm?.style, confirm && buttonLabel(confirm)]).toEqual(['cf_42', 'primary', 'Buy']);
    const [cancel] = elements(shown, ACTION.cancelChange);
    expect([cancel?.value, cancel?.style, cancel && buttonLabel(cancel)]).toEqual(['cf_42', undefined, 'Cancel']);
  });

  it('labels Confirm with what it does', () => {
    const label = (change: PendingChange) =>
      elements(confirmationMessage(prompt(change), NOW), ACTION.confirmChange).map(buttonLabel);
    expect(label({ kind: 'number.release', numberId: 'pn_1', number: '+1415' })).toEqual(['Release']);
    expect(label({ kind: 'agent.delete', agentId: 'ag_1', agentName: 'A' })).toEqual(['Delete']);
    expect(label({ kind: 'routing.map', phoneNumber: '+1415', agentId: 'ag_1', agentName: 'A' })).toEqual(['Re-route']);
  });

  it('colours Confirm danger where it takes something away: a release, a deletion, a re-route from an agent', () => {
    const style = (change: PendingChange) =>
      elements(confirmationMessage(prompt(change), NOW), ACTION.confirmChange).map((button) => button.style);
    const from = { id: 'ag_1', name: 'Day desk' };
    expect(style({ kind: 'number.release', numberId: 'pn_1', number: '+1415' })).toEqual(['danger']);
    expect(style({ kind: 'agent.delete', agentId: 'ag_1', agentName: 'A' })).toEqual(['danger']);
    expect(
      style({ kind: 'routing.map', phoneNumber: '+1415', agentId: 'ag_2', agentName: 'B', previousAgent: from }),
    ).toEqual(['danger']);
    expect(style({ kind: 'number.buy', number: '+1415' })).toEqual(['primary']);
  });

  it('says when it expires, in minutes and as a Slack date', () => {
    const text = rendered(confirmationMessage(prompt({ kind: 'number.buy', number: '+1415' }), NOW));
    expect(text).toContain('Expires in 10 minutes');
    expect(text).toContain(`<!date^${Date.parse(EXPIRES) / 1000}^{time}|12:10 UTC>`);
    const later = rendered(
      confirmationMessage(prompt({ kind: 'number.buy', number: '+1415' }), new Date(Date.parse(EXPIRES) - 30_000)),
    );
    expect(later).toContain('Expires in 1 minute,');
  });

  it('says so once it has expired', () => {
    const text = rendered(confirmationMessage(prompt({ kind: 'number.buy', number: '+1415' }), new Date(EXPIRES)));
    expect(text).toContain('This confirmation expired at');
    expect(text).not.toContain('Expires in');
  });

  it('states the summary in the message and its notification text', () => {
    const shown = confirmationMessage(prompt({ kind: 'number.buy', number: '+14155550123' }), NOW);
    expect(shown.text).toBe('Buy *+14155550123*. This spends money on the provider account.');
    expect(rendered(shown.blocks)).toContain(shown.text);
  });

  it('lets no name through unescaped, allowing only its own date token', () => {
    const change: Delete = { kind: 'agent.delete', agentId: HOSTILE, agentName: HOSTILE };
    expect(unescapedMarkup(confirmationMessage(prompt(change), NOW))).toEqual([]);
  });
});

describe('confirmationModal', () => {
  it('confirms a buy on submit and cancels on close, with the id in private_metadata', () => {
    const view = confirmationModal(prompt({ kind: 'number.buy', number: '+14155550123' }), NOW);
    expect(view.callback_id).toBe(CALLBACK.confirmChange);
    expect(view.private_metadata).toBe('cf_42');
    expect(view.notify_on_close).toBe(true);
    expect(view.submit?.text).toBe('Buy');
    expect(elements(view, ACTION.confirmChange)).toEqual([]);
  });

  it.each([
    { kind: 'number.release', numberId: 'pn_1', number: '+1415' },
    { kind: 'agent.delete', agentId: 'ag_1', agentName: 'A' },
    { kind: 'routing.map', phoneNumber: '+1415', agentId: 'ag_2', agentName: 'B', previousAgent: { id: 'ag_1' } },
  ] as PendingChange[])('confirms $kind with a red button in the modal, since Slack colours no submit', (change) => {
    const view = confirmationModal(prompt(change), NOW);
    expect(view.submit).toBeUndefined();
    expect(view.notify_on_close).toBe(true);
    expect(elements(view, ACTION.confirmChange).map((b) => [b.value, b.style])).toEqual([['cf_42', 'danger']]);
  });

  it('keeps the submit button where typed digits must be submitted', () => {
    const release: PendingChange = { kind: 'number.release', numberId: 'pn_1', number: '+1415' };
    const view = confirmationModal({ ...prompt(release), mustType: 'Last four digits' }, NOW);
    expect(view.submit?.text).toBe('Release');
    expect(elements(view, ACTION.confirmChange)).toEqual([]);
  });

  it('states the effect and the expiry', () => {
    const change: Delete = { kind: 'agent.delete', agentId: 'ag_1', agentName: 'Support bot' };
    const view = confirmationModal(prompt(change), NOW);
    expect(view.close?.text).toBe('Cancel');
    expect(elements(view, ACTION.confirmChange).map(buttonLabel)).toEqual(['Delete']);
    expect(view.title.text.length).toBeLessThanOrEqual(24);
    expect(rendered(view)).toContain('Delete agent *Support bot* (`ag_1`). Its agent token stops working.');
    expect(rendered(view)).toContain('Expires in 10 minutes');
  });
});

describe('approvalRequestMessage', () => {
  const request = (change: PendingChange): ApprovalRequest => ({
    approvalId: 'ap_1',
    correlationId: 'c1',
    change,
    requester: { userId: 'U0ALICE', source: 'button' },
    expiresAt: EXPIRES,
    hoursOpen: 24,
  });
  const styles = (change: PendingChange) => {
    const shown = approvalRequestMessage(request(change));
    return [...elements(shown, ACTION.approveChange), ...elements(shown, ACTION.rejectChange)].map((b) => b.style);
  };

  it('makes Approve red when approving takes something away, and leaves Reject plain', () => {
    expect(styles({ kind: 'number.release', numberId: 'pn_1', number: '+1415' })).toEqual(['danger', undefined]);
    expect(styles({ kind: 'agent.delete', agentId: 'ag_1', agentName: 'A' })).toEqual(['danger', undefined]);
    const from = { id: 'ag_1', name: 'A' };
    expect(
      styles({ kind: 'routing.map', phoneNumber: '+1415', agentId: 'ag_2', agentName: 'B', previousAgent: from }),
    ).toEqual(['danger', undefined]);
    expect(styles({ kind: 'number.buy', number: '+1415' })).toEqual(['primary', undefined]);
  });
});
