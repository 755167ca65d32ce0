// Changes as ops speaks of them: what waits for confirmation and what an intent records (their schemas are the
// store's records, read back typed), what a confirmation prompt shows, and how a batch's items are named.

import type { PendingChange } from '../store/records.js';

export { type ChangeIntent, changeIntent, type PendingChange, pendingChange } from '../store/records.js';

/** What the Slack layer shows for confirmation: the exact effect, and the single-use id to confirm it. */
export interface ConfirmationPrompt {
  confirmationId: string;
  expiresAt: string;
  change: PendingChange;
  /** Set when a click is not enough: the label of the text the requester must type (see policies.ts). */
  mustType?: string;
}

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

/**
 * The request a change belongs to: its batch for an item of one, else the change itself. The change's audit rows carry
 * that request's correlation id, and the request's run and lease cover the change (a batch holds its items' locks).
 */
export const requestIdOf = (correlationId: string): string => batchItemOf(correlationId)?.batchId ?? correlationId;
