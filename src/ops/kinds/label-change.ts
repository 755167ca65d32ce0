// Labels and an owning team on a number or an agent: kept by the app (the provider has no tags), changed at once
// (nothing is spent, and Undo walks it back), audited with the tags before and after so that the audit log alone
// rebuilds them, and announced like any change. Its work calls no provider: the tags are written in the transaction
// that audits its outcome.
import { z } from 'zod';
import { groupId, labelSchema } from '../../settings-schema.js';
import { NO_TAGS, type Tags } from '../../store/tags.js';
import type { OpsDeps } from '../deps.js';
import type { Phrase } from '../phrase.js';
import { fail } from '../types.js';
import type { Verified, Work } from '../work.js';
import type { ChangeKind, Made } from './kind.js';

const NAME = 'label.change';

export const tagsSchema = z.object({ labels: z.array(labelSchema), owner: groupId.optional() });

const change = z.object({
  kind: z.literal(NAME),
  /** A number (`+…`) or an agent's id. */
  target: z.string(),
  /** The agent's name, when the target is an agent. */
  agentName: z.string().optional(),
  add: z.array(labelSchema),
  remove: z.array(labelSchema),
  /** The owning team to set, or null to leave it owned by nobody; absent leaves the owner as it is. */
  owner: groupId.nullable().optional(),
  /** The change this one walks back (an Undo): its correlation id. */
  undoes: z.string().optional(),
  /** The tags it must find (an Undo's: those its change left), so that it never walks back over a later change. */
  expect: tagsSchema.optional(),
});
export type LabelChange = z.infer<typeof change>;

const labelled = z.object({
  action: z.literal(NAME),
  target: z.string(),
  agentName: z.string().optional(),
  before: tagsSchema,
  after: tagsSchema,
});
type Labelled = z.infer<typeof labelled>;

/** Whether a label change's target is a number (an agent's id never starts with +). */
export const isNumberTarget = (target: string): boolean => target.startsWith('+');

/** The tags a change leaves, from the tags it finds: labels sorted, an owner set, cleared or kept. */
export function tagsAfter(found: Tags, asked: Pick<LabelChange, 'add' | 'remove' | 'owner'>): Tags {
  const labels = [...new Set([...found.labels.filter((label) => !asked.remove.includes(label)), ...asked.add])].sort();
  const owner = asked.owner === undefined ? found.owner : (asked.owner ?? undefined);
  return { labels, ...(owner ? { owner } : {}) };
}

export const sameTags = (a: Tags, b: Tags): boolean =>
  a.owner === b.owner && a.labels.length === b.labels.length && a.labels.every((label, i) => label === b.labels[i]);

const lockKey = (target: string) => (isNumberTarget(target) ? `number:${target}` : `agent:${target}`);

function labelWork(deps: OpsDeps, record: LabelChange, by: string): Work {
  return {
    action: NAME,
    target: record.target,
    params: auditParams(record),
    intent: record,
    lockKeys: [lockKey(record.target)],
    run: async () => {
      const before = (await deps.store.tags.of([record.target])).get(record.target) ?? NO_TAGS;
      if (record.expect && !sameTags(before, record.expect)) return changedSince(record.target);
      const after = tagsAfter(before, record);
      if (sameTags(before, after)) {
        return fail('conflict', 'Those labels and that owner are already set: nothing was changed.', {
          code: 'unchanged',
        });
      }
      const { agentName, target } = record;
      return {
        ok: true,
        change: { action: NAME, target, ...(agentName ? { agentName } : {}), before, after },
        found: { before, after },
        keep: (deps) => deps.store.tags.set(target, after, by),
      };
    },
  };
}

/** An Undo finding other tags than its change left: walked back, it would undo the later change too. */
export const changedSince = (target: string) =>
  fail('conflict', `The labels or the owner of ${target} were changed since: nothing was undone.`, {
    code: 'changed_since',
  });

const auditParams = ({ add, remove, owner, agentName, undoes }: LabelChange) => ({
  add,
  remove,
  ...(owner !== undefined ? { owner } : {}),
  ...(agentName ? { name: agentName } : {}),
  ...(undoes ? { undoes } : {}),
});

