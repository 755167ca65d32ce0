// Which purchased numbers a listing shows, or a bulk change picks: a filter of a number's route, region, agent and
// digits, and what it says of a filter that cannot match anything.
import { z } from 'zod';
import { type PurchasedNumber, resourceId } from '../provider/schemas.js';
import { regionOf, unknownRegion } from './regions.js';
import type { Failure } from './types.js';
import { validate } from './validate.js';

/** Which purchased numbers a listing shows; every field given must hold. It travels in buttons, hence a schema. */
export const numberFilter = z.object({
  /** true: only numbers that route to an agent; false: only those that route nowhere. */
  routed: z.boolean().optional(),
  /** A region code, told from the number's country calling code. */
  region: z.string().optional(),
  /** Only numbers that route to this agent. */
  agentId: z.string().optional(),
  /** Digits found anywhere in the number, e.g. an area code. */
  digits: z.string().optional(),
});
export type NumberFilter = z.infer<typeof numberFilter>;

/** A filter that cannot match anything is explained rather than answered with an empty list. */
export function refuseFilter(filter: NumberFilter): Failure | undefined {
  if (filter.region !== undefined) {
    const unknown = unknownRegion(filter.region);
    if (unknown) return unknown;
  }
  if (filter.agentId !== undefined) {
    const checked = validate(resourceId, filter.agentId);
    if (!checked.ok) return { ...checked, field: 'agent_id', message: `Agent id ${checked.message}` };
  }
  return undefined;
}

export function matches(filter: NumberFilter, entry: PurchasedNumber, agentId: string | undefined): boolean {
  if (filter.routed !== undefined && filter.routed !== (agentId !== undefined)) return false;
  if (filter.agentId !== undefined && agentId !== filter.agentId) return false;
  if (filter.region !== undefined && regionOf(entry.number) !== filter.region) return false;
  return filter.digits === undefined || entry.number.includes(filter.digits);
}
