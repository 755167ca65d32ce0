// The one door to the operations: the Slack layer, the reconciler, the playground and the composition root import ops
// from this file only (test/layers.test.ts holds them to it). The operations themselves are declared once, in
// operations.ts.

export type { VoiceOps } from './operations.js';

// What the layers above need besides the operations: the words of their requests and results, and a few pure
// functions and constants of those words (roles, regions, languages, filters, plans).

export { type Person, type Standing, UnreadableInSlack } from './access.js';
export type { AccessOverview, Granting, PersonAccess } from './access-overview.js';
export { actionWords, PLAYGROUND_RESET } from './action-words.js';
export { CONFIGURATION, type SettingsView } from './admin-settings.js';
export { type AgentChoice, oneAgentOnly } from './agent-names.js';
export { type AgentFilter, type AgentInUse, type AgentSummary, type AgentsPage, agentFilter } from './agents.js';
export {
  type Announcement,
  AnnouncementFailed,
  type Announcer,
  type BatchAnnouncement,
  type ChannelsNow,
  type Destinations,
  type DigestEntry,
} from './announcements.js';
export {
  type ApprovalRequest,
  type Decision,
  isBatch,
  kindNameOf,
  type OnBatchProgress,
} from './approvals.js';
export type { AuditChange, AuditPage } from './audit.js';
export { type BatchLine, type BatchView, type PlanResult, typedCount } from './batches.js';
export { scopeWords } from './binding-words.js';
export { MAX_BATCH_ITEMS } from './bulk-items.js';
export { type BulkRequest, batchAction } from './bulk-plans.js';
export type { AgentCard, NumberCard } from './cards.js';
export type { Done } from './carry-out.js';
export {
  batchItemOf,
  type ChangeIntent,
  type ConfirmationPrompt,
  type PendingChange,
  requestIdOf,
} from './changes.js';
export { editDistance } from './edit-distance.js';
export type { HistoryEntry, HistoryPage } from './history.js';
export {
  announcedChange,
  type BulkWords,
  batchNamed,
  bulkWordsOf,
  type Change,
  confirmWordsOf,
  declaredCommands,
  KIND,
  type Kind,
  type KindForm,
  neededRole,
  numberOf,
  saidOf,
  subjectOf,
  targetOf,
  type UndoOffer,
} from './kinds/index.js';
export type { LabelsInput } from './labels.js';
export type { ReadOptions } from './lists.js';
export { COMMON_LOCALES, didYouMean, localesFor, namesLanguage, unknownLocale } from './locales.js';
export { type NumberFilter, numberFilter, type TagFilter } from './number-filter.js';
export type { NumberSummary, NumbersPage } from './numbers.js';
export type { Page } from './pages.js';
export type { Mention, Phrase } from './phrase.js';
export type { AgentChoices, NumberChoices } from './pickers.js';
export type { PoliciesInForce } from './policies.js';
export { ReadCache } from './read-cache.js';
export { REGIONS, type Region, regionName, regionNamed, regionOf } from './regions.js';
export { NO_UNROUTE } from './routing.js';
export type { NamedRouteChange, RoutingChanges } from './routing-as-of.js';
export type { CheckedLine, CheckedText, RoutingExport } from './routing-plans.js';
export { type SearchPage, type SearchRequest, type SearchStart, searchStart } from './search.js';
export { subscriptionWords } from './settings-words.js';
export type { StepEnds } from './step-ends.js';
export type { StepStart } from './steps.js';
export type { SubscriptionFilter } from './subscriptions.js';
export { type TimeZone, timeZone } from './time-zone.js';
export { type Actor, type Failure, fail, type Result, type Role, roleIncludes } from './types.js';
export type { UndoResult } from './undo.js';
export { visible, withInvisibleShown } from './visible.js';
export type { Finished, Verified } from './work.js';

// Beside the operations: what the composition root wires them from, and the machinery the reconciler shares with
// them (it works on the same deps, outside any person's request). The Slack layer and the playground never use these.

export { AccessControl, MEMBERSHIP_TTL_MS } from './access.js';
export { seedSettings } from './admin-settings.js';
export { newCorrelationId, record } from './audit-rows.js';
export {
  abandonedBatches,
  announceSettled,
  interruptAbandoned,
  type SettledBatch,
  settledBatch,
} from './batches.js';
export type { OpsDeps } from './deps.js';
export { keepForDigests, postDigests } from './digests.js';
export { auditParamsOf, outsideKinds, touchedBy, verifyChange } from './kinds/index.js';
export { accountLists } from './lists.js';
export { type DeadlineClocks, type Held, leaseDeadline, ResourceLocks, runsAnywhere } from './locks.js';
export { announce, announceParts, destinations } from './notify.js';
export { operationsOn } from './operations.js';
export { countByOwner } from './owner-counts.js';
export { ProviderReads } from './provider-reads.js';
export { ROUTE_DROPPED } from './route-replay.js';
export { refuseSecondOutcome, reportSecondOutcome, type SecondOutcome } from './second-outcome.js';
export { SeenNumbers } from './seen-numbers.js';
export { SettingsInForce } from './settings-in-force.js';
export { settleSteps } from './steps.js';
export { taggedNow } from './subscriptions.js';
export { atomically } from './transactions.js';
