// Changes as ops speaks of them: what waits for confirmation and what an intent records (their schemas are the
// store's records, read back typed), what a confirmation prompt shows, and how a batch's items are named.

import type { PendingChange } from '../store/records.js';
import type { Result } from './types.js';

export { type ChangeIntent, changeIntent, type PendingChange, pendingChange } from '../store/records.js';

/** What the Slack layer shows for confirmation: the exact effect, and the single-use id to confirm it. */
export interface ConfirmationPrompt {
  confirmationId: string;
  expiresAt: string;
  change: PendingChange;
  /** Set when a click is not enough: the label of the text the requester must type (see policies.ts). */
  mustType?: string;
}

/** An agent that numbers still route to: it cannot be deleted until they route elsewhere. */
export interface AgentInUse {
  agent: { id: string; name: string };
  /** The first of its numbers, for a Map button each. */
  numbers: string[];
  total: number;
}

/** One change asked for on its own: its confirmation to show, or (an agent to delete) the numbers still routed to it. */
export type Asked = Result<
  { status: 'needs_confirmation'; prompt: ConfirmationPrompt } | { status: 'in_use'; inUse: AgentInUse }
>;

/**
 * An item of a bulk change is carried out as a change of its own, with its own intent under the id `BATCH/SEQ`
 * (its batch holds its locks), and audited under its batch's correlation id, so that the audit shows the batch as one
 * request.
 */
export const itemCorrelationId = (batchId: string, seq: number): string => `${batchId}/${seq}`;

/** The batch and item a correlation id names, when it names an item of a batch. */
export function batchItemOf(correlationId: string): { batchId: string; seq: number } | undefined {
  const match = /^(.+)\/(\d+)$/.exec(correlationId);
  return match?.[1] && match[2] ? { batchId: match[1], seq: Number(match[2]) } : undefined;
}

/** Its batch for an item of one, whose run and lease cover it; else the change itself. */
export const requestIdOf = (correlationId: string): string => batchItemOf(correlationId)?.batchId ?? correlationId;