/** A label change's work runs no provider call: with its intent still open, its outcome was never written. */
function verifyLabels(): Promise<Verified> {
  return Promise.resolve(
    fail('conflict', 'The labels were not changed: the app stopped before writing them. Ask again.'),
  );
}

const labelList = (labels: readonly string[]): Phrase =>
  labels.flatMap((label, index): Phrase => [...(index ? [', '] : []), { code: label }]);

/** What a change did to labels and owner, as a phrase: "added team:sales; owner now @sales (was nobody)". */
export function tagsPhrase(before: Tags, after: Tags): Phrase {
  const added = after.labels.filter((label) => !before.labels.includes(label));
  const removed = before.labels.filter((label) => !after.labels.includes(label));
  const parts: Phrase[] = [];
  if (added.length) parts.push([`added ${added.length === 1 ? 'label' : 'labels'} `, ...labelList(added)]);
  if (removed.length) parts.push([`removed ${removed.length === 1 ? 'label' : 'labels'} `, ...labelList(removed)]);
  if (before.owner !== after.owner) {
    const owner = (id: string | undefined): Phrase => (id ? [{ member: id }] : ['nobody']);
    parts.push(['owner now ', ...owner(after.owner), ' (was ', ...owner(before.owner), ')']);
  }
  return parts.flatMap((part, index): Phrase => [...(index ? ['; '] : []), ...part]);
}

/** What a label change asks for, before it finds the tags it changes. */
function askedPhrase({ add, remove, owner }: LabelChange): Phrase {
  const parts: Phrase[] = [];
  if (add.length) parts.push(['add ', ...labelList(add)]);
  if (remove.length) parts.push(['remove ', ...labelList(remove)]);
  if (owner !== undefined) parts.push(owner ? ['give it to ', { member: owner }] : ['leave it owned by nobody']);
  return parts.flatMap((part, index): Phrase => [...(index ? ['; '] : []), ...part]);
}

const targetPhrase = (target: string, agentName: string | undefined): Phrase =>
  isNumberTarget(target) ? [{ number: target }] : [{ agent: { id: target, name: agentName } }];

const madeTags = (made: Made, which: 'before' | 'after'): Tags | undefined => {
  const parsed = tagsSchema.safeParse(made.params[which]);
  return parsed.success ? parsed.data : undefined;
};

export const labelChange: ChangeKind<LabelChange, Labelled> = {
  name: NAME,
  record: change,
  announced: labelled,
  role: 'operator',
  permits: 'change labels and owners',
  spends: false,
  // Asked by command it goes at once (labels.ts); asked as a record (an Undo), it is confirmed like any change.
  confirm: {
    verb: 'Apply',
    title: 'Change labels',
    effect: (record) => ['On ', ...targetPhrase(record.target, record.agentName), ': ', ...askedPhrase(record)],
    destroys: () => false,
    kept: () => ['The labels and the owner were not changed.'],
    gerund: 'changing labels',
  },
  target: (record) => record.target,
  subject: (announced) => announced.target,
  auditParams,
  takesFromAgent: () => false,
  work: labelWork,
  verify: verifyLabels,
  did: ({ target, agentName, before, after }) => [
    'labelled ',
    ...targetPhrase(target, agentName),
    ': ',
    ...tagsPhrase(before, after),
  ],
  lookUp: ({ target }) => (isNumberTarget(target) ? `/voice history ${target}` : `/voice agents ${target}`),
  happened: (made) => {
    const [before, after] = [madeTags(made, 'before'), madeTags(made, 'after')];
    return before && after ? tagsPhrase(before, after) : ['changed labels'];
  },
  undo: {
    inverse: async (made) => {
      const [before, after] = [madeTags(made, 'before'), madeTags(made, 'after')];
      if (!before || !after) return { cannot: 'This label change does not say what it replaced.' };
      return {
        change: {
          kind: NAME,
          target: made.target,
          ...(typeof made.params.name === 'string' ? { agentName: made.params.name } : {}),
          add: before.labels.filter((label) => !after.labels.includes(label)),
          remove: after.labels.filter((label) => !before.labels.includes(label)),
          ...(before.owner !== after.owner ? { owner: before.owner ?? null } : {}),
          expect: after,
        },
      };
    },
  },
};
