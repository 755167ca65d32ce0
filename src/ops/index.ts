// The operations, implemented on their deps: the face the layers above import is api.ts.

import type { AuditAction } from '../store/audit.js';
import type { Person } from './access.js';
import { accessOf, accessOverview } from './access-overview.js';
import { requestSettingsChange, settingsView } from './admin-settings.js';
import { findAgent } from './agent-names.js';
import { type AgentFilter, createAgent, listAgents, requestDeleteAgent } from './agents.js';
import type { PoliciesInForce, VoiceOps } from './api.js';
import { approvalPosted, decide, expireApprovals, type OnBatchProgress } from './approvals.js';
import { requestChange } from './ask-confirmation.js';
import { type AuditRequest, auditPage } from './audit.js';
import { attempt, newCorrelationId, record } from './audit-rows.js';
import {
  applyBatch,
  batchDecisions,
  batchView,
  cancelPlan,
  planAgain,
  planBatch,
  routeBought,
  stopBatch,
} from './batches.js';
import type { BulkRequest } from './bulk-plans.js';
import { findAgents, showNumber } from './cards.js';
import type { Done } from './carry-out.js';
import type { PendingChange } from './changes.js';
import { cancel, checkTyped, confirm, pendingPrompt } from './confirmations.js';
import type { OpsDeps } from './deps.js';
import { history } from './history.js';
import { KIND, type Kind, subjectOf } from './kinds/index.js';
import { SETTINGS_TARGET } from './kinds/settings-change.js';
import type { ReadOptions } from './lists.js';
import { announce } from './notify.js';
import type { NumberFilter } from './number-filter.js';
import { listNumbers, requestBuy, requestRelease } from './numbers.js';
import type { PageRequest } from './pages.js';
import { agentChoices, mapFormData, numberChoices } from './pickers.js';
import { buyUsage, mayRequest, roleOf } from './policies.js';
import { mapNumber } from './routing.js';
import { exportRoutingAsOf, routingChangesSince } from './routing-as-of.js';
import { type CheckedText, checkRoutingText, exportRouting, planCheckedText } from './routing-plans.js';
import { type SearchRequest, searchNumbers } from './search.js';
import { type AgentInput, answerAsk, askToCreateAgent } from './step-asks.js';
import type { StepEnding } from './step-ends.js';
import { asItsStep, claimStep, endStep, planForStep, type StepStart, settleStep, settleSteps } from './steps.js';
import type { TimeZone } from './time-zone.js';
import { type Actor, type Failure, fail, type OnProgress } from './types.js';
import { type UndoOptions, undo } from './undo.js';

