// What the operations run on: the provider, the store, the account's lists and the rest, handed over by the
// composition root. A module of its own, so that the kinds of change below the operations can name it.
import type { DeliveryScope } from '../delivery-scope.js';
import type { InFlight } from '../in-flight.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { ProviderClient } from '../provider/index.js';
import type { Store } from '../store/store.js';
import type { AccessControl } from './access.js';
import type { Announcer } from './announcements.js';
import type { AccountLists } from './lists.js';
import type { ResourceLocks } from './locks.js';
import type { SeenNumbers } from './seen-numbers.js';
import type { SettingsInForce } from './settings-in-force.js';
import type { StepEnds } from './step-ends.js';

export interface OpsDeps {
  provider: ProviderClient;
  /** The provider's account lists, kept briefly for listings and pickers; every change drops them. */
  lists: AccountLists;
  /** Everything the app keeps: audit log, confirmations, approvals, intents, routing records, learnt facts. */
  store: Store;
  metrics: Metrics;
  /** Capabilities of numbers recent searches showed. */
  seen: SeenNumbers;
  access: AccessControl;
  announcer: Announcer;
  /** Ends Workflow Builder steps in Slack once their changes have ended. */
  stepEnds: StepEnds;
  locks: ResourceLocks;
  /** Their intents are open because they are under way, not because a process died: the reconciler leaves them. */
  changesUnderWay: InFlight;
  /** Roles, guardrails and channels in force, as stored and locked (src/ops/policies.ts applies them). */
  settings: SettingsInForce;
  /** The app's clock, for the windows of the buy limits. */
  now: () => Date;
  logger: Logger;
  /** The Slack delivery these deps serve, if any (see slack/database-faults.ts). */
  delivery?: DeliveryScope;
}
