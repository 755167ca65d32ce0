// The flows behind commands, buttons and modals. Each turns one operation's result into an Answer, so
// a command and the button that leads to the same flow answer alike.
import type { ModalView } from '@slack/types';
import type { Logger } from '../log.js';
import type { Actor, ConfirmationPrompt, Done, Result, VoiceOps } from '../ops/index.js';
import { postApprovalRequest } from './approvals.js';
import { type SlackClients, slackErrorCode } from './clients.js';
import { privateReply, type Recipient, type Respond } from './respond.js';
import type { Answer, ModalContext, Surface } from './surfaces.js';
import { agentsMessage } from './views/agents.js';
import { approvalNotPostedMessage, awaitingApprovalMessage } from './views/approvals.js';
import { auditMessage } from './views/audit.js';
import { homeView } from './views/home.js';
import { numbersMessage, searchResultsMessage } from './views/numbers.js';
import { policyLines } from './views/policies.js';
import {
  announcementFailedMessage,
  cancelledMessage,
  formFailedMessage,
  tokenUndeliveredMessage,
  unchangedMapMessage,
} from './views/results.js';

export interface SlackDeps {
  ops: VoiceOps;
  slack: SlackClients;
  /** True when the embedded sandbox stands in for the provider: nothing real is bought. */
  sandbox: boolean;
  now: () => Date;
  logger: Logger;
}

function doneOrFailure(result: Result<Done>): Answer {
  return result.ok ? { kind: 'done', done: result } : { kind: 'failure', failure: result };
}

function promptOrFailure(result: Result<{ prompt: ConfirmationPrompt }>): Answer {
  return result.ok ? { kind: 'prompt', prompt: result.prompt } : { kind: 'failure', failure: result };
}

export async function agentsAnswer(deps: SlackDeps, actor: Actor): Promise<Answer> {
  const [listed, role] = await Promise.all([deps.ops.listAgents(), deps.ops.roleOf(actor.userId)]);
  if (!listed.ok) return { kind: 'failure', failure: listed };
  return { kind: 'message', message: agentsMessage({ agents: listed.agents, role }) };
}

export async function numbersAnswer(deps: SlackDeps, actor: Actor): Promise<Answer> {
  const [dashboard, role] = await Promise.all([deps.ops.dashboard(), deps.ops.roleOf(actor.userId)]);
  if (!dashboard.ok) return { kind: 'failure', failure: dashboard };
  const agentNames = Object.fromEntries(dashboard.agents.map((agent) => [agent.id, agent.name]));
  return { kind: 'message', message: numbersMessage({ numbers: dashboard.numbers, agentNames, role }) };
}

export async function searchAnswer(
  deps: SlackDeps,
  actor: Actor,
  query: { region?: string; cursor?: string },
): Promise<Answer> {
  const [searched, role] = await Promise.all([deps.ops.searchNumbers(query), deps.ops.roleOf(actor.userId)]);
  if (!searched.ok) return { kind: 'failure', failure: searched };
  return { kind: 'message', message: searchResultsMessage({ page: searched.page, region: query.region, role }) };
}

export const buyAnswer = async (deps: SlackDeps, actor: Actor, number: string) =>
  promptOrFailure(await deps.ops.requestBuy(actor, number));

export const releaseAnswer = async (deps: SlackDeps, actor: Actor, numberOrId: string) =>
  promptOrFailure(await deps.ops.requestRelease(actor, numberOrId));

export const deleteAgentAnswer = async (deps: SlackDeps, actor: Actor, agentId: string) =>
  promptOrFailure(await deps.ops.requestDeleteAgent(actor, agentId));

export async function mapAnswer(
  deps: SlackDeps,
  actor: Actor,
  input: { phoneNumber: string; agentId: string },
): Promise<Answer> {
  const mapped = await deps.ops.mapNumber(actor, input);
  if (!mapped.ok) return { kind: 'failure', failure: mapped };
  switch (mapped.status) {
    case 'done':
      return { kind: 'done', done: mapped.done };
    case 'needs_confirmation':
      return { kind: 'prompt', prompt: mapped.prompt };
    case 'unchanged':
      return { kind: 'message', message: unchangedMapMessage(input.phoneNumber, mapped.agentName) };
  }
}

/** A confirmed change is done, failed, or (when it needs a second person) waits: its request is posted first. */
export async function confirmAnswer(
  deps: SlackDeps,
  actor: Actor,
  confirmationId: string,
  typed?: string,
): Promise<Answer> {
  const confirmed = await deps.ops.confirm(actor, confirmationId, typed);
  if (!confirmed.ok || !('awaitingApproval' in confirmed)) return doneOrFailure(confirmed);
  const request = confirmed.awaitingApproval;
  const notPosted = await postApprovalRequest(deps, request);
  const waiting = awaitingApprovalMessage(request);
  if (!notPosted) return { kind: 'message', message: waiting };
  return { kind: 'message', message: approvalNotPostedMessage(waiting, notPosted) };
}

