// What makes a kind of change: the shape of its record, who may ask for it, what its audit rows name, its provider
// work, how a change whose answer was lost is settled, its inverse, how it shows in the provider's lists, its own
// command and form, and how it is said; and, for a kind asked for in bulk, its bulk form. One module a kind
// (kinds/*.ts), one registry of them (kinds/index.ts).
import type { z } from 'zod';
import type { ProviderState } from '../../store/provider-snapshot.js';
import type { StoredChange } from '../../store/records.js';
import type { Tags } from '../../store/tags.js';
import type { Change } from '../announcements.js';
import type { AccountRead, Planned } from '../bulk-items.js';
import type { OpsDeps } from '../deps.js';
import type { Phrase } from '../phrase.js';
import type { ProviderReads } from '../provider-reads.js';
import type { Result, Role } from '../types.js';
import type { Verified, Work } from '../work.js';

/** A change a kind made, as its outcome's audit row keeps it: its target, and what the row keeps beside it. */
export interface Made {
  target: string;
  params: Record<string, unknown>;
}

/** What a change did to its number's route: routed it to an agent, or left it routing nowhere (bought or released). */
export interface RouteEffect {
  number: string;
  agentId?: string;
  ownership?: 'bought' | 'released';
}

/** The account as an Undo finds it: as read, its numbers (number → id), agents (id → name), where each number routes. */
export type AccountNow = Record<'numbers' | 'agents' | 'routed', Map<string, string>> & { read: AccountRead };

/** What inverses are worked out against: the account, read once one asks; whether numbers changed since go back too. */
export interface UndoScene {
  account(): Promise<AccountNow>;
  includeChanged: boolean;
}

/**
 * The change that walks one back, a record of a registered kind: planned with the others in one batch when its kind's
 * bulk form gathers them, else asked for on its own. Or why none can, and whether because it was changed again since.
 */
export type Inverse = { change: StoredChange } | { cannot: string; changedSince?: true };

/** How a kind's changes are undone: each by its inverse, or never, and why. */
export type Undo =
  | {
      inverse(made: Made, scene: UndoScene): Promise<Inverse>;
      /** Why a finished change's Undo is not offered (a first route, which nothing can take back), if it is not. */
      withheld?(change: Change): string | undefined;
    }
  | { never: string };

/** How a change that waits for confirmation is confirmed, and what its cancellation left. */
export interface ConfirmWords<R> {
  /** The confirm button, and the confirmation's title: "Buy", "Confirm purchase". */
  verb: string;
  title: string;
  /** The exact effect of the change, and what stops working. */
  effect(change: R): Phrase;
  /** Whether confirming takes something away: a number, an agent, or a number's calls from the agent they reach now. */
  destroys(change: R): boolean;
  /** What a cancellation left as it was. */
  kept(change: R): Phrase;
  /** Where VOICE_REQUIRE_APPROVAL lists it: "buying". */
  gerund: string;
  /**
   * What the requester must type to confirm it when the policy asks for typed confirmations (VOICE_TYPED_RELEASE):
   * undefined when a click will do.
   */
  typed?(change: R): { expected: string; prompt: string } | undefined;
}

/**
 * A kind of change. `R` is its record (what waits for confirmation, what its intent keeps), `A` what its announcement
 * says. The methods take a kind's own records: the registry hands each kind only records its own shape parsed.
 */
