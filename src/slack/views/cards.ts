// One number or one agent: what it is, where its calls go, what happened to it lately, and its buttons.
import type { KnownBlock } from '@slack/types';
import { count } from '../../counts.js';
import { type AgentCard, type AuditChange, type NumberCard, type Role, regionName } from '../../ops/api.js';
import { ACTION } from '../ids.js';
import { bold, code, escapeMrkdwn } from '../mrkdwn.js';
import { changeLine } from './audit.js';
import { actions, button, context, message, type SlackMessage, section } from './blocks.js';
import { historyValue } from './history.js';
import { labelsButton, tagsLine } from './labels.js';
import { capabilityText, NO_VOICE } from './numbers.js';
import { can } from './roles.js';
import { agentLabel, listOf } from './text.js';

/** Every change that happened to the number or agent, a line each. */
const historyButton = (subject: string) =>
  button({ text: 'History', actionId: ACTION.showHistory, value: historyValue(subject) });

/** Numbers named on an agent's card before "and N more". */
const CARD_NUMBERS = 20;

function historyBlocks(history: AuditChange[], command: string): KnownBlock[] {
  if (!history.length) return [context(`No changes in the audit log yet: ${code(command)}.`)];
  return [section(`*Latest changes*\n${history.map(changeLine).join('\n')}`), context(`All of them: ${code(command)}`)];
}

export function numberCardMessage(card: NumberCard, role: Role): SlackMessage {
  const { number } = card;
  const region = number.region
    ? `${regionName(number.region) ?? ''} (${escapeMrkdwn(number.region)})`.trim()
    : 'unknown';
  const route = number.agentId
    ? `Routes to ${agentLabel({ id: number.agentId, name: number.agentName })}`
    : '_Not routed_: calls reach no agent.';
  const buttons = [
    ...(can(role, 'operator')
      ? [
          button({ text: 'Map', actionId: ACTION.mapNumber, value: number.number }),
          labelsButton({ subject: number.number, ...card.tags }),
        ]
      : []),
    historyButton(number.number),
    ...(can(role, 'admin')
      ? [button({ text: 'Release', actionId: ACTION.releaseNumber, value: number.id, style: 'danger' })]
      : []),
  ];
  return message(`Number ${escapeMrkdwn(number.number)}: ${number.agentId ? 'routed' : 'not routed'}`, [
    section(
      `${bold(number.number)}  ${code(number.id)}\nStatus: ${escapeMrkdwn(number.status)} · Region: ${region}` +
        ` · Capabilities: ${number.capabilities ? capabilityText(number.capabilities) : 'not known'}` +
        `${number.capabilities && !number.capabilities.includes('voice') ? `\n${NO_VOICE}` : ''}\n${route}` +
        `\n${tagsLine(card.tags)}`,
    ),
    ...historyBlocks(card.history, `/voice audit ${number.number}`),
    actions(buttons),
  ]);
}

export function agentCardMessage(card: AgentCard, role: Role): SlackMessage {
  const { agent } = card;
  const numbers = agent.numbers.length
    ? `${count(agent.numbers.length)} routed: ${listOf(agent.numbers, CARD_NUMBERS)}` +
      (agent.numbers.length > CARD_NUMBERS
        ? `. All of them, each with Map: \`/voice numbers agent ${escapeMrkdwn(agent.id)}\``
        : '')
    : '_No numbers route to it._';
  const remove = button({ text: 'Delete', actionId: ACTION.deleteAgent, value: agent.id, style: 'danger' });
  return message(`Agent ${escapeMrkdwn(agent.name)}`, [
    section(
      `${bold(agent.name)}  ${code(agent.id)}\nStatus: ${escapeMrkdwn(agent.status)}` +
        ` · Language: ${agent.language ? escapeMrkdwn(agent.language) : 'not known'}\nNumbers: ${numbers}` +
        `\n${tagsLine(card.tags)}`,
    ),
    ...historyBlocks(card.history, `/voice audit ${agent.id}`),
    actions([
      historyButton(agent.id),
      ...(can(role, 'operator') ? [labelsButton({ subject: agent.id, name: agent.name, ...card.tags })] : []),
      ...(can(role, 'admin') ? [remove] : []),
    ]),
  ]);
}
