import type { Button, KnownBlock, SectionBlock } from '@slack/types';
import type { AgentSummary } from '../../ops/agents.js';
import type { Role } from '../../ops/types.js';
import type { CreatedAgent } from '../../provider/schemas.js';
import { ACTION } from '../ids.js';
import { bold, code, codeBlock, escapeMrkdwn } from '../mrkdwn.js';
import { button, capped, context, message, moreLine, type SlackMessage, section } from './blocks.js';
import { can } from './roles.js';
import { listOf } from './text.js';

/** Rows in the agents message: with the intro, the more line and room to spare, under Slack's 50 blocks. */
const MESSAGE_ROWS = 40;
/** Routed numbers listed on one agent's row before "and N more". */
const NUMBERS_PER_ROW = 20;

function createAgentButton(): Button {
  return button({ text: 'Create agent', actionId: ACTION.createAgent });
}

/** "*AI agents* (3)", with Create agent beside it for those who may create one. */
export function agentsIntro(count: number, role: Role): SectionBlock {
  const text = count ? `*AI agents* (${count})` : '*AI agents*\nNo agents yet.';
  return section(text, can(role, 'operator') ? createAgentButton() : undefined);
}

function agentRow(agent: AgentSummary, role: Role): SectionBlock {
  const numbers = agent.numbers.length ? listOf(agent.numbers, NUMBERS_PER_ROW) : '_no numbers routed_';
  const text = `${bold(agent.name)}  ${code(agent.id)}\nStatus: ${escapeMrkdwn(agent.status)} · Numbers: ${numbers}`;
  const remove = button({ text: 'Delete', actionId: ACTION.deleteAgent, value: agent.id, style: 'danger' });
  return section(text, can(role, 'admin') ? remove : undefined);
}

/** One row per agent up to `max`, then where to see the rest. */
export function agentRows(agents: AgentSummary[], role: Role, max: number, where?: string): KnownBlock[] {
  const { shown, hidden } = capped(agents, max);
  return [...shown.map((agent) => agentRow(agent, role)), ...(hidden ? [moreLine(hidden, where)] : [])];
}

export function agentsMessage(input: { agents: AgentSummary[]; role: Role }): SlackMessage {
  const { agents, role } = input;
  return message(`${agents.length} AI agents`, [
    agentsIntro(agents.length, role),
    ...agentRows(agents, role, MESSAGE_ROWS),
  ]);
}

/** The one view that shows the agent token: to its creator, once. */
export function agentCreatedMessage(agent: CreatedAgent): SlackMessage {
  const status = escapeMrkdwn(agent.status);
  const created = `:white_check_mark: Created agent ${bold(agent.name)} (${code(agent.id)}), status ${status}.`;
  return message(created, [
    section(created),
    section(`*Agent token*\n${codeBlock(agent.agent_token)}`),
    context(
      ':lock: Store this token now, in your secrets manager: it is shown only this once and will not be shown again. ' +
        'It is not logged, stored or posted anywhere.',
    ),
  ]);
}
