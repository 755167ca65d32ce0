// Labels and an owning team on a number or an agent: kept by the app (the provider has no tags), changed at once
// (nothing is spent, and Undo walks it back), audited with the tags before and after so that the audit log alone
// rebuilds them, and announced like any change. Its work calls no provider: the tags are written in the transaction
// that audits its outcome. In bulk: the same labels and owner on every number a filter picks, or each number its own
// change (a routing text's `# labels` part, an Undo).
import { z } from 'zod';
import { count, counted } from '../../counts.js';
import { groupId, labelSchema } from '../../settings-schema.js';
import { NO_TAGS, type Tags } from '../../store/tags.js';
import { type AccountRead, MAX_BATCH_ITEMS, named, type Planned, pick } from '../bulk-items.js';
import type { OpsDeps } from '../deps.js';
import { numberFilter } from '../number-filter.js';
import type { Phrase } from '../phrase.js';
import { type Failure, fail, type Result } from '../types.js';
import { visible } from '../visible.js';
import type { Verified, Work } from '../work.js';
import type { BulkForm, ChangeKind, Made } from './kind.js';
import { noLongerOurs } from './refs.js';

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

type Asked = Pick<LabelChange, 'add' | 'remove' | 'owner'>;

/** What takes `from` to `to`, touching nothing else: labels added and removed, and the owner when it differs. */
export function changeBetween(from: Tags, to: Tags): Asked {
  return {
    add: to.labels.filter((label) => !from.labels.includes(label)),
    remove: from.labels.filter((label) => !to.labels.includes(label)),
    ...(from.owner !== to.owner ? { owner: to.owner ?? null } : {}),
  };
}

/** A change that asks for nothing, or adds and removes one label at once. */
export function refuseAsked({ add, remove, owner }: Asked): Failure | undefined {
  if (add.length + remove.length === 0 && owner === undefined) {
    return fail('invalid', 'Name a label to add (+label), one to remove (-label), or an owner.');
  }
  const both = add.find((label) => remove.includes(label));
  return both === undefined ? undefined : fail('invalid', `${visible(both)} is both added and removed: say which.`);
}

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
function askedPhrase({ add, remove, owner }: Asked): Phrase {
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
  givesTo: (record) => record.owner ?? undefined,
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
    inverse: async (made, scene) => {
      const [before, after] = [madeTags(made, 'before'), madeTags(made, 'after')];
      if (!before || !after) return { cannot: 'This label change does not say what it replaced.' };
      // Labels are kept only for what is there: a number released, or an agent deleted, since is left out.
      const { numbers, agents } = await scene.account();
      if (isNumberTarget(made.target) ? !numbers.has(made.target) : !agents.has(made.target)) {
        return {
          cannot: isNumberTarget(made.target)
            ? noLongerOurs(made.target)
            : `No agent has the id ${visible(made.target)} any more.`,
        };
      }
      return {
        change: {
          kind: NAME,
          target: made.target,
          ...(typeof made.params.name === 'string' ? { agentName: made.params.name } : {}),
          ...changeBetween(after, before),
          expect: after,
        },
      };
    },
  },
};

const asked = z.object({
  add: z.array(labelSchema).optional(),
  remove: z.array(labelSchema).optional(),
  owner: groupId.nullable().optional(),
});

/**
 * The same labels and owner on every number a filter picks (or the numbers named), or each number its own change: a
 * routing text's labels, an Undo's inverses.
 */
const labelMany = asked.extend({
  kind: z.literal(NAME),
  filter: numberFilter.optional(),
  numbers: named,
  changes: z
    .array(asked.extend({ number: z.string() }))
    .max(MAX_BATCH_ITEMS)
    .optional(),
  /** The change this plan undoes, when it is an Undo: its correlation id, which its audit row names. */
  undoes: z.string().optional(),
});
type LabelMany = z.infer<typeof labelMany>;

const askedOf = ({ add = [], remove = [], owner }: z.infer<typeof asked>): Asked => ({
  add,
  remove,
  ...(owner !== undefined ? { owner } : {}),
});

async function planLabels(deps: OpsDeps, request: LabelMany, read?: AccountRead): Promise<Result<Planned>> {
  const each = request.changes ? await eachOwn(deps, request.changes, read) : await sameOnAll(deps, request);
  if (!each.ok) return each;
  const found = await deps.store.tags.of(each.changes.map((change) => change.number));
  const items = each.changes.map(({ number, ...asked }) => {
    const change: LabelChange = { kind: NAME, target: number, ...asked };
    const before = found.get(number) ?? NO_TAGS;
    return { change, unchanged: sameTags(before, tagsAfter(before, change)) };
  });
  return { ok: true, items };
}

type Each = Result<{ changes: (Asked & { number: string })[] }>;

async function sameOnAll(deps: OpsDeps, request: LabelMany): Promise<Each> {
  const change = askedOf(request);
  const refused = refuseAsked(change);
  if (refused) return refused;
  const picked = await pick(deps, await deps.store.routes.agentByNumber(), request);
  if (!picked.ok) return picked;
  return { ok: true, changes: picked.picked.map(({ number }) => ({ number, ...change })) };
}

/** Each number its own change: every number must still be the account's. */
async function eachOwn(deps: OpsDeps, changes: NonNullable<LabelMany['changes']>, read?: AccountRead): Promise<Each> {
  const owned = new Set(
    (read?.numbers ?? (await deps.lists.numbers.get({ fresh: true }))).map((entry) => entry.number),
  );
  const gone = changes.find((change) => !owned.has(change.number));
  if (gone) return fail('not_found', noLongerOurs(visible(gone.number)));
  return { ok: true, changes: changes.map(({ number, ...rest }) => ({ number, ...askedOf(rest) })) };
}

/** What a plan asks, as its sentence says it. */
function askedWords(request: LabelMany): Phrase {
  if (request.changes) return ['set each number’s labels and owner as its line says'];
  return askedPhrase(askedOf(request));
}

export const labelChangeBulk: BulkForm<typeof labelMany, LabelChange> = {
  request: labelMany,
  audit: 'batch.label',
  plan: planLabels,
  again: (request, numbers) => {
    if (!request.changes) return { ...request, numbers };
    const kept = new Set(numbers);
    return { ...request, changes: request.changes.filter((change) => kept.has(change.number)) };
  },
  // One change is asked on its own, as by hand: its target may be an agent, which a batch has no place for.
  gather: (changes) =>
    changes.length > 1
      ? {
          kind: NAME,
          changes: changes.map(({ target, add, remove, owner }) => ({
            number: target,
            add,
            remove,
            ...(owner !== undefined ? { owner } : {}),
          })),
        }
      : undefined,
  words: {
    doing: 'Labelling',
    done: 'Labelled',
    apply: 'Apply to',
    verb: 'label',
    items: 'labels of',
    plan: (request, totals) => [
      ...askedWords(request),
      `. ${counted(totals.change, 'number')} to change`,
      ...(totals.unchanged ? [` · ${count(totals.unchanged)} already so (unchanged)`] : []),
    ],
    alreadySo: 'has these labels and owner',
    effect: (change, unchanged) => (unchanged ? ['already so, unchanged'] : askedPhrase(change)),
    taken: 'change labels',
    destroys: false,
  },
};
