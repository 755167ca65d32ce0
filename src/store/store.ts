// What the app keeps, as the rest of the code sees it: one interface per kind of record and a Store that bundles them
// with transactions. An engine (today SQLite, in sqlite-store.ts) implements it; ops, the reconciler and the Slack
// layer know only these interfaces. Work inside `transaction` gets the repositories bound to that transaction, so
// that an engine whose transactions live on one connection knows which one each statement belongs to.
import type { Approval } from './approvals.js';
import type { AuditAction, AuditEntry, AuditEvent, AuditOutcome } from './audit.js';
import type { AuditCursor, AuditFilter, ChangesPage } from './audit-changes.js';
import type { ClaimResult, Confirmation, PendingAction } from './confirmations.js';
import type { Intent, IntentOutcome } from './intents.js';
import type { OpenAnnouncement } from './open-announcements.js';
import type { ProviderState } from './provider-snapshot.js';
import type { RouteRecord } from './routes.js';

/** The append-only, hash-chained audit log. */
export interface AuditRepo {
  append(entry: AuditEntry): AuditEvent;
  recent(limit: number): AuditEvent[];
  lastOutcome(correlationId: string): AuditOutcome | undefined;
  /** Successful changes of `action` in the window, for the buy limits (a person's own when `actorId` is given). */
  succeededCount(action: AuditAction, window: { from: Date; until: Date }, actorId?: string): number;
  /** The changes the app made in [from, until), oldest first. */
  changesMade(from: string, until: string): { action: AuditAction; target: string }[];
}

/** The audit log read a change (a correlation id) at a time, for `/voice audit`. */
export interface AuditChangesRepo {
  page(filter: AuditFilter, cursor: AuditCursor | undefined, size: number): ChangesPage;
  count(filter: AuditFilter, upTo: number): number;
}

/** Single-use confirmations of pending changes. */
export interface ConfirmationsRepo {
  create(input: {
    action: PendingAction;
    requestedBy: string;
    correlationId: string;
    context?: Record<string, unknown>;
  }): Confirmation;
  /** Takes the confirmation for its requester, once: the caller that gets 'claimed' performs the change. */
  claim(id: string, userId: string): ClaimResult;
  cancel(id: string, userId: string): ClaimResult;
  get(id: string): Confirmation | undefined;
}

/** Confirmed changes waiting for a second person's approval. */
export interface ApprovalsRepo {
  create(input: Pick<Approval, 'correlationId' | 'change' | 'requester'>): Approval;
  get(id: string): Approval | undefined;
  forChange(correlationId: string): Approval | undefined;
  /** Decides a pending, unexpired approval, once; undefined when it was not (any longer) pending. */
  decide(id: string, to: 'approved' | 'rejected', by: string): Approval | undefined;
  /** Ends the pending approvals whose time is up, each once, and returns them. */
  expireDue(): Approval[];
  posted(id: string, channelId: string, ts: string): void;
}

/** A change's intent, written before its provider call and closed by its outcome. */
export interface IntentsRepo {
  open(intent: Pick<Intent, 'correlationId' | 'action' | 'change' | 'actor' | 'replyAddress'>): void;
  /** Closes an open intent, once; undefined when it was closed already. */
  close(correlationId: string, outcome: IntentOutcome): Intent | undefined;
  get(correlationId: string): Intent | undefined;
  openCount(action: string, userId?: string): number;
  touchedSince(time: Date): Intent[];
  openedBefore(time: Date): Intent[];
}

/** The app's own records of routes, which the provider's API cannot list. */
export interface RoutesRepo {
  set(input: { phoneNumber: string; agentId: string; numberId?: string; updatedBy: string }): RouteRecord;
  forNumber(phoneNumber: string): RouteRecord | undefined;
  forAgent(agentId: string): RouteRecord[];
  removeNumber(phoneNumber: string): void;
  removeAgent(agentId: string): void;
  all(): RouteRecord[];
  agentByNumber(): Map<string, string>;
}

/** Capabilities and languages the provider's lists do not say, learnt when the app bought or created them. */
export interface FactsRepo {
  rememberNumber(phoneNumber: string, capabilities: string[]): void;
  forgetNumber(phoneNumber: string): void;
  capabilities(phoneNumbers: string[]): Map<string, string[]>;
  rememberAgent(agentId: string, language: string): void;
  forgetAgent(agentId: string): void;
  languages(agentIds: string[]): Map<string, string>;
}

/** The provider's numbers and agents as last read, for noticing changes made outside the app. */
export interface SnapshotRepo {
  takenAt(): string | undefined;
  read(): ProviderState;
  replace(state: ProviderState, takenAt: Date): void;
}

/** Keys of Slack deliveries already handled, so that a retried delivery acts once. */
export interface DeliveriesRepo {
  /** True the first time a key is seen (within its time to live). */
  firstSeen(key: string): boolean;
}

/** Each person's announcement message still open to their next changes. */
export interface OpenAnnouncementsRepo {
  get(actorId: string): OpenAnnouncement | undefined;
  /** Keeps (or replaces) the person's open message. */
  keep(actorId: string, open: OpenAnnouncement): void;
  forget(actorId: string): void;
  /** Forgets every message posted at or before `time`. */
  forgetPostedBy(time: Date): void;
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
}

export interface Store extends Repos {
  /**
   * Runs `work` in one transaction: all of its writes happen, or none. `work` gets a store bound to that
   * transaction (a transaction begun inside it joins it). No provider or Slack call happens inside one.
   */
  transaction<T>(work: (store: Store) => T): T;
  /** Whether the database takes writes now, for /readyz. */
  checkWritable(): { ok: true } | { ok: false; reason: string };
  close(): void;
}
