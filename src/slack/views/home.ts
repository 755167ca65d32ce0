import type { HomeView, KnownBlock } from '@slack/types';
import type { AgentSummary } from '../../ops/agents.js';
import type { NumberSummary } from '../../ops/numbers.js';
import type { Role } from '../../ops/types.js';
import { ACTION } from '../ids.js';
import { escapeMrkdwn } from '../mrkdwn.js';
import { agentRows, agentsIntro } from './agents.js';
import { actions, button, context, divider, header, section } from './blocks.js';
import { buyNumberButton, numberRows, numbersIntro } from './numbers.js';
import { can, roleLine, SANDBOX_WARNING } from './roles.js';

// A Home tab holds 100 blocks: 13 for headers, notes and buttons, one per agent, two per number.
const HOME_AGENTS = 25;
const HOME_NUMBERS = 30;

/** The team's dashboard, laid out like the provider's: Voice AI (agents), then Numbers. */
export function homeView(input: {
  agents: AgentSummary[];
  numbers: NumberSummary[];
  role: Role;
  sandbox: boolean;
  error?: string;
  /** The guardrails in force, shown under the role (in the same block: the tab's block budget is spent). */
  policies?: string[];
}): HomeView {
  const { agents, numbers, role } = input;
  const agentNames = Object.fromEntries(agents.map((agent) => [agent.id, agent.name]));
  const numberTools = [buyNumberButton(), button({ text: 'Map a number', actionId: ACTION.mapNumber, value: '' })];
  const blocks: KnownBlock[] = [
    ...(input.sandbox ? [section(SANDBOX_WARNING)] : []),
    ...(input.error === undefined
      ? []
      : [section(`:warning: Could not read the provider: ${escapeMrkdwn(input.error)}`)]),
    header('Voice AI'),
    agentsIntro(agents.length, role),
    ...agentRows(agents, role, HOME_AGENTS, '`/voice agents`'),
    divider(),
    header('Numbers'),
    numbersIntro(numbers.length),
    ...(can(role, 'operator') ? [actions(numberTools)] : []),
    ...numberRows(numbers, agentNames, role, HOME_NUMBERS, '`/voice numbers`'),
    divider(),
    context([roleLine(role), ...(input.policies ?? [])].join('\n')),
  ];
  return { type: 'home', blocks };
}
