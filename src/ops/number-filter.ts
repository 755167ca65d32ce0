// Which purchased numbers a listing shows, or a bulk change picks: a filter of a number's route, region, agent,
// digits, labels and owner, and what it says of a filter that cannot match anything.
import { z } from 'zod';
import { type PurchasedNumber, resourceId } from '../provider/schemas.js';
import { groupId, labelSchema } from '../settings-schema.js';
import type { Tags } from '../store/tags.js';
import { regionOf, unknownRegion } from './regions.js';
import type { Failure } from './types.js';
import { validate } from './validate.js';

/**
 * Which numbers or agents their labels and owner pick; every field given must hold. A channel's binding and a
 * subscription are such a filter too.
 */
export const tagFilter = z.object({
  /** Labels each must have. */
  labels: z.array(labelSchema).optional(),
  /** Labels none may have. */
  without: z.array(labelSchema).optional(),
  /** The team (user group) that must own it. */
  owner: groupId.optional(),
  /** true: only what nobody owns. */
  unowned: z.literal(true).optional(),
});
export type TagFilter = z.infer<typeof tagFilter>;

export function tagsMatch(filter: TagFilter, tags: Tags | undefined): boolean {
  const labels = tags?.labels ?? [];
  if (filter.labels?.some((label) => !labels.includes(label))) return false;
  if (filter.without?.some((label) => labels.includes(label))) return false;
  if (filter.owner !== undefined && tags?.owner !== filter.owner) return false;
  return !(filter.unowned && tags?.owner !== undefined);
}

/** Whether a filter reads labels or owners, so that a listing reads the tags only when it must. */
export const readsTags = (filter: TagFilter): boolean =>
  Boolean(filter.labels?.length || filter.without?.length || filter.owner || filter.unowned);

/** Which purchased numbers a listing shows; every field given must hold. It travels in buttons, hence a schema. */
export const numberFilter = tagFilter.extend({
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

export function matches(
  filter: NumberFilter,
  entry: PurchasedNumber,
  agentId: string | undefined,
  tags: ReadonlyMap<string, Tags>,
): boolean {
  if (!tagsMatch(filter, tags.get(entry.number))) return false;
  if (filter.routed !== undefined && filter.routed !== (agentId !== undefined)) return false;
  if (filter.agentId !== undefined && agentId !== filter.agentId) return false;
  if (filter.region !== undefined && regionOf(entry.number) !== filter.region) return false;
  return filter.digits === undefined || entry.number.includes(filter.digits);
}
