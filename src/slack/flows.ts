// The flows behind commands, buttons and modals. Each turns one operation's result into an Answer, so
// a command and the button that leads to the same flow answer alike.
import type { ModalView } from '@slack/types';
import type { Actor, ConfirmationPrompt, Done, LabelsInput, PendingChange, ReadOptions, Result } from '../ops/api.js';
import { awaitingAnswer } from './approvals.js';
import { slackErrorCode } from './clients.js';
import { replyTo, type SlackDeps } from './deps.js';
import { refreshHome } from './home.js';
import {
  type AgentsPosition,
  type AuditPosition,
  type NumbersPosition,
  type SearchPosition,
  searchRequestOf,
} from './paging.js';
import type { Respond } from './respond.js';
import type { Answer, ModalContext, Surface } from './surfaces.js';
import { AGENTS_PAGE_SIZE, agentInUseMessage, agentsMessage } from './views/agents.js';
import { AUDIT_PAGE_SIZE, auditMessage } from './views/audit.js';
import { agentCardMessage, numberCardMessage } from './views/cards.js';
import { historyMessage } from './views/history.js';
import { NUMBERS_PAGE_SIZE, numbersMessage, searchResultsMessage } from './views/numbers.js';
import {
  announcementFailedMessage,
  cancelledMessage,
  formFailedMessage,
  tokenUndeliveredMessage,
  unchangedMapMessage,
} from './views/results.js';
import { routingChangesMessage } from './views/routing-changes.js';

function doneOrFailure(result: Result<Done>): Answer {
  return result.ok ? { kind: 'done', done: result } : { kind: 'failure', failure: result };
}

function promptOrFailure(result: Result<{ prompt: ConfirmationPrompt }>): Answer {
  return result.ok ? { kind: 'prompt', prompt: result.prompt } : { kind: 'failure', failure: result };
}

export async function agentsAnswer(
  deps: SlackDeps,
  actor: Actor,
  position: AgentsPosition,
  options: ReadOptions = {},
): Promise<Answer> {
  const request = { ...position, size: AGENTS_PAGE_SIZE, channelId: actor.channelId, ...options };
  const [found, role] = await Promise.all([deps.ops.findAgents(request), deps.ops.roleOf(actor)]);
  if (!found.ok) return { kind: 'failure', failure: found };
  const message =
    found.kind === 'card' ? agentCardMessage(found.card, role) : agentsMessage({ page: found.page, role });
  return { kind: 'message', message };
}

export async function numberCardAnswer(deps: SlackDeps, actor: Actor, number: string): Promise<Answer> {
  const [card, role] = await Promise.all([
    deps.ops.showNumber(number, { channelId: actor.channelId }),
    deps.ops.roleOf(actor),
  ]);
  if (!card.ok) return { kind: 'failure', failure: card };
  return { kind: 'message', message: numberCardMessage(card, role) };
}

export async function numbersAnswer(
  deps: SlackDeps,
  actor: Actor,
  position: NumbersPosition,
  options: ReadOptions = {},
): Promise<Answer> {
  const request = { ...position, size: NUMBERS_PAGE_SIZE, channelId: actor.channelId, ...options };
  const [listed, role] = await Promise.all([deps.ops.listNumbers(request), deps.ops.roleOf(actor)]);
  if (!listed.ok) return { kind: 'failure', failure: listed };
  return { kind: 'message', message: numbersMessage({ page: listed.page, role }) };
}

export async function searchAnswer(deps: SlackDeps, actor: Actor, position: SearchPosition): Promise<Answer> {
  const request = searchRequestOf(position);
  const [searched, role] = await Promise.all([deps.ops.searchNumbers(request), deps.ops.roleOf(actor)]);
  if (!searched.ok) return { kind: 'failure', failure: searched };
  deps.searches.set(actor.userId, { position });
  return { kind: 'message', message: searchResultsMessage({ page: searched.page, position, role }) };
}

export const buyAnswer = async (deps: SlackDeps, actor: Actor, number: string) =>
  promptOrFailure(await deps.ops.requestBuy(actor, number));

export const releaseAnswer = async (deps: SlackDeps, actor: Actor, numberOrId: string) =>
  promptOrFailure(await deps.ops.requestRelease(actor, numberOrId));

