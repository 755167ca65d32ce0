// Changes that wait for the requester's confirmation. They are stored as JSON with the pending
// confirmation and read back through this schema, so a confirmation always carries what it promised.
import { z } from 'zod';

const agentRef = z.object({ id: z.string(), name: z.string().optional() });

export const pendingChange = z.discriminatedUnion('kind', [
  // Capabilities, when a search showed them (or a look-up found them), are kept once the number is bought.
  z.object({ kind: z.literal('number.buy'), number: z.string(), capabilities: z.array(z.string()).optional() }),
  z.object({
    kind: z.literal('number.release'),
    numberId: z.string(),
    number: z.string(),
    routedAgent: agentRef.optional(),
  }),
  // An agent that numbers still route to is refused before any confirmation (see requestDeleteAgent).
  z.object({ kind: z.literal('agent.delete'), agentId: z.string(), agentName: z.string() }),
  z.object({
    kind: z.literal('routing.map'),
    phoneNumber: z.string(),
    agentId: z.string(),
    agentName: z.string(),
    previousAgent: agentRef.optional(),
  }),
]);
export type PendingChange = z.infer<typeof pendingChange>;

/**
 * A change about to reach the provider, as its intent records it: a confirmed change, or one that needs no
 * confirmation (creating an agent, mapping a number that routes nowhere).
 */
export const changeIntent = z.discriminatedUnion('kind', [
  ...pendingChange.options,
  z.object({
    kind: z.literal('agent.create'),
    name: z.string(),
    language: z.string(),
    /** The agents of that name before the creation was sent: one more afterwards is this one (see agentsNamedSince). */
    namedBefore: z.array(z.string()).optional(),
  }),
]);
export type ChangeIntent = z.infer<typeof changeIntent>;

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

/** How each kind of bulk change is audited: the batch as one request, its items as the single changes they are. */
export const BATCH_AUDIT_ACTION = {
  'routing.map': 'batch.map',
  'number.buy': 'batch.buy',
  'number.release': 'batch.release',
} as const;
