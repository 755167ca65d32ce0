// What was just bought, carried from a buy's answer to the agent its numbers are routed to: one number, or the
// numbers a batch bought.
import { z } from 'zod';

export const bought = z.union([z.object({ number: z.string() }), z.object({ batchId: z.string() })]);
export type Bought = z.infer<typeof bought>;
