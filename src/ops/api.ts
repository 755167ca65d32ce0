// The face of the operations, and the one door to them: the Slack layer, the reconciler, the playground and the
// composition root import ops from this file only (test/layers.test.ts holds them to it). `VoiceOps` declares every
// operation with what it takes and what it answers; `createOps` (index.ts) implements it, and the compiler checks the
// one against the other.

import type { Lock, SettingName, Settings } from '../settings-schema.js';
import type { AuditAction } from '../store/audit.js';
import type { Person } from './access.js';
import type { AccessOverview, PersonAccess } from './access-overview.js';
import type { SettingsView } from './admin-settings.js';
import type { AgentFound } from './agent-names.js';
import type { AgentFilter, AgentsPage, DeleteRequest } from './agents.js';
import type { ApprovalRequest, AwaitingApproval, Decision, OnBatchProgress } from './approvals.js';
import type { AuditPage, AuditRequest } from './audit.js';
import type { ApplyResult, BatchView, PlanResult } from './batches.js';
import type { BulkRequest } from './bulk-plans.js';
import type { AgentLookup, NumberCard } from './cards.js';
import type { Done } from './carry-out.js';
import type { ConfirmationPrompt, PendingChange } from './changes.js';
import type { HistoryPage } from './history.js';
import type { Kind } from './kinds/index.js';
import type { ReadOptions } from './lists.js';
import type { NumberFilter } from './number-filter.js';
import type { NumbersPage } from './numbers.js';
import type { PageRequest } from './pages.js';
import type { AgentChoices, MapFormData, NumberChoices } from './pickers.js';
import type { BuyUsage } from './policies.js';
import type { MapResult } from './routing.js';
import type { RoutingChanges } from './routing-as-of.js';
import type { CheckedText, RoutingExport } from './routing-plans.js';
import type { SearchPage, SearchRequest } from './search.js';
import type { AgentInput } from './step-asks.js';
import type { StepEnding } from './step-ends.js';
import type { StepStart } from './steps.js';
import type { TimeZone } from './time-zone.js';
import type { Actor, Failure, OnProgress, Result, Role } from './types.js';
import type { UndoOptions, UndoResult } from './undo.js';

/** The guardrails in force for one person, with how much of each buy limit is used. */
export interface PoliciesInForce {
  policy: Settings;
  /** The settings locked by the environment or the policy file, and where each is given. */
  locks: Partial<Record<SettingName, Lock>>;
  buying: BuyUsage[];
}

