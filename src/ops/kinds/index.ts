// The registry of kinds of change: the one place a kind is added. Each kind registers the shape of its record with the
// store and its words with everything that says it; the dispatchers below are how the rest of the app asks a kind what
// it does, whatever the kind.
import { z } from 'zod';
import { registerRecord, type StoredChange } from '../../store/records.js';
import type { Change, UndoOffer } from '../announcements.js';
import type { OpsDeps } from '../deps.js';
import type { Phrase } from '../phrase.js';
import type { ProviderReads } from '../provider-reads.js';
import type { Role } from '../types.js';
import type { Verified, Work } from '../work.js';
import { agentCreate } from './agent-create.js';
import { agentDelete } from './agent-delete.js';
import type { BulkForm, BulkWords, ChangeKind, ConfirmWords } from './kind.js';
import { labelChange, labelChangeBulk } from './label-change.js';
import { numberBuy, numberBuyBulk } from './number-buy.js';
import { numberRelease, numberReleaseBulk } from './number-release.js';
import { registerRole } from './roles.js';
import { routingMap, routingMapBulk } from './routing-map.js';
import { settingsChange } from './settings-change.js';

/** A kind as the registry keeps it: handed only records of its own shape, which its name picks. */
type AnyKind = ChangeKind<StoredChange, Change>;
type AnyBulkForm = BulkForm<z.ZodType<{ kind: string }>, StoredChange>;

const kinds = new Map<string, AnyKind>();
const bulkForms = new Map<string, AnyBulkForm>();

/**
 * A name, or a command's words, given twice is a mistake. Returns what removes the kind, so a test leaves the registry
 * as it found it.
 */
export function registerKind<R extends StoredChange, A extends Change, S extends z.ZodType<{ kind: string }>>(
  kind: ChangeKind<R, A>,
  bulk?: BulkForm<S, R>,
): () => void {
  if (kinds.has(kind.name)) throw new Error(`A kind of change named ${kind.name} is registered already.`);
  const words = kind.command?.words.join(' ').toLowerCase();
  const taken = [...kinds.values()].find((other) => other.command?.words.join(' ').toLowerCase() === words);
  if (words !== undefined && taken) throw new Error(`The command ${words} is ${taken.name}'s already.`);
  const forgetRecord = registerRecord(
    kind.name,
    { schema: kind.record, waits: kind.confirm !== undefined },
    bulk?.request,
  );
  // Each method of a kind takes only its own records; the registry hands it no other (see kindOf).
  kinds.set(kind.name, kind as unknown as AnyKind);
  const forgetRole = registerRole(kind.name, kind.role);
  if (bulk) bulkForms.set(kind.name, bulk as unknown as AnyBulkForm);
  return () => {
    kinds.delete(kind.name);
    bulkForms.delete(kind.name);
    forgetRecord();
    forgetRole();
  };
}

registerKind(numberBuy, numberBuyBulk);
registerKind(numberRelease, numberReleaseBulk);
registerKind(routingMap, routingMapBulk);
registerKind(agentCreate);
registerKind(agentDelete);
registerKind(settingsChange);
registerKind(labelChange, labelChangeBulk);

/** A bulk change's request, of a kind with a bulk form: read back with its plan (store/records.ts), planned again. */
export type BulkRequest = z.infer<
  (typeof numberBuyBulk | typeof numberReleaseBulk | typeof routingMapBulk | typeof labelChangeBulk)['request']
>;

/** The kinds by the names the layers above use for them: `KIND.map` is `routing.map`. */
export const KIND = {
  buy: numberBuy.name,
  release: numberRelease.name,
  map: routingMap.name,
  createAgent: agentCreate.name,
  deleteAgent: agentDelete.name,
  settings: settingsChange.name,
  label: labelChange.name,
} as const;
export type Kind = (typeof KIND)[keyof typeof KIND] | (string & {});

/** The kind of change a name gives; a name no kind has is a bug (a record's kind was checked when it was read). */
export function changeKind(name: string): AnyKind {
  const kind = kinds.get(name);
  if (!kind) throw new Error(`No kind of change is named ${name}.`);
  return kind;
}

/** The kind a record, or an announcement, is of. */
export const kindOf = (change: StoredChange): AnyKind => changeKind(change.kind);
const announcedKind = (change: Change): AnyKind => changeKind(change.action);

/** A finished change as announced, in its kind's shape: an open announcement's changes are read back with it. */
export const announcedChange: z.ZodType<Change> = z
  .looseObject({ action: z.string() })
  .transform((value, context): Change => {
    const parsed = kinds.get(value.action)?.announced.safeParse(value);
    if (parsed?.success) return parsed.data;
    context.addIssue({ code: 'custom', message: `not an announcement of a kind of change: ${value.action}` });
    return z.NEVER;
  });

/** The number or agent id a change is about, as the audit log names it. */
export const subjectOf = (change: Change): string => announcedKind(change).subject(change);