export interface ChangeKind<R extends StoredChange, A extends Change> {
  /** Its name, and the audit action of its rows: `number.buy`. */
  name: R['kind'] & A['action'];
  /** Its record's shape, as the store keeps it. */
  record: z.ZodType<R>;
  /** Its announcement's shape, as an open announcement keeps it. */
  announced: z.ZodType<A>;
  /** The role that may ask for it, confirm it and approve it. */
  role: Role;
  /** What that role lets a person do, as a denial says it: "You need the operator role to buy numbers." */
  permits: string;
  /** Whether it spends money: it counts against the buy limits. */
  spends: boolean;
  /** How it is confirmed; a kind without it never waits for a confirmation. */
  confirm?: ConfirmWords<R>;
  /** What its audit rows name: a number, an agent (a new agent has none until the provider names it). */
  target(change: R): string | undefined;
  /** The number or agent id its announcement is about, as the audit log names it. */
  subject(change: A): string;
  /**
   * What its outcome's audit row keeps of it beside the target, however it ended (its own answer, or the reconciler's
   * check), so that the log alone tells what it did: the agent a number was routed to, say.
   */
  auditParams(change: R): Record<string, unknown> | undefined;
  /**
   * A kind that makes its subject (a buy, an agent's creation): its record with the tags the subject is born with,
   * a bound channel's owner and labels, kept with its outcome. Such a change is never outside a channel's binding.
   */
  born?(change: R, tags: Tags): R;
  /** A change of the app itself (its settings), of no number or agent: no channel's binding narrows it. */
  unbound?: true;
  /** The agent it routes its number to, which a batch's announcement names when each number has its own. */
  routesTo?(change: R): { id: string; name: string };
  /** The team it gives its target to, which its maker must be in unless an admin: nobody gives away what is not theirs. */
  givesTo?(change: R): string | undefined;
  /** Whether it takes a number from the agent it routes to, which a plan marks. */
  takesFromAgent(change: R): boolean;
  /** Its provider work, once it may go ahead; `by` is whoever asked for it (a route names who asked). */
  work(deps: OpsDeps, change: R, by: string): Work;
  /**
   * What the provider shows became of it once its answer was lost or its process died. A provider that does not
   * answer throws: nothing is known yet.
   */
  verify(deps: OpsDeps, change: R, reads: ProviderReads, by: string): Promise<Verified>;
  /** What it did, as a predicate: "bought +1… (US, id pn_1)". The announcement puts the actor before it. */
  did(change: A): Phrase;
  /** Where to read more of it: a card of what still exists, the audit of what is gone. */
  lookUp(change: A): string;
  /**
   * What it did, as a line of its target's history says it, from its outcome's audit row; `names` are the agents'
   * names as the provider lists them now.
   */
  happened(made: Made, names: Map<string, string>): Phrase;
  /** How its changes are undone. */
  undo: Undo;
  /**
   * What it did to its number's route, from its outcome row, as the routing of a past moment is rebuilt from the audit
   * log; absent for a kind that moves no route.
   */
  routeEffect?(made: Made): RouteEffect | undefined;
  /** The agent its maker is likely to route another number to next, offered a click away. */
  nextAgent?(change: A): string;
  /** A number the change left routed nowhere (one just bought), offered a route to an agent a click away. */
  routeNext?(change: A): string;
  /**
   * Its own `/voice` command, which help lists for its role: words, args and summary as help shows them (`note`,
   * `+NUMBER TEXT`), and the words typed after it read as its change, or what is wrong with them (mrkdwn, escaped).
   */
  command?: {
    words: string[];
    args: string;
    summary: string;
    parse(args: string[]): { change: R } | { error: string };
    /** Its form, which the command typed alone opens: a field for each part of its args, read as the words typed. */
    form?: KindForm;
  };
  /**
   * How its changes show in the provider's lists, compared to notice one made outside Voice Ops: the list its target
   * comes into or goes from, and such a change as announced, from the entry (number and id, agent id and name).
   */
  outside?: { list: keyof ProviderState; adds: boolean; change(key: string, value: string): A };
}

/** A kind's own form: its title, and a text field for each part of its command's args, in order. */
export interface KindForm {
  title: string;
  fields: { label: string; placeholder?: string }[];
}

/** How a batch is audited as one request: `batch.map`, `batch.buy`… */
export type BatchAction = `batch.${string}`;

/** A bulk plan's totals, as its words need them. */
export interface PlanTotals {
  change: number;
  taken: number;
  unchanged: number;
  agent?: { id: string; name: string };
}

/** How a kind's batch is said: its plan, its progress and its end. */
export interface BulkWords<Q = unknown, R extends StoredChange = StoredChange> {
  /** "Routing", "Routed", and the apply button's verb: "Apply to 12 numbers". */
  doing: string;
  done: string;
  apply: string;
  /** What a request for approval asks, as a verb: "route", "buy". */
  verb: string;
  /** What its batch did to its items, as the audit's button to them says: "map of" (3 numbers). */
  items: string;
  /** The plan in one sentence, with its totals. */
  plan(request: Q, totals: PlanTotals): Phrase;
  /** What a plan whose every number is already as asked says each has ("already has these labels"); by default, its route. */
  alreadySo?: string;
  /** What an item does, or did: what changes for its number's callers. */
  effect(change: R, unchanged: boolean): Phrase;
  /** What the numbers taken from an agent lose, in a request for approval. */
  taken: string;
  /** Its batch leaves the numbers it changed routed nowhere (a buy): its result offers to route them to an agent. */
  routeNext?: true;
  /**
   * Whether its batch takes something away whatever it plans (a release): its confirmation asks for the count of
   * numbers, typed, and a request for approval says so.
   */
  destroys: boolean;
}

/**
 * A kind's bulk form: one request for many changes of the kind, planned item by item, stored with its plan and
 * planned again when it is confirmed. `S` is the request's schema, a variant of the bulk request (bulk-plans.ts).
 */
export interface BulkForm<S extends z.ZodType<{ kind: string }>, R extends StoredChange> {
  request: S;
  /** The batch's own audit rows; each item's are the single change's. */
  audit: BatchAction;
  /**
   * Its items as the provider and the app's records stand now (or as `read` just found them). A provider that does
   * not answer throws.
   */
  plan(deps: OpsDeps, request: z.output<S>, read?: AccountRead): Promise<Result<Planned>>;
  /** The same request, for the numbers named: what is left of a batch, or what failed in it. */
  again(request: z.output<S>, numbers: string[]): z.output<S>;
  /** One request for these changes, an item each: an Undo's inverses, planned as one batch; none asks one on its own. */
  gather?(changes: R[]): z.output<S> | undefined;
  /** How many changes it asks for, when the request says before any plan (a bulk buy's COUNT): the buy limits check it. */
  count?(request: z.output<S>): number;
  /** A batch's region, for its announcement: a bulk buy's. */
  region?(request: z.output<S>): string | undefined;
  words: BulkWords<z.output<S>, R>;
}
