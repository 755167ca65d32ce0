// The operations the layers above may call, declared once: the only code that changes provider state, reached as
// `VoiceOps` through api.ts alone (test/layers.test.ts). A change's requests go through `attempt` (audit-rows.ts).

import { accessOf, accessOverview } from './access-overview.js';
import { requestSettingsChange, settingsView } from './admin-settings.js';
import { findAgent } from './agent-names.js';
import { listAgents, recordUndeliveredToken, requestDeleteAgent } from './agents.js';
import { approvalPosted } from './approvals.js';
import { requestChange } from './ask-confirmation.js';
import { auditPage } from './audit.js';
import { attempt, newCorrelationId } from './audit-rows.js';
import { batchView, planAgain, planBatch, routeBought, stopBatch } from './batches.js';
import type { BulkRequest } from './bulk-plans.js';
import { findAgents, showNumber } from './cards.js';
import type { PendingChange } from './changes.js';
import { cancel, checkTyped, confirm, pendingPrompt } from './confirmations.js';
import type { OpsDeps } from './deps.js';
import { history } from './history.js';
import { KIND, type Kind } from './kinds/index.js';
import { SETTINGS_TARGET } from './kinds/settings-change.js';
import { changeLabels, type LabelsInput } from './labels.js';
import { announce } from './notify.js';
import { listNumbers, requestBuy, requestRelease } from './numbers.js';
import { agentChoices, mapFormData, numberChoices } from './pickers.js';
import { mayRequest, policiesInForce, roleOf } from './policies.js';
import { refuseInput, refuseOtherWorkspace, refuseOutsider } from './refusals.js';
import { mapNumber } from './routing.js';
import { exportRoutingAsOf, routingChangesSince } from './routing-as-of.js';
import { checkRoutingText, exportRouting, planCheckedText } from './routing-plans.js';
import { searchNumbers } from './search.js';
import { type AgentInput, answerAsk, askToCreateAgent } from './step-asks.js';
import {
  applyBatchEndingStep,
  cancelPlanEndingStep,
  claimStep,
  createAgentOfStep,
  decideEndingStep,
  endStep,
  expireApprovalsEndingSteps,
  planForStep,
  settleStep,
} from './steps.js';
import { requestSubscription, type SubscriptionFilter } from './subscriptions.js';
import type { Actor } from './types.js';
import { type UndoOptions, undo } from './undo.js';

