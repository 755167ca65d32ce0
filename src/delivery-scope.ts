// What one Slack delivery set going, followed through its async calls: whether it recorded a change's intent, and
// whether it sent a change to the provider. A failure that stops the delivery half-way (its database, say) can then
// tell the person the truth: nothing was changed; or a change was started, which the reconciler finishes or settles;
// or it reached the provider, and is checked with it. Intents are noted by ops once written, the provider client's
// requests from the composition root (server.ts); the Slack layer opens a scope around each delivery.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RecordsSeen } from './store/records-memo.js';

interface Scope {
  intentOpened: boolean;
  changeSent: boolean;
  /** The settings' version read with the delivery's key, before any listener had it (see store/dedupe.ts). */
  settingsVersion?: number;
  /** The records as found with the delivery's key: a page of agents read at that version or later will do. */
  records?: RecordsSeen;
}

const scopes = new AsyncLocalStorage<Scope>();

export interface Delivery {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Whether a change's intent was written (committed) while `run`'s work ran: the reconciler will settle it. */
  readonly intentOpened: boolean;
  /** Whether a request that may change the provider's state was sent while `run`'s work ran. */
  readonly changeSent: boolean;
}

export function newDelivery(): Delivery {
  const scope: Scope = { intentOpened: false, changeSent: false };
  return {
    run: (work) => scopes.run(scope, work),
    get intentOpened() {
      return scope.intentOpened;
    },
    get changeSent() {
      return scope.changeSent;
    },
  };
}

/** A change's intent was written for the delivery under way, if any: from now on it is settled, whatever happens. */
export function noteIntentOpened(): void {
  const scope = scopes.getStore();
  if (scope) scope.intentOpened = true;
}

/** The settings' version and the records as the delivery under way found them, when its key was recorded. */
export function noteVersionsSeen(settingsVersion: number, records: RecordsSeen): void {
  const scope = scopes.getStore();
  if (!scope) return;
  scope.settingsVersion = settingsVersion;
  scope.records = records;
}

/** The settings' version the delivery under way found, if any: no setting changed before it is older than that. */
export function settingsVersionSeen(): number | undefined {
  return scopes.getStore()?.settingsVersion;
}

/** The records as the delivery under way found them, if any: a page read at their version misses nothing older. */
export function recordsSeen(): RecordsSeen | undefined {
  return scopes.getStore()?.records;
}

/** A request that may change the provider's state was sent on behalf of the delivery under way, if any. */
export function noteChangeSent(): void {
  const scope = scopes.getStore();
  if (scope) scope.changeSent = true;
}