export function cancelAnswer(deps: SlackDeps, actor: Actor, confirmationId: string): Answer {
  const cancelled = deps.ops.cancel(actor, confirmationId);
  return cancelled.ok
    ? { kind: 'message', message: cancelledMessage(cancelled.change) }
    : { kind: 'failure', failure: cancelled };
}

export const createAgentAnswer = async (deps: SlackDeps, actor: Actor, input: { name: string; language: string }) =>
  doneOrFailure(await deps.ops.createAgent(actor, input));

export function auditAnswer(deps: SlackDeps, limit: number): Answer {
  return { kind: 'message', message: auditMessage(deps.ops.recentAudit(limit)) };
}

/** Private replies to a user: the response_url when there is one, then the channel, then a direct message. */
export function replyTo(deps: SlackDeps, to: Recipient): Respond {
  return privateReply(deps.slack, to, deps.logger);
}

/** What a modal surface needs, with a private route to the user for when the modal cannot show the answer. */
export function modalContext(deps: SlackDeps, actor: Actor): ModalContext {
  return {
    client: deps.slack.ui,
    now: deps.now,
    fallback: replyTo(deps, { userId: actor.userId, channelId: actor.channelId }),
  };
}

/**
 * Opens a form; when Slack does not open it (an expired trigger, no answer in time), the user is told so and
 * given the command that does the same without a form.
 */
export async function openForm(
  deps: SlackDeps,
  input: { triggerId: string; view: ModalView; push?: boolean; instead: string; reply: Respond },
): Promise<void> {
  const opening = { trigger_id: input.triggerId, view: input.view };
  try {
    await (input.push ? deps.slack.ui.views.push(opening) : deps.slack.ui.views.open(opening));
  } catch (error) {
    await tellFormFailed(deps, input.reply, slackErrorCode(error), input.instead);
  }
}

/** Says that a form did not open, and what to type instead; a failure here is only logged. */
export async function tellFormFailed(deps: SlackDeps, reply: Respond, code: string, instead: string): Promise<void> {
  deps.logger.warn({ code }, 'Slack did not open a form');
  await reply(formFailedMessage(code, instead)).catch((error: unknown) => {
    deps.logger.warn({ err: error }, 'could not say that a form did not open');
  });
}

/**
 * Shows the answer; after a change, announces it (only now, so that the answer never waits on the channel), tells
 * the requester if the channel did not get it, and refreshes the actor's Home tab to match.
 */
export async function deliver(deps: SlackDeps, surface: Surface, actor: Actor, answer: Answer): Promise<void> {
  await show(deps, surface, actor, answer);
  if (answer.kind !== 'done') return;
  const announced = await deps.ops.announce(actor, answer.done);
  if (!announced.ok) {
    await surface.note(announcementFailedMessage(announced)).catch((error: unknown) => {
      deps.logger.warn({ err: error, userId: actor.userId }, 'could not say that the announcement failed');
    });
  }
  await refreshHome(deps, actor.userId);
}

/** Shows an answer through whatever route reaches the user; an agent token that reaches no one is audited. */
async function show(deps: SlackDeps, surface: Surface, actor: Actor, answer: Answer): Promise<void> {
  try {
    await surface.show(answer);
  } catch (error) {
    deps.logger.warn({ err: error, userId: actor.userId, answer: answer.kind }, 'could not deliver a reply');
    if (answer.kind !== 'done' || !answer.done.createdAgent) return;
    deps.ops.recordUndeliveredToken(actor, answer.done, error instanceof Error ? error.message : String(error));
    await surface.note(tokenUndeliveredMessage(answer.done.createdAgent)).catch(() => undefined);
  }
}

/** Publishes the user's Home tab; a failure here never spoils the change that triggered it. */
export async function refreshHome(deps: SlackDeps, userId: string): Promise<void> {
  try {
    const [dashboard, role] = await Promise.all([deps.ops.dashboard(), deps.ops.roleOf(userId)]);
    const shown = { role, sandbox: deps.sandbox, policies: policyLines(deps.ops.policiesInForce(userId)) };
    const view = dashboard.ok
      ? homeView({ ...shown, agents: dashboard.agents, numbers: dashboard.numbers })
      : homeView({ ...shown, agents: [], numbers: [], error: dashboard.message });
    await deps.slack.ui.views.publish({ user_id: userId, view });
  } catch (error) {
    deps.logger.warn({ err: error, userId }, 'could not publish the Home tab');
  }
}