const OPERATIONS = {
  /** The role this person holds (from the groups and lists that grant roles). */
  roleOf,
  /** Checks role and channel before a form opens, so nobody fills one in only to be refused; audited. */
  authorize: (deps: OpsDeps, actor: Actor, kind: Kind) =>
    mayRequest(deps, actor, { action: kind, correlationId: newCorrelationId() }),
  /** Audits a delivery from a workspace or org other than the app's, refused before any listener sees it. */
  refuseOtherWorkspace,
  /** Audits a person from another organization, who may read and change nothing, and returns why, for them. */
  refuseOutsider,
  /** Audits a change command refused for its form (or for an agent it names that none is), before any use case saw it. */
  refuseInput,
  /** The agent a person names by id or by name (whole, any case): one, or the several of that name to choose from. */
  findAgent,
  /** A page of agents, in the provider's order, each with the numbers that route to it. */
  listAgents,
  /** Creates an agent at once (it spends nothing); the token in the result is for the requester's eyes only. */
  createAgent: (deps: OpsDeps, actor: Actor, input: AgentInput, stepExecutionId?: string) =>
    attempt(deps, actor, { action: KIND.createAgent }, (id) =>
      createAgentOfStep(deps, actor, input, id, stepExecutionId),
    ),
  /** Asks to delete an agent (confirmed later); one that numbers still route to is refused at once. */
  requestDeleteAgent: (deps: OpsDeps, actor: Actor, agentId: string) =>
    attempt(deps, actor, { action: KIND.deleteAgent, target: agentId }, (id) =>
      requestDeleteAgent(deps, actor, agentId, id),
    ),
  /** A page of purchased numbers, in the provider's (purchase) order, with each number's route. */
  listNumbers,
  /** One number: its route and its latest changes. */
  showNumber,
  /** The agent with this id as a card, else the agents whose name contains the text. */
  findAgents,
  /** What happened to a number (`+NUMBER`) or an agent (its id), newest first: a page before the audit id `before`. */
  history,
  /** A page of the numbers the provider offers to buy, by region and capabilities. */
  searchNumbers,
  /** Asks to buy a number: the prompt to confirm (buying spends money). */
  requestBuy: (deps: OpsDeps, actor: Actor, number: string) =>
    attempt(deps, actor, { action: KIND.buy, target: number }, (id) => requestBuy(deps, actor, number, id)),
  /** Asks to release a purchased number, named by its E.164 form or its provider id: the prompt to confirm. */
  requestRelease: (deps: OpsDeps, actor: Actor, numberOrId: string) =>
    attempt(deps, actor, { action: KIND.release, target: numberOrId }, (id) =>
      requestRelease(deps, actor, numberOrId, id),
    ),
  /** Asks for a change of any kind as its kind's record; its role and the guardrails apply as to its command. */
  requestChange: (deps: OpsDeps, actor: Actor, change: PendingChange) =>
    attempt(deps, actor, { action: change.kind }, (id) => requestChange(deps, actor, change, id)),
  /** Walks back a change, for its maker or an admin within VOICE_UNDO_HOURS. */
  undo: (deps: OpsDeps, actor: Actor, correlationId: string, options?: UndoOptions) =>
    attempt(deps, actor, { action: 'change.undo', target: correlationId }, (id) =>
      undo(deps, actor, correlationId, id, options),
    ),
  /** Adds and removes labels on a number or an agent, or gives it to a team: at once, audited, undoable. */
  changeLabels: (deps: OpsDeps, actor: Actor, input: LabelsInput) =>
    attempt(deps, actor, { action: KIND.label, target: input.target }, (id) => changeLabels(deps, actor, input, id)),
  /** Routes a purchased number to an agent; one that already routes elsewhere needs confirmation first. */
  mapNumber: (deps: OpsDeps, actor: Actor, input: { phoneNumber: string; agentId: string }) =>
    attempt(deps, actor, { action: KIND.map, target: input.phoneNumber }, (id) => mapNumber(deps, actor, input, id)),
  /** Confirms a pending change, once however often it is clicked; a change that needs a second person waits for one. */
  confirm,
  /** Approves or rejects a change that waits for a second person. */
  decide: decideEndingStep,
  /** Notes where the request for approval was posted, so that its message can be updated when it is decided. */
  approvalPosted,
  /** Ends the requests for approval nobody decided in time; each is audited as expired. */
  expireApprovals: expireApprovalsEndingSteps,
  /** The guardrails in force for this person, with how much of each buy limit is used, for help and Home. */
  policiesInForce,
  /** The settings in force, and where each locked one is given; `fresh`: as stored now, a change just made included. */
  settings: settingsView,
  /** Asks to change settings, for an admin; refused for a locked setting, no admin left, or nowhere to ask approval. */
  requestSettingsChange: (deps: OpsDeps, actor: Actor, proposed: unknown) =>
    attempt(deps, actor, { action: KIND.settings, target: SETTINGS_TARGET }, (id) =>
      requestSettingsChange(deps, actor, proposed, id),
    ),
  /** Asks to subscribe a channel to what a filter picks (replacing its subscription), or, for null, to unsubscribe it. */
  requestSubscription: (deps: OpsDeps, actor: Actor, channel: string, filter: SubscriptionFilter | null) =>
    attempt(deps, actor, { action: KIND.settings, target: SETTINGS_TARGET }, (id) =>
      requestSubscription(deps, actor, channel, filter, id),
    ),
  /** Who holds each role and may approve, through which user groups (read in the workspace `teamId`). */
  accessOverview,
  /** One person's role, what grants it, and whether they may approve. */
  accessOf,
  /** The prompt of a confirmation its requester may still confirm (to ask for the typed confirmation). */
  pendingPrompt,
  /** A wrong typed confirmation, for the form's inline error; nothing is changed or claimed. */
  checkTyped,
  /** Posts a finished change to the team's channel, after its requester has the answer. */
  announce,
  /** Audits an agent token that no private route could show its creator: nobody has it now. */
  recordUndeliveredToken,
  /** Cancels a pending change: it can no longer be confirmed. */
  cancel,
  /** The pickers' type-ahead: in a bound channel, only what its binding covers. */
  numberChoices: (deps: OpsDeps, typed: string, channelId?: string) => numberChoices(deps, typed, channelId),
  agentChoices: (deps: OpsDeps, typed: string, channelId?: string) => agentChoices(deps, typed, channelId),
  /** What the map form needs before it opens (the number and agent asked for, when they were). */
  mapFormData,
  /** Bulk changes: a plan of every item, applied once confirmed, a few items at a time (see batches.ts). */
  planBatch: (deps: OpsDeps, actor: Actor, request: BulkRequest) => planBatch(deps, actor, request),
  /** Desired routing as text, one `NUMBER AGENT_ID` a line, checked against the account: its routes, or every line's error. */
  checkRoutingText,
  /** The plan of a routing text checked with no error, made on the lists it was checked against. */
  planCheckedText,
  /** Today's routing in the same format, to edit and paste back. */
  exportRouting: (deps: OpsDeps, channelId?: string) => exportRouting(deps, deps.now(), channelId),
  /**
   * The routing at a typed moment, rebuilt from the audit log while its hash chain is verified (a broken chain gives
   * nothing); the time is read in the person's time zone when known, else in UTC.
   */
  exportRoutingAsOf,
  /** Each number whose routing changed since a moment typed by a person: its agent then and now, and by whom. */
  routingChangesSince,
  batchView,
  /** Confirms a plan and applies it, once; a plan the account no longer matches comes back new, to confirm again. */
  applyBatch: applyBatchEndingStep,
  /** Stops a running batch: items not yet started will not start; items under way finish. */
  stopBatch,
  cancelPlan: cancelPlanEndingStep,
  /** The failed items of an ended batch, or those it never reached, planned again (checked afresh) as a new plan. */
  planAgain,
  /** The numbers a batch bought, planned to route to one agent. */
  routeBought,
  /** One page of changes from the audit log, one line per change, newest first. */
  auditPage,
  /** Claims a Workflow Builder step execution: true the first time only, so that the step acts once. */
  claimStep,
  /** A bulk change's plan for a step: the step ends when the plan does (applied, cancelled, expired, cut short). */
  planForStep,
  /** Ends a step in Slack with its outputs or its error, and records it ended. */
  endStep,
  /** Asks the person a step names to confirm an agent's creation, where Slack did not vouch it is them who ran it. */
  askToCreateAgent: (deps: OpsDeps, actor: Actor, executionId: string, input: AgentInput) =>
    attempt(deps, actor, { action: KIND.createAgent }, (id) => askToCreateAgent(deps, actor, executionId, input, id)),
  /** The person's Create or Cancel on that ask: theirs alone, once, within 10 minutes. */
  answerAsk,
  /** Ends a step whose change has ended, with what it became. */
  settleStep,
} satisfies Record<string, Operation>;

type Operation = (deps: OpsDeps, ...args: never[]) => unknown;

/**
 * An operation as the layers above call it: on the deps the operations were made with, as a method of them (`this`),
 * so that one taken off its object and called alone does not compile.
 */
type OnDeps<O> = O extends (deps: OpsDeps, ...args: infer A) => infer R ? (this: VoiceOps, ...args: A) => R : never;

export type VoiceOps = { readonly [Name in keyof typeof OPERATIONS]: OnDeps<(typeof OPERATIONS)[Name]> };

// One prototype for every set of operations: each reads the deps of the object it is called on, so that a Slack
// delivery's operations cost one object, not one closure per operation.
const ON_DEPS: object = Object.fromEntries(
  Object.entries(OPERATIONS).map(([name, operation]: [string, Operation]) => [
    name,
    function (this: { deps: OpsDeps }, ...args: never[]) {
      return operation(this.deps, ...args);
    },
  ]),
);

export const operationsOn = (deps: OpsDeps): VoiceOps => Object.create(ON_DEPS, { deps: { value: deps } });
