// What the app keeps, as the rest of the code sees it: one interface per kind of record and a Store that bundles them
// with transactions. One implementation (open-store.ts) runs on either engine (sql.ts); ops, the reconciler and the Slack
// layer know only these interfaces. Work inside `transaction` gets the repositories bound to that transaction, so
// that an engine whose transactions live on one connection knows which one each statement belongs to.

import type { Approval } from './approvals.js';
import type { AuditAction, AuditEntry, AuditEvent, AuditOutcome } from './audit.js';
import type { AuditCursor, AuditFilter, ChangesPage } from './audit-changes.js';
import type { VerifiedChain } from './audit-checkpoints.js';
import type { Batch, BatchItem, BatchState, ItemCounts, ItemState } from './batches.js';
import type { ClaimResult, Confirmation } from './confirmations.js';
import type { Seen } from './delivery-keys.js';
import type { Intent, IntentOutcome } from './intents.js';
import type { Liveness } from './liveness.js';
import type { OpenAnnouncement } from './open-announcements.js';
import type { ProviderState } from './provider-snapshot.js';
import type { PendingChange, StoredActor, StoredPlan } from './records.js';
import type { AgentRecords, RouteRecord } from './routes.js';
import type { StoredSettings } from './settings-rows.js';
import type { OpenedDatabase, TransactionOptions, Writable } from './sql.js';
import type { StepOutcome, StepRecord, StepStart } from './workflow-steps.js';

/** The append-only, hash-chained audit log. */
export interface AuditRepo {
  append(entry: AuditEntry): Promise<AuditEvent>;
  /**
   * In a transaction that may append: takes the chain's lock and reads its end now, so that on Postgres both go out
   * with the statements already sent rather than after their answers, and an append waits for nothing more. Call it
   * after the statements that lock rows (see carryOutHeld). Nothing outside a transaction, where each append takes
   * its own.
   */
  takeChainEnd(): void;
  recent(limit: number): Promise<AuditEvent[]>;
  lastOutcome(correlationId: string): Promise<AuditOutcome | undefined>;
  /** The rows of one request (a change, a batch and its items), oldest first. */
  ofRequest(correlationId: string): Promise<AuditEvent[]>;
  /** The rows of one action about one target, oldest first: the Undos of a change, say. */
  about(action: AuditAction, target: string): Promise<AuditEvent[]>;
  /** What happened to a number or an agent: the rows of its changes that succeeded, newest first, each checked. */
  history(
    subject: { number: string } | { agentId: string },
    before: number | undefined,
    limit: number,
  ): Promise<AuditEvent[]>;
  /** Successful changes of `action` in the window, for the buy limits (a person's own when `actorId` is given). */
  succeededCount(action: AuditAction, window: { from: Date; until: Date }, actorId?: string): Promise<number>;
  /** The changes the app made in [from, until), oldest first. */
  changesMade(from: string, until: string): Promise<{ action: AuditAction; target: string }[]>;
  /** Verifies the chain from its last checkpoint to its end and checkpoints that end; throws ChainBroken. */
  verifyToEnd(): Promise<VerifiedChain>;
  /**
   * The rows that succeeded and name a target, up to the id `end`, oldest first, a window at a time with turns of the
   * event loop between; each checked against its own hash, no id missing (ChainBroken).
   */
  changesUpTo(end: number): AsyncGenerator<AuditEvent>;
}

/** The audit log read a change (a correlation id) at a time, for `/voice audit`. */
export interface AuditChangesRepo {
  page(filter: AuditFilter, cursor: AuditCursor | undefined, size: number): Promise<ChangesPage>;
  count(filter: AuditFilter, upTo: number): Promise<number>;
}

/** Single-use confirmations of pending changes. */
export interface ConfirmationsRepo {
  create(input: {
    change: PendingChange;
    requestedBy: string;
    correlationId: string;
    context?: Record<string, unknown>;
  }): Promise<Confirmation>;
  /** Takes the confirmation for its requester, once: the caller that gets 'claimed' performs the change. */
  claim(id: string, userId: string): Promise<ClaimResult>;
  cancel(id: string, userId: string): Promise<ClaimResult>;
  get(id: string): Promise<Confirmation | undefined>;
}