/** The operations the Slack layer may call: the only code that changes provider state. */
export interface VoiceOps {
  /** The role this person holds (from the groups and lists that grant roles). */
  roleOf(person: Person): Promise<Role>;
  /**
   * Checks the role a kind of change needs, and the channel, before its form opens, so nobody fills one in only to be
   * refused; audited.
   */
  authorize(actor: Actor, kind: Kind): Promise<Failure | undefined>;
  /** Audits a delivery from a workspace or org other than the app's, refused before any listener sees it. */
  refuseOtherWorkspace(actor: Actor, appHome: string): Promise<void>;
  /**
   * Audits a person from another organization (in a channel shared with it through Slack Connect), who may read
   * and change nothing, and returns why, for them.
   */
  refuseOutsider(actor: Actor, appHome: string, unconfirmed: boolean): Promise<Failure>;
  /** Audits a change command refused for its form (or for an agent it names that none is), before any use case saw it. */
  refuseInput(actor: Actor, action: AuditAction, refusal: string | Failure): Promise<void>;
  /** The agent a person names by id or by name (whole, any case): one, or the several of that name to choose from. */
  findAgent(reference: string): Promise<AgentFound>;
  /** A page of agents, in the provider's order, each with the numbers that route to it. */
  listAgents(request: PageRequest & ReadOptions & { filter?: AgentFilter }): Promise<Result<{ page: AgentsPage }>>;
  /**
   * Creates an agent at once (it spends nothing); the token in the result is for the requester's eyes only. For a
   * workflow step, the step execution it ends.
   */
  createAgent(actor: Actor, input: { name: string; language: string }, stepExecutionId?: string): Promise<Result<Done>>;
  /** Asks to delete an agent (confirmed later); one that numbers still route to is refused at once. */
  requestDeleteAgent(actor: Actor, agentId: string): Promise<DeleteRequest>;
  /** A page of purchased numbers, in the provider's (purchase) order, with each number's route. */
  listNumbers(request: PageRequest & ReadOptions & { filter?: NumberFilter }): Promise<Result<{ page: NumbersPage }>>;
  /** One number: its route and its latest changes. */
  showNumber(number: string): Promise<Result<NumberCard>>;
  /** The agent with this id as a card, else the agents whose name contains the text. */
  findAgents(request: PageRequest & ReadOptions & { filter: AgentFilter }): Promise<AgentLookup>;
  /** What happened to a number (`+NUMBER`) or an agent (its id), newest first: a page before the audit id `before`. */
  history(subject: string, before?: number): Promise<Result<HistoryPage>>;
  /** A page of the numbers the provider offers to buy, by region and capabilities. */
  searchNumbers(request: SearchRequest): Promise<Result<{ page: SearchPage }>>;
  /** Asks to buy a number: the prompt to confirm (buying spends money). */
  requestBuy(actor: Actor, number: string): Promise<Result<{ prompt: ConfirmationPrompt }>>;
  /** Asks to release a purchased number, named by its E.164 form or its provider id: the prompt to confirm. */
  requestRelease(actor: Actor, numberOrId: string): Promise<Result<{ prompt: ConfirmationPrompt }>>;
  /**
   * Asks for a change of any kind that waits for confirmation, described in full as its kind's record: the prompt to
   * confirm. Its kind's role and the guardrails apply as to its command.
   */
  requestChange(actor: Actor, change: PendingChange): Promise<Result<{ prompt: ConfirmationPrompt }>>;
  /**
   * Walks back a change (its correlation id), for its maker or an admin within VOICE_UNDO_HOURS: the plan of its
   * inverse with what it leaves out and why, or an agent's deletion to confirm.
   */
  undo(actor: Actor, correlationId: string, options?: UndoOptions): Promise<UndoResult>;
  /** Routes a purchased number to an agent; one that already routes elsewhere needs confirmation first. */
  mapNumber(actor: Actor, input: { phoneNumber: string; agentId: string }): Promise<MapResult>;
  /** Confirms a pending change, once however often it is clicked; a change that needs a second person waits for one. */
  confirm(actor: Actor, confirmationId: string, typed?: string): Promise<Result<Done | AwaitingApproval>>;
  /** Approves or rejects a change that waits for a second person. */
  decide(
    actor: Actor,
    approvalId: string,
    verdict: 'approve' | 'reject',
    onBatchProgress?: OnBatchProgress,
  ): Promise<Result<Decision>>;
  /** Notes where the request for approval was posted, so that its message can be updated when it is decided. */
  approvalPosted(approvalId: string, channelId: string, ts: string): Promise<void>;
  /** Ends the requests for approval nobody decided in time; each is audited as expired. */
  expireApprovals(): Promise<ApprovalRequest[]>;
  /** The guardrails in force for this person, with how much of each buy limit is used, for help and Home. */
  policiesInForce(userId: string): Promise<PoliciesInForce>;
  /** The settings in force, and where each locked one is given; `fresh`: as stored now, a change just made included. */
  settings(options?: { fresh?: boolean }): Promise<SettingsView>;
  /**
   * Asks to change some settings (a form's worth, in the settings' own shape), for an admin: the prompt to confirm
   * what it does, or why not (a locked setting, no admin left, approvals with nowhere to ask).
   */
  requestSettingsChange(actor: Actor, proposed: unknown): Promise<Result<{ prompt: ConfirmationPrompt }>>;
  /** Who holds each role and may approve, through which user groups (read in the workspace `teamId`). */
  accessOverview(teamId: string | undefined): Promise<AccessOverview>;
  /** One person's role, what grants it, and whether they may approve. */
  accessOf(person: Person): Promise<PersonAccess>;
  /** The prompt of a confirmation its requester may still confirm (to ask for the typed confirmation). */
  pendingPrompt(actor: Actor, confirmationId: string): Promise<ConfirmationPrompt | undefined>;
  /** A wrong typed confirmation, for the form's inline error; nothing is changed or claimed. */
  checkTyped(actor: Actor, confirmationId: string, typed: string): Promise<Failure | undefined>;
  /** Posts a finished change to the team's channel, after its requester has the answer. */
  announce(actor: Actor, done: Done): Promise<Result<object>>;
  /** Audits an agent token that no private route could show its creator: nobody has it now. */
  recordUndeliveredToken(actor: Actor, done: Done, why: string): Promise<void>;
  /** Cancels a pending change: it can no longer be confirmed. */
  cancel(actor: Actor, confirmationId: string): Promise<Result<{ change: PendingChange }>>;
  /** The map form's type-ahead picker of numbers. */
  numberChoices(typed: string): Promise<Result<NumberChoices>>;
  /** The map form's type-ahead picker of agents. */
  agentChoices(typed: string): Promise<Result<AgentChoices>>;
  /** What the map form needs before it opens (the number and agent asked for, when they were). */
  mapFormData(asked?: { number?: string; agentId?: string }): Promise<Result<MapFormData>>;
  /** Bulk changes: a plan of every item, applied once confirmed, a few items at a time (see batches.ts). */
  planBatch(actor: Actor, request: BulkRequest): Promise<PlanResult>;
  /** Desired routing as text, one `NUMBER AGENT_ID` a line, checked against the account: its routes, or every line's error. */
  checkRoutingText(text: string): Promise<Result<CheckedText>>;
  /** The plan of a routing text checked with no error, made on the lists it was checked against. */
  planCheckedText(actor: Actor, checked: CheckedText): Promise<PlanResult>;
  /** Today's routing in the same format, to edit and paste back. */
  exportRouting(): Promise<Result<RoutingExport>>;
  /**
   * The routing as it was at a moment typed by a person (`yesterday 09:00`), rebuilt from the audit log as its hash
   * chain is verified, in the same format: pasted into a plan, it routes back. From a broken chain, nothing. The
   * time is read in the person's time zone when it is known, else in UTC.
   */
  exportRoutingAsOf(time: string, zone?: TimeZone): Promise<Result<RoutingExport>>;
  /** Each number whose routing changed since a moment typed by a person: its agent then and now, and by whom. */
  routingChangesSince(time: string, zone?: TimeZone): Promise<Result<RoutingChanges>>;
  /** A page of a batch's items, with its plan and counts; undefined for an unknown batch. */
  batchView(batchId: string, page?: number, size?: number): Promise<BatchView | undefined>;
  /** Confirms a plan and applies it, once; a plan the account no longer matches comes back new, to confirm again. */
  applyBatch(actor: Actor, batchId: string, options: { typed?: string; onProgress: OnProgress }): Promise<ApplyResult>;
  /** Stops a running batch: items not yet started will not start; items under way finish. */
  stopBatch(actor: Actor, batchId: string): Promise<Result<object>>;
  /** Cancels a plan not yet confirmed: it can no longer be applied. */
  cancelPlan(actor: Actor, batchId: string): Promise<Result<object>>;
  /** The failed items of an ended batch, or those it never reached, planned again (checked afresh) as a new plan. */
  planAgain(actor: Actor, batchId: string, which: 'failed' | 'rest'): Promise<PlanResult>;
  /** The numbers a batch bought, planned to route to one agent. */
  routeBought(actor: Actor, batchId: string, agentId: string): Promise<PlanResult>;
  /** One page of changes from the audit log, one line per change, newest first. */
  auditPage(request: AuditRequest): Promise<AuditPage>;
  /** Claims a Workflow Builder step execution: true the first time only, so that the step acts once. */
  claimStep(start: StepStart): Promise<boolean>;
  /** A bulk change's plan for a step: the step ends when the plan does (applied, cancelled, expired, cut short). */
  planForStep(actor: Actor, executionId: string, request: BulkRequest): Promise<PlanResult>;
  /** Ends a step in Slack with its outputs or its error, and records it ended. */
  endStep(executionId: string, ending: StepEnding): Promise<void>;
  /** Asks the person a step names to confirm an agent's creation, where Slack did not vouch it is them who ran it. */
  askToCreateAgent(actor: Actor, executionId: string, input: AgentInput): Promise<Result<object>>;
  /** The person's Create or Cancel on that ask: theirs alone, once, within 10 minutes. */
  answerAsk(actor: Actor, executionId: string, verdict: 'create' | 'cancel'): Promise<Result<{ done?: Done }>>;
  /** Ends a step whose change has ended, with what it became. */
  settleStep(executionId: string): Promise<void>;
}

