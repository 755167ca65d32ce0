// What the app keeps, as the rest of the code sees it: one repository per kind of record and a Store that bundles them
// with transactions. One implementation (open-store.ts) runs on either engine (sql.ts); ops, the reconciler and the Slack
// layer know only this Store. Work inside `transaction` gets the repositories bound to that transaction, so
// that an engine whose transactions live on one connection knows which one each statement belongs to.

import type { Approvals } from './approvals.js';
import type { AuditLog } from './audit.js';
import type { AuditChanges } from './audit-changes.js';
import type { Batches } from './batches.js';
import type { Confirmations } from './confirmations.js';
import type { DeliveryKeys } from './delivery-keys.js';
import type { Digests } from './digests.js';
import type { LearnedFacts } from './facts.js';
import type { Intents } from './intents.js';
import type { Leases } from './leases.js';
import type { Liveness } from './liveness.js';
import type { OpenAnnouncements } from './open-announcements.js';
import type { ProviderSnapshot } from './provider-snapshot.js';
import type { RoutingRecords } from './routes.js';
import type { SettingsRows } from './settings-rows.js';
import type { OpenedDatabase, TransactionOptions, Writable } from './sql.js';
import type { TagRecords } from './tags.js';
import type { WorkflowSteps } from './workflow-steps.js';

/** Every repository, as bound to the store or to one transaction. */
export interface Repos {
  /** The append-only, hash-chained audit log. */
  audit: AuditLog;
  /** The audit log read a change (a correlation id) at a time, for `/voice audit`. */
  auditChanges: AuditChanges;
  /** Single-use confirmations of pending changes. */
  confirmations: Confirmations;
  /** Confirmed changes waiting for a second person's approval. */
  approvals: Approvals;
  /** A change's intent, written before its provider call and closed by its outcome. */
  intents: Intents;
  /** The app's own records of routes, which the provider's API cannot list. */
  routes: RoutingRecords;
  /** Labels and owning teams of numbers and agents, which the provider does not keep. */
  tags: TagRecords;
  /** What quiet subscriptions are to read in their next daily digest. */
  digests: Digests;
  /** Capabilities and languages the provider's lists do not say, learnt when the app bought or created them. */
  facts: LearnedFacts;
  /** The provider's numbers and agents as last read, for noticing changes made outside the app. */
  snapshot: ProviderSnapshot;
  /** Keys of Slack deliveries already handled, so that a retried delivery acts once. */
  deliveries: DeliveryKeys;
  /** Each person's announcement message still open to their next changes. */
  openAnnouncements: OpenAnnouncements;
  /** Named, expiring holds: a replica's claim on the background work, a change's on its number or agent. */
  leases: Leases;
  /** Bulk plans and their items. */
  batches: Batches;
  /** Roles, guardrails and channels as admins set them in Slack. */
  settings: SettingsRows;
  /** Workflow Builder step executions, each with the change it started. */
  steps: WorkflowSteps;
}

export type RoutesRepo = Repos['routes'];
export type DeliveriesRepo = Repos['deliveries'];
export type OpenAnnouncementsRepo = Repos['openAnnouncements'];
export type LeasesRepo = Repos['leases'];
export type SettingsRepo = Repos['settings'];

export interface Store extends Repos {
  /** `work` gets a store bound to the transaction, which one begun inside joins. No provider or Slack call inside. */
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