/** The operations, on these deps: the implementation of `VoiceOps` (api.ts, the face the layers above import). */
export function createOps(deps: OpsDeps): VoiceOps {
  return {
    roleOf: (person: Person) => roleOf(deps, person),
    /** Checks the role and the channel before a form opens, so nobody fills one in only to be refused; audited. */
    authorize: (actor: Actor, kind: Kind) =>
      mayRequest(deps, actor, { action: kind, correlationId: newCorrelationId() }),
    /** Audits a delivery from a workspace or org other than the app's, refused before any listener sees it. */
    refuseOtherWorkspace: (actor: Actor, appHome: string) =>
      record(deps, actor, newCorrelationId(), {
        action: 'access.denied',
        outcome: 'denied',
        params: { reason: 'other workspace', appHome, enterpriseId: actor.enterpriseId },
        error: fail('denied', `The request came from workspace ${actor.teamId ?? 'unknown'}, not ${appHome}.`),
      }),
    /**
     * Audits a person from another organization (in a channel shared with it through Slack Connect), who may read
     * and change nothing, and returns why, for them.
     */
    refuseOutsider: async (actor: Actor, appHome: string, unconfirmed: boolean) => {
      const failure = unconfirmed
        ? fail(
            'denied',
            `Voice Ops serves ${appHome} only, and Slack could not say right now which organization you belong ` +
              'to: it shows and changes nothing until it can. Try again in a minute.',
            { code: 'organization_unknown' },
          )
        : fail(
            'denied',
            `Voice Ops serves ${appHome} only, and you are in another organization (a channel shared through Slack ` +
              'Connect): it shows and changes nothing for you. Ask someone in that organization to run it.',
            { code: 'other_organization' },
          );
      await record(deps, actor, newCorrelationId(), {
        action: 'access.denied',
        outcome: 'denied',
        params: {
          reason: unconfirmed ? 'organization unknown' : 'other organization',
          appHome,
          enterpriseId: actor.enterpriseId,
        },
        error: failure,
      });
      return failure;
    },
    /** Audits a change command refused for its form, before any use case could see it. */
    refuseInput: (actor: Actor, action: AuditAction, refusal: string | Failure) =>
      record(deps, actor, newCorrelationId(), {
        action,
        outcome: 'rejected',
        error: typeof refusal === 'string' ? fail('invalid', refusal) : refusal,
      }),
    findAgent: (reference: string) => findAgent(deps, reference),
    listAgents: (request: PageRequest & ReadOptions & { filter?: AgentFilter }) => listAgents(deps, request),
    createAgent: (actor: Actor, input: { name: string; language: string }, stepExecutionId?: string) =>
      attempt(deps, actor, { action: KIND.createAgent }, async (id) => {
        // A step is tied to the change before it is made, so that the reconciler can end it after a crash.
        if (stepExecutionId) await deps.store.steps.link(stepExecutionId, id);
        return createAgent(deps, actor, input, id);
      }),
    requestDeleteAgent: (actor: Actor, agentId: string) =>
      attempt(deps, actor, { action: KIND.deleteAgent, target: agentId }, (id) =>
        requestDeleteAgent(deps, actor, agentId, id),
      ),
    listNumbers: (request: PageRequest & ReadOptions & { filter?: NumberFilter }) => listNumbers(deps, request),
    /** One number: its route and its latest changes. */
    showNumber: (number: string) => showNumber(deps, number),
    /** The agent with this id as a card, else the agents whose name contains the text. */
    findAgents: (request: PageRequest & ReadOptions & { filter: AgentFilter }) => findAgents(deps, request),
    searchNumbers: (request: SearchRequest) => searchNumbers(deps, request),
    history: (subject: string, before?: number) => history(deps, subject, before),
    requestBuy: (actor: Actor, number: string) =>
      attempt(deps, actor, { action: KIND.buy, target: number }, (id) => requestBuy(deps, actor, number, id)),
    requestRelease: (actor: Actor, numberOrId: string) =>
      attempt(deps, actor, { action: KIND.release, target: numberOrId }, (id) =>
        requestRelease(deps, actor, numberOrId, id),
      ),
    requestChange: (actor: Actor, change: PendingChange) =>
      attempt(deps, actor, { action: change.kind }, (id) => requestChange(deps, actor, change, id)),
    undo: (actor: Actor, correlationId: string, options?: UndoOptions) =>
      attempt(deps, actor, { action: 'change.undo', target: correlationId }, (id) =>
        undo(deps, actor, correlationId, id, options),
      ),
    mapNumber: (actor: Actor, input: { phoneNumber: string; agentId: string }) =>
      attempt(deps, actor, { action: KIND.map, target: input.phoneNumber }, (id) => mapNumber(deps, actor, input, id)),
    confirm: (actor: Actor, confirmationId: string, typed?: string) => confirm(deps, actor, confirmationId, typed),
    /** Approves or rejects a change that waits for a second person. */
    decide: async (
      actor: Actor,
      approvalId: string,
      verdict: 'approve' | 'reject',
      onBatchProgress?: OnBatchProgress,
    ) => {
      const decided = await decide(deps, batchDecisions(deps), actor, approvalId, verdict, onBatchProgress);
      if (decided.ok) await settleSteps(deps, [decided.request.correlationId]);
      return decided;
    },
    approvalPosted: (approvalId: string, channelId: string, ts: string) =>
      approvalPosted(deps, approvalId, channelId, ts),
    /** Ends the requests for approval nobody decided in time; each is audited as expired. */
    expireApprovals: async () => {
      const expired = await expireApprovals(deps, batchDecisions(deps));
      await settleSteps(
        deps,
        expired.map((request) => request.correlationId),
      );
      return expired;
    },
    /** The guardrails in force for this person, with how much of each buy limit is used, for help and Home. */
    policiesInForce: async (userId: string): Promise<PoliciesInForce> => {
      const settings = await deps.settings.current();
      return { policy: settings, locks: deps.settings.given.lockedBy, buying: await buyUsage(deps, settings, userId) };
    },
    settings: (options?: { fresh?: boolean }) => settingsView(deps, options),
    requestSettingsChange: (actor: Actor, proposed: unknown) =>
      attempt(deps, actor, { action: KIND.settings, target: SETTINGS_TARGET }, (id) =>
        requestSettingsChange(deps, actor, proposed, id),
      ),
    accessOverview: (teamId: string | undefined) => accessOverview(deps, teamId),
    accessOf: (person: Person) => accessOf(deps, person),
    /** The prompt of a confirmation its requester may still confirm (to ask for the typed confirmation). */
    pendingPrompt: (actor: Actor, confirmationId: string) => pendingPrompt(deps, actor, confirmationId),
    /** A wrong typed confirmation, for the form's inline error; nothing is changed or claimed. */
    checkTyped: (actor: Actor, confirmationId: string, typed: string) => checkTyped(deps, actor, confirmationId, typed),
    /** Posts a finished change to the team's channel, after its requester has the answer. */
    announce: (actor: Actor, done: Done) => announce(deps, actor, done),
    /** Audits an agent token that no private route could show its creator: nobody has it now. */
    recordUndeliveredToken: (actor: Actor, done: Done, why: string) =>
      record(deps, actor, done.correlationId, {
        action: 'agent.token',
        outcome: 'failed',
        target: subjectOf(done.change),
        error: fail('undelivered', `The agent token reached no one: ${why}`),
      }),
    cancel: (actor: Actor, confirmationId: string) => cancel(deps, actor, confirmationId),
    /** The map form's type-ahead pickers, and what the form needs before it opens. */
    numberChoices: (typed: string) => numberChoices(deps, typed),
    agentChoices: (typed: string) => agentChoices(deps, typed),
    mapFormData: (asked?: { number?: string; agentId?: string }) => mapFormData(deps, asked),
    /** Bulk changes: a plan of every item, applied once confirmed, a few items at a time (see batches.ts). */
    planBatch: (actor: Actor, request: BulkRequest) => planBatch(deps, actor, request),
    /** Desired routing as text, one `NUMBER AGENT_ID` a line, checked against the account: its routes, or every line's error. */
    checkRoutingText: (text: string) => checkRoutingText(deps, text),
    planCheckedText: (actor: Actor, checked: CheckedText) => planCheckedText(deps, actor, checked),
    /** Today's routing in the same format, to edit and paste back. */
    exportRouting: () => exportRouting(deps, deps.now()),
    exportRoutingAsOf: (time: string, zone?: TimeZone) => exportRoutingAsOf(deps, time, zone),
    routingChangesSince: (time: string, zone?: TimeZone) => routingChangesSince(deps, time, zone),
    batchView: (batchId: string, page?: number, size?: number) => batchView(deps, batchId, page, size),
    applyBatch: async (actor: Actor, batchId: string, options: { typed?: string; onProgress: OnProgress }) => {
      const applied = await applyBatch(deps, await asItsStep(deps, actor, batchId, true), batchId, options);
      // A plan made again replaces the one a step waits on; a plan that ended ends its step.
      if (applied.ok && applied.status === 'changed') await deps.store.steps.follow(batchId, applied.view.id);
      await settleSteps(deps, [batchId]);
      return applied;
    },
    stopBatch: (actor: Actor, batchId: string) => stopBatch(deps, actor, batchId),
    cancelPlan: async (actor: Actor, batchId: string) => {
      const cancelled = await cancelPlan(deps, await asItsStep(deps, actor, batchId), batchId);
      await settleSteps(deps, [batchId]);
      return cancelled;
    },
    planAgain: (actor: Actor, batchId: string, which: 'failed' | 'rest') => planAgain(deps, actor, batchId, which),
    routeBought: (actor: Actor, batchId: string, agentId: string) => routeBought(deps, actor, batchId, agentId),
    /** One page of changes from the audit log, one line per change, newest first. */
    auditPage: (request: AuditRequest) => auditPage(deps, request),
    /** Workflow Builder steps: each execution claimed once, its plan tied to it, and ended in Slack (steps.ts). */
    claimStep: (start: StepStart) => claimStep(deps, start),
    planForStep: (actor: Actor, executionId: string, request: BulkRequest) =>
      planForStep(deps, actor, executionId, request),
    endStep: (executionId: string, ending: StepEnding) => endStep(deps, executionId, ending),
    askToCreateAgent: (actor: Actor, executionId: string, input: AgentInput) =>
      askToCreateAgent(deps, actor, executionId, input),
    answerAsk: (actor: Actor, executionId: string, verdict: 'create' | 'cancel') =>
      answerAsk(deps, actor, executionId, verdict),
    settleStep: (executionId: string) => settleStep(deps, executionId),
  };
}
