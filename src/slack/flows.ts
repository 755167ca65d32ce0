// The flows behind commands, buttons and modals. Each turns one operation's result into an Answer, so
// a command and the button that leads to the same flow answer alike.
import type { App } from '@slack/bolt';
import type { Logger } from '../log.js';
import type { Actor, ConfirmationPrompt, Done, Result, VoiceOps } from '../ops/index.js';
import type { Answer, Surface } from './surfaces.js';
import { agentsMessage } from './views/agents.js';
import { auditMessage } from './views/audit.js';
import { homeView } from './views/home.js';
import { numbersMessage, searchResultsMessage } from './views/numbers.js';
import { cancelledMessage, unchangedMapMessage } from './views/results.js';

export interface SlackDeps {
  ops: VoiceOps;
  client: App['client'];
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

export const confirmAnswer = async (deps: SlackDeps, actor: Actor, confirmationId: string) =>
  doneOrFailure(await deps.ops.confirm(actor, confirmationId));

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

/** Shows the answer; after a change, the actor's Home tab is refreshed to match. */
export async function deliver(deps: SlackDeps, surface: Surface, actor: Actor, answer: Answer): Promise<void> {
  await surface.show(answer);
  if (answer.kind === 'done') await refreshHome(deps, actor.userId);
}

/** Publishes the user's Home tab; a failure here never spoils the change that triggered it. */
export async function refreshHome(deps: SlackDeps, userId: string): Promise<void> {
  try {
    const [dashboard, role] = await Promise.all([deps.ops.dashboard(), deps.ops.roleOf(userId)]);
    const view = dashboard.ok
      ? homeView({ agents: dashboard.agents, numbers: dashboard.numbers, role, sandbox: deps.sandbox })
      : homeView({ agents: [], numbers: [], role, sandbox: deps.sandbox, error: dashboard.message });
    await deps.client.views.publish({ user_id: userId, view });
  } catch (error) {
    deps.logger.warn({ err: error, userId }, 'could not publish the Home tab');
  }
}
