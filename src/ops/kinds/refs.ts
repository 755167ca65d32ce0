// The numbers and agents that records and announcements of several kinds name.
import { z } from 'zod';
import { groupId, labelSchema } from '../../settings-schema.js';

export const numberRef = z.object({ id: z.string(), number: z.string() });
/** An agent, whose name may be unknown (one routed to before its name was read, or long gone). */
export const agentRef = z.object({ id: z.string(), name: z.string().optional() });
export const namedAgent = z.object({ id: z.string(), name: z.string() });

/** The labels and owner a number or an agent is born with: those of the bound channel it was bought or created in. */
export const bornTags = z.object({ labels: z.array(labelSchema), owner: groupId.optional() });

/** Why a change to a number the account no longer has cannot be walked back. */
export const noLongerOurs = (number: string) => `${number} is no longer one of your numbers.`;