/** A change of any kind, as its kind's own command asks for it. */
export const changeAnswer = async (deps: SlackDeps, actor: Actor, change: PendingChange) =>
  promptOrFailure(await deps.ops.requestChange(actor, change));

/** A confirmation, or, when numbers still route to the agent, the refusal with a Map button for each. */
export async function deleteAgentAnswer(deps: SlackDeps, actor: Actor, agentId: string): Promise<Answer> {
  const asked = await deps.ops.requestDeleteAgent(actor, agentId);
  if (!asked.ok) return { kind: 'failure', failure: asked };
  if (asked.status === 'needs_confirmation') return { kind: 'prompt', prompt: asked.prompt };
  return { kind: 'message', message: agentInUseMessage(asked.inUse) };
}

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
  return awaitingAnswer(deps, confirmed.awaitingApproval);
}

export async function cancelAnswer(deps: SlackDeps, actor: Actor, confirmationId: string): Promise<Answer> {
  const cancelled = await deps.ops.cancel(actor, confirmationId);
  return cancelled.ok
    ? { kind: 'message', message: cancelledMessage(cancelled.change) }
    : { kind: 'failure', failure: cancelled };
}

export const createAgentAnswer = async (deps: SlackDeps, actor: Actor, input: { name: string; language: string }) =>
  doneOrFailure(await deps.ops.createAgent(actor, input));

/** Labels and an owner changed at once: done, with Undo, or why not. */
export const labelsAnswer = async (deps: SlackDeps, actor: Actor, input: LabelsInput) =>
  doneOrFailure(await deps.ops.changeLabels(actor, input));

/** A page of a number's or an agent's history, or why there is none. */
export async function historyAnswer(deps: SlackDeps, subject: string, before?: number): Promise<Answer> {
  const page = await deps.ops.history(subject, before);
  return page.ok ? { kind: 'message', message: historyMessage(page) } : { kind: 'failure', failure: page };
}

export async function auditAnswer(deps: SlackDeps, position: AuditPosition): Promise<Answer> {
  const page = await deps.ops.auditPage({ ...position, size: AUDIT_PAGE_SIZE });
  return { kind: 'message', message: auditMessage(page) };
}

/** `/voice changes since TIME`: each number whose routing changed since then, or why it cannot be told. */
/** `/voice changes since TIME`, TIME read in the person's Slack time zone (UTC when Slack does not give it). */
export async function changesAnswer(deps: SlackDeps, actor: Actor, since: string): Promise<Answer> {
  const where = { channelId: actor.channelId };
  const found = await deps.ops.routingChangesSince(since, await deps.people.zone(actor.userId), where);
  return found.ok ? { kind: 'message', message: routingChangesMessage(found) } : { kind: 'failure', failure: found };
}

/** What a modal surface needs, with a private route to the user for when the modal cannot show the answer. */
export function modalContext(deps: SlackDeps, actor: Actor): ModalContext {
  return {
    client: deps.slack.ui,
    now: deps.now,
    fallback: replyTo(deps, { userId: actor.userId, channelId: actor.channelId }),
  };
}

/** When Slack does not open it, the user is given the command that does the same without a form. */
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

/** Announces a change only after its answer, so that the answer never waits on the channel. */
export async function deliver(deps: SlackDeps, surface: Surface, actor: Actor, answer: Answer): Promise<void> {
  await show(deps, surface, actor, answer);
  if (answer.kind !== 'done') return;
  const announced = await deps.ops.announce(actor, answer.done);
  if (!announced.ok) {
    await surface.note(announcementFailedMessage(announced)).catch((error: unknown) => {
      deps.logger.warn({ err: error, userId: actor.userId }, 'could not say that the announcement failed');
    });
  }
  await refreshHome(deps, actor);
}

/** Shows an answer through whatever route reaches the user; an agent token that reaches no one is audited. */
async function show(deps: SlackDeps, surface: Surface, actor: Actor, answer: Answer): Promise<void> {
  try {
    await surface.show(answer);
  } catch (error) {
    deps.logger.warn({ err: error, userId: actor.userId, answer: answer.kind }, 'could not deliver a reply');
    if (answer.kind !== 'done' || !answer.done.createdAgent) return;
    await deps.ops.recordUndeliveredToken(actor, answer.done, error instanceof Error ? error.message : String(error));
    await surface.note(tokenUndeliveredMessage(answer.done.createdAgent)).catch(() => undefined);
  }
}