/** Confirmed changes waiting for a second person's approval. */
export interface ApprovalsRepo {
  create(input: Pick<Approval, 'correlationId' | 'change' | 'requester'> & { ttlMs: number }): Promise<Approval>;
  get(id: string): Promise<Approval | undefined>;
  forChange(correlationId: string): Promise<Approval | undefined>;
  /** Decides a pending, unexpired approval, once; undefined when it was not (any longer) pending. */
  decide(id: string, to: 'approved' | 'rejected', by: string): Promise<Approval | undefined>;
  /** Ends the pending approvals whose time is up, each once, and returns them. */
  expireDue(): Promise<Approval[]>;
  posted(id: string, channelId: string, ts: string): Promise<void>;
}

/** A change's intent, written before its provider call and closed by its outcome. */
export interface IntentsRepo {
  open(intent: Pick<Intent, 'correlationId' | 'action' | 'change' | 'actor' | 'replyAddress'>): Promise<void>;
  /** Closes an open intent, once; false when it was closed already. */
  close(correlationId: string, outcome: IntentOutcome): Promise<boolean>;
  get(correlationId: string): Promise<Intent | undefined>;
  openCount(action: string, userId?: string): Promise<number>;
  touchedSince(time: Date): Promise<Intent[]>;
  openedBefore(time: Date): Promise<Intent[]>;
  /** The other replicas with intents still open. */
  replicasBesides(replica: string): Promise<string[]>;
}

/** The app's own records of routes, which the provider's API cannot list. */
export interface RoutesRepo {
  set(input: { phoneNumber: string; agentId: string; numberId?: string; updatedBy: string }): Promise<RouteRecord>;
  forNumber(phoneNumber: string): Promise<RouteRecord | undefined>;
  forAgent(agentId: string): Promise<RouteRecord[]>;
  /**
   * The numbers routed to each of these agents, in number order, and the language the app learnt for each; with
   * `seen`, as new as the records a delivery found (a page read since may answer).
   */
  ofAgents(agentIds: string[]): Promise<ReadonlyMap<string, AgentRecords>>;
  removeNumber(phoneNumber: string): Promise<void>;
  removeAgent(agentId: string): Promise<void>;
  all(): Promise<RouteRecord[]>;
  agentByNumber(): Promise<Map<string, string>>;
}

/** Capabilities and languages the provider's lists do not say, learnt when the app bought or created them. */
export interface FactsRepo {
  rememberNumber(phoneNumber: string, capabilities: string[]): Promise<void>;
  forgetNumber(phoneNumber: string): Promise<void>;
  capabilities(phoneNumbers: string[]): Promise<Map<string, string[]>>;
  rememberAgent(agentId: string, language: string): Promise<void>;
  forgetAgent(agentId: string): Promise<void>;
}

/** The provider's numbers and agents as last read, for noticing changes made outside the app. */
export interface SnapshotRepo {
  takenAt(): Promise<string | undefined>;
  read(): Promise<ProviderState>;
  replace(state: ProviderState, takenAt: Date): Promise<void>;
}

/** Keys of Slack deliveries already handled, so that a retried delivery acts once. */
export interface DeliveriesRepo {
  /**
   * Whether a key is seen the first time (within its time to live), and then the settings' version and the records'
   * as of then.
   */
  firstSeen(key: string): Promise<Seen>;
}

/** Each person's announcement message still open to their next changes. */
export interface OpenAnnouncementsRepo {
  get(actorId: string): Promise<OpenAnnouncement | undefined>;
  /** Keeps (or replaces) the person's open message. */
  keep(actorId: string, open: OpenAnnouncement): Promise<void>;
  forget(actorId: string): Promise<void>;
  /** Forgets every message posted at or before `time`. */
  forgetPostedBy(time: Date): Promise<void>;
}

/** Named, expiring holds: a replica's claim on the background work, a change's on its number or agent. */
export interface LeasesRepo {
  /**
   * Takes (or renews) each lease named for `holder` until `ttlMs` from now, in one statement; false while someone
   * else holds one of them unexpired (the others are then taken: `release` gives them back).
   */
  take(names: string | readonly string[], holder: string, ttlMs: number): Promise<boolean>;
  /** Gives back those of the leases named that `holder` holds. */
  release(names: string | readonly string[], holder: string): Promise<void>;
  /** Who holds the lease now, or held it until less than `lapsedWithinMs` ago, if anyone. */
  holder(name: string, lapsedWithinMs?: number): Promise<string | undefined>;
  /** The other replicas that hold leases. */
  replicasBesides(replica: string): Promise<string[]>;
  /** Frees every lease of `replica`, a process that died; how many there were. */
  freeOf(replica: string): Promise<number>;
}

