// The Store on one SQLite file: every repository on one connection, whose single writer serialises transactions (a
// transaction begun inside another joins it, as better-sqlite3 nests them).
import { Approvals } from './approvals.js';
import { AuditLog } from './audit.js';
import { AuditChanges } from './audit-changes.js';
import { Confirmations } from './confirmations.js';
import { checkWritable, openDatabase } from './db.js';
import { DeliveryKeys } from './dedupe.js';
import { LearnedFacts } from './facts.js';
import { Intents } from './intents.js';
import { OpenAnnouncements } from './open-announcements.js';
import { ProviderSnapshot } from './provider-snapshot.js';
import { RoutingRecords } from './routes.js';
import type { Store } from './store.js';

export interface StoreOptions {
  /** How long a request for a second approval waits before it expires. */
  approvalTtlMs: number;
  now?: () => Date;
}

/** Opens (creating and migrating it if need be) the SQLite file at `path` as the app's store. */
export function openSqliteStore(path: string, options: StoreOptions): Store {
  const db = openDatabase(path);
  const { now } = options;
  const store: Store = {
    audit: new AuditLog(db, { now }),
    auditChanges: new AuditChanges(db),
    confirmations: new Confirmations(db, { now }),
    approvals: new Approvals(db, { now, ttlMs: options.approvalTtlMs }),
    intents: new Intents(db, { now }),
    routes: new RoutingRecords(db, { now }),
    facts: new LearnedFacts(db, { now }),
    snapshot: new ProviderSnapshot(db),
    deliveries: new DeliveryKeys(db, { now }),
    openAnnouncements: new OpenAnnouncements(db),
    transaction: <T>(work: (bound: Store) => T): T => db.transaction(() => work(store))(),
    checkWritable: () => checkWritable(db),
    close: () => db.close(),
  };
  return store;
}