// What the layers above need besides the operations: the words of their requests and results, and a few pure
// functions and constants of those words (roles, regions, languages, filters, plans).

export { type Person, type Standing, UnreadableInSlack } from './access.js';
export type { AccessOverview, Granting, Holder, PersonAccess } from './access-overview.js';
export { actionWords, PLAYGROUND_RESET } from './action-words.js';
export { CONFIGURATION, type SettingsView } from './admin-settings.js';
export { type AgentChoice, type AgentFound, oneAgentOnly } from './agent-names.js';
export { type AgentFilter, type AgentInUse, type AgentSummary, type AgentsPage, agentFilter } from './agents.js';
export {
  type Announcement,
  AnnouncementFailed,
  type Announcer,
  type BatchAnnouncement,
  type ChannelNow,
} from './announcements.js';
export {
  type ApprovalRequest,
  type AwaitingApproval,
  type Decision,
  isBatch,
  kindNameOf,
  type OnBatchProgress,
} from './approvals.js';
export type { AuditChange, AuditPage, AuditRequest } from './audit.js';
export { type ApplyResult, type BatchLine, type BatchView, type PlanResult, typedCount } from './batches.js';
export { MAX_BATCH_ITEMS } from './bulk-items.js';
export { type BulkRequest, batchAction } from './bulk-plans.js';
export type { AgentCard, AgentLookup, NumberCard } from './cards.js';
export type { Done } from './carry-out.js';
export {
  batchItemOf,
  type ChangeIntent,
  type ConfirmationPrompt,
  type PendingChange,
  requestIdOf,
} from './changes.js';
export { editDistance } from './edit-distance.js';
export type { HistoryEntry, HistoryHow, HistoryPage } from './history.js';
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
  neededRole,
  numberOf,
  saidOf,
  subjectOf,
  targetOf,
  type UndoOffer,
} from './kinds/index.js';
export type { ReadOptions } from './lists.js';
export { COMMON_LOCALES, didYouMean, localesFor, namesLanguage, unknownLocale } from './locales.js';
export { type NumberFilter, numberFilter } from './number-filter.js';
export type { NumberSummary, NumbersPage } from './numbers.js';
export type { Page, PageRequest } from './pages.js';
export type { AgentRef, Mention, Phrase } from './phrase.js';
export type { AgentChoices, MapFormData, NumberChoices } from './pickers.js';
export type { BuyUsage } from './policies.js';
export { ReadCache } from './read-cache.js';
export { REGIONS, type Region, regionName, regionNamed, regionOf } from './regions.js';
export { type MapResult, NO_UNROUTE } from './routing.js';
export type { NamedRouteChange, RoutingChanges } from './routing-as-of.js';
export type { CheckedLine, CheckedText, RoutingExport } from './routing-plans.js';
export { type SearchPage, type SearchRequest, type SearchStart, searchStart } from './search.js';
export { effectsOf, type SettingChange } from './settings-words.js';
export type { StepEnding, StepEnds } from './step-ends.js';
export type { StepStart } from './steps.js';
export { type TimeZone, timeZone } from './time-zone.js';
export { type Actor, type Failure, fail, type Result, type Role, roleIncludes } from './types.js';
export type { UndoOptions, UndoResult } from './undo.js';
export { visible, withInvisibleShown } from './visible.js';
export type { Finished, Verified } from './work.js';

// Beside the operations: what the composition root wires them from, and the machinery the reconciler shares with
// them (it works on the same deps, outside any person's request). The Slack layer and the playground never use these.

export { AccessControl, MEMBERSHIP_TTL_MS } from './access.js';
export { seedSettings } from './admin-settings.js';
export {
  abandonedBatches,
  announceSettled,
  interruptAbandoned,
  type SettledBatch,
  settledBatch,
} from './batches.js';
export { atomically, newCorrelationId, record } from './context.js';
export type { OpsDeps } from './deps.js';
export { auditParamsOf, outsideKinds, verifyChange } from './kinds/index.js';
export { accountLists } from './lists.js';
export { type DeadlineClocks, type Held, leaseDeadline, ResourceLocks, runsAnywhere } from './locks.js';
export { announce, announcementsChannel } from './notify.js';
export { ProviderReads } from './provider-reads.js';
export { ROUTE_DROPPED } from './route-replay.js';
export { refuseSecondOutcome, reportSecondOutcome, type SecondOutcome } from './second-outcome.js';
export { SeenNumbers } from './seen-numbers.js';
export { SettingsInForce } from './settings-in-force.js';
export { settleSteps } from './steps.js';