/** Bulk plans and their items (see batches.ts). */
export interface BatchesRepo {
  create(input: {
    id: string;
    kind: string;
    plan: StoredPlan;
    requestedBy: string;
    actor: StoredActor;
    items: { change: PendingChange; state: 'pending' | 'unchanged' }[];
  }): Promise<Batch>;
  get(id: string): Promise<Batch | undefined>;
  /** The batches of these ids that exist, in one read. */
  getMany(ids: readonly string[]): Promise<Batch[]>;
  start(id: string, userId: string, to?: 'running' | 'awaiting'): Promise<Batch | undefined>;
  move(id: string, from: readonly BatchState[], to: BatchState): Promise<Batch | undefined>;
  items(id: string, range: { offset: number; limit: number }): Promise<BatchItem[]>;
  itemsIn(id: string, states: readonly ItemState[]): Promise<BatchItem[]>;
  counts(id: string): Promise<ItemCounts>;
  /** Marks a pending item running, only while its batch runs; false when it did not start. */
  startItem(batchId: string, seq: number): Promise<boolean>;
  finishItem(batchId: string, seq: number, state: ItemState, error?: string): Promise<void>;
  /** Cancels every item not yet started, and returns them. */
  cancelPending(id: string): Promise<BatchItem[]>;
  /** Items of `kind` batches (by `userId` only, when given) that are under way or will be: buys count as spent. */
  openItems(kind: string, userId?: string): Promise<number>;
  /** Batches running or stopping, in whichever process. */
  underWay(): Promise<Batch[]>;
}

/** Roles, guardrails and channels as admins set them in Slack (see settings-rows.ts). */
export interface SettingsRepo {
  /** The number every change of the settings moves on: one read tells a replica whether to read them again. */
  version(): Promise<number>;
  read(): Promise<StoredSettings>;
  /** Writes these settings (undefined: no longer set) and moves the version on; in a transaction. */
  write(values: ReadonlyMap<string, unknown>, changedBy: string): Promise<void>;
}

/** Workflow Builder step executions, each with the change it started (see workflow-steps.ts). */
export interface StepsRepo {
  claim(start: StepStart): Promise<boolean>;
  link(executionId: string, correlationId: string): Promise<void>;
  take(executionId: string, from: string, to: string): Promise<boolean>;
  follow(from: string, to: string): Promise<void>;
  end(executionId: string, outcome: StepOutcome): Promise<boolean>;
  get(executionId: string): Promise<StepRecord | undefined>;
  ofChange(correlationId: string): Promise<StepRecord | undefined>;
  open(): Promise<StepRecord[]>;
}

/** Every repository, as bound to the store or to one transaction. */
export interface Repos {
  audit: AuditRepo;
  auditChanges: AuditChangesRepo;
  confirmations: ConfirmationsRepo;
  approvals: ApprovalsRepo;
  intents: IntentsRepo;
  routes: RoutesRepo;
  facts: FactsRepo;
  snapshot: SnapshotRepo;
  deliveries: DeliveriesRepo;
  openAnnouncements: OpenAnnouncementsRepo;
  leases: LeasesRepo;
  batches: BatchesRepo;
  settings: SettingsRepo;
  steps: StepsRepo;
}

export interface Store extends Repos {
  /**
   * Runs `work` in one transaction: all of its writes happen, or none. `work` gets a store bound to that
   * transaction (a transaction begun inside it joins it). No provider or Slack call happens inside one.
   */
  transaction<T>(work: (store: Store) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Inside a transaction: waits for, then holds until it ends, the lock called `key` (see Sql.lock). */
  lock(key: string): Promise<void>;
  /** The database as a person would name it (never with a password), for messages. */
  readonly label: string;
  /** Which database this is, for the start-up log. */
  readonly opened: OpenedDatabase;
  /** The time every replica agrees on: the database's (database-clock.ts). */
  readonly now: () => Date;
  /** Whether this process, and the others on the database, still run (liveness.ts). */
  readonly liveness: Liveness;
  /** Whether the database takes writes now, for /readyz. */
  checkWritable(): Promise<Writable>;
  close(): Promise<void>;
}