/** How a kind that waits for confirmation is confirmed; asking it of a kind that never waits is a bug. */
export function confirmWordsOf(kind: string): ConfirmWords<StoredChange> {
  const words = changeKind(kind).confirm;
  if (!words) throw new Error(`A change of kind ${kind} never waits for confirmation.`);
  return words;
}

export const bulkWordsOf = (kind: string): BulkWords => bulkFormOf(kind).words;

/** How the batch an audit action names is said, and whether it routes its numbers to an agent; none for another action. */
export function batchNamed(action: string): { words: BulkWords; routes: boolean } | undefined {
  for (const [kind, form] of bulkForms) {
    if (form.audit === action) return { words: form.words, routes: changeKind(kind).routesTo !== undefined };
  }
  return undefined;
}

/** How a finished change is said: what it did, where to read more, and what to route next. */
export function saidOf(change: Change): { did: Phrase; lookUp: string; nextAgent?: string; routeNext?: string } {
  const kind = announcedKind(change);
  return {
    did: kind.did(change),
    lookUp: kind.lookUp(change),
    nextAgent: kind.nextAgent?.(change),
    routeNext: kind.routeNext?.(change),
  };
}

/** The Undo of a finished change or batch; none when the settings offer none (undo hours 0). */
export function undoOffer(undoHours: number, of: { change: Change } | { kind: string }): UndoOffer | undefined {
  if (undoHours === 0) return undefined;
  const { undo } = 'change' in of ? announcedKind(of.change) : changeKind(of.kind);
  if ('never' in undo) return { withheld: undo.never };
  return { withheld: 'change' in of ? undo.withheld?.(of.change) : undefined };
}

/** Whether an audit action names a kind of change (rather than a search, a denial, a step of a batch…). */
export const isKind = (action: string): boolean => kinds.has(action);

export const kindNames = (): string[] => [...kinds.keys()];

/** The commands the kinds declare (see ChangeKind.command), each with its kind and the role that may run it. */
export const declaredCommands = () =>
  [...kinds.values()].flatMap(({ name, role, command }) => (command ? [{ ...command, kind: name, role }] : []));

/** The kinds whose changes show in the provider's lists, and how (see ChangeKind.outside). */
export const outsideKinds = () =>
  [...kinds.values()].flatMap(({ name, outside }) => (outside ? [{ kind: name, outside }] : []));

/** The kinds that spend money, which the buy limits count. */
export const spendingKinds = (): string[] => [...kinds.values()].filter((kind) => kind.spends).map((kind) => kind.name);

/** The bulk form of a kind; a kind asked for in bulk without one is a bug (its request was checked when parsed). */
export function bulkFormOf(name: string): AnyBulkForm {
  const form = bulkForms.get(name);
  if (!form) throw new Error(`No kind of change named ${name} is asked for in bulk.`);
  return form;
}

/** How a kind's bulk form gathers changes of it into one request, when it does (see BulkForm.gather). */
export const gatherOf = (kind: string) => bulkForms.get(kind)?.gather;

export const targetOf = (change: StoredChange): string | undefined => kindOf(change).target(change);

/** The numbers and agents a change acts on, whose owners must let its requester: its target, and an agent it routes to. */
export function touchedBy(change: StoredChange): string[] {
  const kind = kindOf(change);
  const target = kind.target(change);
  const agent = kind.routesTo?.(change).id;
  return [...(target !== undefined ? [target] : []), ...(agent !== undefined ? [agent] : [])];
}

/** The team a change gives its target to, if it gives it to one (see ChangeKind.givesTo). */
export const givenTo = (change: StoredChange): string | undefined => kindOf(change).givesTo?.(change);

/** The number a change is about: every item of a batch is about one. */
export function numberOf(change: StoredChange): string {
  const target = targetOf(change);
  if (target === undefined) throw new Error(`A change of kind ${change.kind} names no number.`);
  return target;
}

/** What a change's outcome row keeps of it beside its target (see ChangeKind.auditParams). */
export const auditParamsOf = (change: StoredChange): Record<string, unknown> | undefined =>
  kindOf(change).auditParams(change);

/** The provider work of a change that may go ahead, whoever's decision let it (its requester, or an approver). */
export const workFor = (deps: OpsDeps, change: StoredChange, by: string): Work => kindOf(change).work(deps, change, by);

/** What the provider says became of a change (see ChangeKind.verify). */
export const verifyChange = (
  deps: OpsDeps,
  reads: ProviderReads,
  change: StoredChange,
  by: string,
): Promise<Verified> => kindOf(change).verify(deps, change, reads, by);

export const takesFromAgent = (change: StoredChange): boolean => kindOf(change).takesFromAgent(change);

/** The role that may ask for a kind of change, confirm it and approve it. */
export const neededRole = (kind: string): Role => changeKind(kind).role;

export type { Change, UndoOffer } from '../announcements.js';
export type {
  BatchAction,
  BulkForm,
  BulkWords,
  ChangeKind,
  ConfirmWords,
  KindForm,
  PlanTotals,
  RouteEffect,
} from './kind.js';
