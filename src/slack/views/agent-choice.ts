// Several agents of the name a person typed: each with its id and the numbers routed to it, and a button that goes on
// with the same request for that one. Nothing changes until one is chosen.
import { counted } from '../../counts.js';
import { type AgentChoice, withInvisibleShown } from '../../ops/api.js';
import { ACTION } from '../ids.js';
import { bold, code, escapeMrkdwn } from '../mrkdwn.js';
import { button, context, message, type SlackMessage, section } from './blocks.js';
import { agentLabel, listOf } from './text.js';

/** Agents offered, each a block, well within Slack's 50 blocks a message. */
const CHOICES_SHOWN = 20;
/** Routed numbers listed on an agent's row before "and N more". */
const NUMBERS_SHOWN = 5;

export function agentChoiceMessage(
  choice: { reference: string; agents: readonly AgentChoice[] },
  valueFor: (agentId: string) => string,
): SlackMessage {
  const name = withInvisibleShown(choice.reference);
  const title =
    `${bold(`${choice.agents.length} agents are named ${name}`)}: choose the one you mean, and your request goes on ` +
    'with it. Nothing was changed.';
  const shown = choice.agents.slice(0, CHOICES_SHOWN);
  const hidden = choice.agents.length - shown.length;
  return message(`${choice.agents.length} agents are named ${escapeMrkdwn(name)}: choose one`, [
    section(title),
    ...shown.map((agent) => {
      const numbers = agent.numbers.length
        ? `${counted(agent.numbers.length, 'number')} routed: ${listOf(agent.numbers, NUMBERS_SHOWN)}`
        : 'no numbers routed';
      const choose = button({ text: 'Choose', actionId: ACTION.chooseAgent, value: valueFor(agent.id) });
      return section(`${agentLabel(agent)} · ${numbers}`, choose);
    }),
    ...(hidden
      ? [
          context(
            `And ${counted(hidden, 'more agent')} of that name: type its id, as ${code('/voice agents')} lists it.`,
          ),
        ]
      : []),
  ]);
}
