// Numbers' labels and owners at a moment, rebuilt from the audit log as routes are (route-replay.ts): a label
// change's outcome row says the tags it left, a release forgets them, and a buy starts bare unless its outcome row
// carries the tags it was bought with.
import type { AuditEvent } from '../store/audit.js';
import type { Tags } from '../store/tags.js';
import { KIND, type RouteEffect } from './kinds/index.js';
import { isNumberTarget, tagsSchema } from './kinds/label-change.js';

function keep(tags: Map<string, Tags>, number: string, kept: Tags | undefined): void {
  if (kept && (kept.labels.length > 0 || kept.owner !== undefined)) tags.set(number, kept);
  else tags.delete(number);
}

const tagsIn = (value: unknown): Tags | undefined => {
  const parsed = tagsSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
};

/** What a row, and the route effects replayed from it, did to numbers' tags. */
export function replayTags(tags: Map<string, Tags>, row: AuditEvent, effects: readonly RouteEffect[]): void {
  if (row.outcome !== 'succeeded') return;
  if (row.action === KIND.label && row.target !== undefined && isNumberTarget(row.target)) {
    const after = tagsIn(row.params?.after);
    if (after) keep(tags, row.target, after);
    return;
  }
  for (const { number, ownership } of effects) {
    if (ownership) keep(tags, number, ownership === 'bought' ? tagsIn(row.params?.tags) : undefined);
  }
}
