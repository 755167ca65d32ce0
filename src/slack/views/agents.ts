import type { ActionsBlock, Button, KnownBlock, SectionBlock } from '@slack/types';
import { count, counted } from '../../counts.js';
import { type AgentInUse, type AgentSummary, type AgentsPage, type Role, withInvisibleShown } from '../../ops/api.js';
import type { CreatedAgent } from '../../provider/schemas.js';
import { ACTION, PAGE } from '../ids.js';
import { bold, code, codeBlock, escapeMrkdwn } from '../mrkdwn.js';
import { actions, button, context, message, type SlackMessage, section } from './blocks.js';
import { listPager } from './pager.js';
import { can } from './roles.js';
import { scopeLead } from './scope.js';
import { describeTagFilter, tagsText } from './tags.js';
import { agentLabel, listOf } from './text.js';

/** One block an agent: 25 rows, the intro and the pager are well under Slack's 50 blocks. */
export const AGENTS_PAGE_SIZE = 25;
/** Routed numbers listed on one agent's row before "and N more". */
const NUMBERS_PER_ROW = 20;

function createAgentButton(): Button {
  return button({ text: 'Create agent', actionId: ACTION.createAgent });
}

/** "*AI agents* · name contains …", with Create agent beside it for those who may create one. */
/** The list's title and filter, or why it is empty; the Home tab, under its own heading, gives a subtitle. */
export function agentsIntro(page: AgentsPage, role: Role, title = '*AI agents*'): SectionBlock {
  const said = [
    ...(page.filter.text === undefined ? [] : [`name contains ${code(withInvisibleShown(page.filter.text))}`]),
    ...describeTagFilter(page.filter),
  ];
  const filter = said.length ? ` · ${said.join(', ')}` : '';
  const empty = filter ? '\nNo agents match.' : '\nNo agents yet.';
  const text = `${scopeLead(page.scope, 'agents')}${title}${filter}${page.total > 0 ? '' : empty}`;
  return section(text, can(role, 'operator') ? createAgentButton() : undefined);
}

function agentRow(agent: AgentSummary, role: Role): SectionBlock {
  const numbers = agent.numbers.length ? listOf(agent.numbers, NUMBERS_PER_ROW) : '_no numbers routed_';
  const language = agent.language ? ` · Language: ${escapeMrkdwn(agent.language)}` : '';
  const tags = tagsText(agent.tags);
  const text =
    `${bold(agent.name)}  ${code(agent.id)}\nStatus: ${escapeMrkdwn(agent.status)}${language} · Numbers: ${numbers}` +
    (tags ? `\n${tags}` : '');
  const remove = button({ text: 'Delete', actionId: ACTION.deleteAgent, value: agent.id, style: 'danger' });
  return section(text, can(role, 'admin') ? remove : undefined);
}

export function agentRows(agents: AgentSummary[], role: Role): KnownBlock[] {
  return agents.map((agent) => agentRow(agent, role));
}

export function agentsMessage(input: { page: AgentsPage; role: Role }): SlackMessage {
  const { page, role } = input;
  return message(`AI agents: page ${page.page} of ${page.pages}, ${counted(page.total, 'agent')}`, [
    agentsIntro(page, role),
    ...agentRows(page.items, role),
    ...listPager(page, 'agent', PAGE.agents),
  ]);
}

/** Each number with Map: the API cannot unroute a number, so each must route elsewhere or be released. */
export function agentInUseMessage(inUse: AgentInUse): SlackMessage {
  const agent = agentLabel(inUse.agent);
  const still = `${counted(inUse.total, 'number')} still ${inUse.total === 1 ? 'routes' : 'route'}`;
  const text =
    `:no_entry: Agent ${agent} cannot be deleted: ${still} to it, and the provider refuses to delete an agent in ` +
    'use. Map each number to another agent (a number cannot be left routing nowhere), or release it; then delete.';
  const rows = inUse.numbers.map((number) =>
    section(bold(number), button({ text: 'Map', actionId: ACTION.mapNumber, value: number })),
  );
  const more = inUse.total - inUse.numbers.length;
  return message(`Agent ${agent} cannot be deleted: ${still} to it.`, [
    section(text),
    ...rows,
    ...(more > 0
      ? [
          context(
            `…and ${count(more)} more: \`/voice numbers agent ${escapeMrkdwn(inUse.agent.id)}\` lists them all, each with Map.`,
          ),
        ]
      : []),
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

/** The way on from a new agent: a form that picks its numbers, several at once. */
export function routeNumbersButton(agentId: string): ActionsBlock {
  return actions([
    button({ text: 'Route numbers to this agent', actionId: ACTION.routeNumbersToAgent, value: agentId }),
  ]);
}

/** Left where the create form was opened from, once its token modal closes: the id `/voice map` needs, no token. */
export function agentReadyMessage(agent: { id: string; name: string }): SlackMessage {
  const text = `:robot_face: Agent ${bold(agent.name)} is ready: its id is ${code(agent.id)}.`;
  return message(text, [
    section(text),
    context(`Route numbers to it with the button, or type \`/voice map NUMBER ${escapeMrkdwn(agent.id)}\`.`),
    routeNumbersButton(agent.id),
  ]);
}
