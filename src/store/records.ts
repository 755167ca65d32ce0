// The changes the store keeps, as records: a change waiting for confirmation (with its confirmation, or as a batch's
// item) and a change about to reach the provider (its intent). Stored as JSON and parsed here once, where they are
// read, so that everything above works on typed records, and a confirmation always carries what it promised.
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
