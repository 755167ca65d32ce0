// The operations the Slack layer may call: the only code that changes provider state.

import type { AuditAction } from '../store/audit.js';
import { type AgentFilter, createAgent, listAgents, requestDeleteAgent } from './agents.js';
import { type AuditRequest, auditPage } from './audit.js';
import { findAgents, showNumber } from './cards.js';
import type { Done } from './carry-out.js';
import { cancel, confirm } from './confirmations.js';
import { authorize, newCorrelationId, type OpsDeps, record } from './context.js';
import type { ReadOptions } from './lists.js';
import { announce } from './notify.js';
import { listNumbers, type NumberFilter, requestBuy, requestRelease } from './numbers.js';
import type { PageRequest } from './pages.js';
import { agentChoices, mapFormData, numberChoices } from './pickers.js';
import { mapNumber } from './routing.js';
import { type SearchRequest, searchNumbers } from './search.js';
import { type Actor, fail, type Role } from './types.js';

export type { AgentFilter, AgentSummary, AgentsPage } from './agents.js';
export type { AuditChange, AuditPage, AuditRequest } from './audit.js';
export type { AgentCard, NumberCard } from './cards.js';
export type { Done } from './carry-out.js';
export type { ConfirmationPrompt, PendingChange } from './changes.js';
export type { OpsDeps } from './context.js';
export { type Announcement, AnnouncementFailed, type Announcer, type Change } from './notify.js';
export type { NumberFilter, NumberSummary, NumbersPage } from './numbers.js';
export type { Page, PageRequest } from './pages.js';
export type { AgentChoices, NumberChoices } from './pickers.js';
export type { MapResult } from './routing.js';
export type { SearchPage, SearchRequest, SearchStart } from './search.js';
export type { Actor, Failure, Result, Role } from './types.js';

export function createOps(deps: OpsDeps) {
  return {
    roleOf: (userId: string) => deps.access.roleOf(userId),
    /** Checks a role before a form opens, so nobody fills one in only to be refused; denials are audited. */
    authorize: (actor: Actor, needed: Role, action: AuditAction) =>
      authorize(deps, actor, needed, { action, correlationId: newCorrelationId() }),
    /** Audits a delivery from a workspace other than the app's, which is refused before any listener sees it. */
    refuseOtherWorkspace: (actor: Actor, appTeamId: string) =>
      record(deps, actor, newCorrelationId(), {
        action: 'access.denied',
        outcome: 'denied',
        params: { reason: 'other workspace', appTeamId },
        error: fail('denied', `The request came from workspace ${actor.teamId ?? 'unknown'}, not ${appTeamId}.`),
      }),
    listAgents: (request: PageRequest & ReadOptions & { filter?: AgentFilter }) => listAgents(deps, request),
    createAgent: (actor: Actor, input: { name: string; language: string }) => createAgent(deps, actor, input),
    requestDeleteAgent: (actor: Actor, agentId: string) => requestDeleteAgent(deps, actor, agentId),
    listNumbers: (request: PageRequest & ReadOptions & { filter?: NumberFilter }) => listNumbers(deps, request),
    /** One number: its route and its latest changes. */
    showNumber: (number: string) => showNumber(deps, number),
    /** The agent with this id as a card, else the agents whose name contains the text. */
    findAgents: (request: PageRequest & ReadOptions & { filter: AgentFilter }) => findAgents(deps, request),
    searchNumbers: (request: SearchRequest) => searchNumbers(deps, request),
    requestBuy: (actor: Actor, number: string) => requestBuy(deps, actor, number),
    requestRelease: (actor: Actor, numberOrId: string) => requestRelease(deps, actor, numberOrId),
    mapNumber: (actor: Actor, input: { phoneNumber: string; agentId: string }) => mapNumber(deps, actor, input),
    confirm: (actor: Actor, confirmationId: string) => confirm(deps, actor, confirmationId),
    /** Posts a finished change to the team's channel, after its requester has the answer. */
    announce: (actor: Actor, done: Done) => announce(deps, actor, done),
    /** Audits an agent token that no private route could show its creator: nobody has it now. */
    recordUndeliveredToken: (actor: Actor, done: Done, why: string) =>
      record(deps, actor, done.correlationId, {
        action: 'agent.token',
        outcome: 'failed',
        target: done.change.action === 'agent.create' ? done.change.agent.id : undefined,
        error: fail('undelivered', `The agent token reached no one: ${why}`),
      }),
    cancel: (actor: Actor, confirmationId: string) => cancel(deps, actor, confirmationId),
    /** The map form's type-ahead pickers, and what the form needs before it opens. */
    numberChoices: (typed: string) => numberChoices(deps, typed),
    agentChoices: (typed: string) => agentChoices(deps, typed),
    mapFormData: (initialNumber?: string) => mapFormData(deps, initialNumber),
    /** One page of changes from the audit log, one line per change, newest first. */
    auditPage: (request: AuditRequest) => auditPage(deps, request),
  };
}

export type VoiceOps = ReturnType<typeof createOps>;
