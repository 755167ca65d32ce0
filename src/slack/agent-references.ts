// The agents a command names, by id or by name, found before it runs: one agent goes on by its id; several of the name
// are offered to choose from, each a button that runs the same command text with that id; a name no agent has is
// answered with the names meant, and nothing runs.
import { z } from 'zod';
import { type Actor, KIND, type NumberFilter } from '../ops/api.js';
import type { AgentReference, Command } from './command.js';
import type { SlackDeps } from './deps.js';
import { decodeValue, encodeValue } from './paging.js';
import type { Answer } from './surfaces.js';
import { agentChoiceMessage } from './views/agent-choice.js';

interface Reference {
  agent: AgentReference;
  /** The same command naming the agent by this id. */
  with: (agentId: string) => Command;
  /**
   * A reference no agent has goes on as typed, for the operation to answer itself: a history or the audit may be of
   * an agent deleted since. A filter's agent that none is is answered here, rather than with an empty list.
   */
  answeredByOperation?: boolean;
  /** The change the command asks for, audited when its agent cannot be found (or the agents cannot be read). */
  change?: string;
}

function filterReference(
  filter: NumberFilter,
  withFilter: (filter: NumberFilter) => Command,
  change?: string,
): Reference[] {
  const agent = filter.agentId;
  return agent === undefined ? [] : [{ agent, with: (agentId) => withFilter({ ...filter, agentId }), change }];
}

/** The agents a command names, in the order they are typed. */
function referencesOf(command: Command): Reference[] {
  switch (command.name) {
    case 'agents.delete':
      return [
        {
          agent: command.agent,
          with: (agent) => ({ ...command, agent }),
          answeredByOperation: true,
          change: KIND.deleteAgent,
        },
      ];
    case 'map':
      return command.agent === undefined
        ? []
        : [
            {
              agent: command.agent,
              with: (agent) => ({ ...command, agent }),
              answeredByOperation: true,
              change: KIND.map,
            },
          ];
    case 'map.bulk':
      return [
        ...filterReference(command.filter, (filter) => ({ ...command, filter }), KIND.map),
        { agent: command.agent, with: (agent) => ({ ...command, agent }), answeredByOperation: true, change: KIND.map },
      ];
    case 'numbers.list':
      return filterReference(command.filter, (filter) => ({ ...command, filter }));
    case 'numbers.release.bulk':
      return filterReference(command.filter, (filter) => ({ ...command, filter }), KIND.release);
    case 'labels.bulk':
      return filterReference(command.filter, (filter) => ({ ...command, filter }), KIND.label);
    case 'audit':
      return command.filter.agentId === undefined
        ? []
        : [
            {
              agent: command.filter.agentId,
              with: (agentId) => ({ ...command, filter: { ...command.filter, agentId } }),
              answeredByOperation: true,
            },
          ];
    case 'labels':
      return 'agent' in command.target
        ? [
            {
              agent: command.target.agent,
              with: (agent) => ({ ...command, target: { agent } }),
              change: KIND.label,
            },
          ]
        : [];
    case 'history':
      return command.subject.startsWith('+')
        ? []
        : [{ agent: command.subject, with: (subject) => ({ ...command, subject }), answeredByOperation: true }];
    default:
      return [];
  }
}

/** Whether the command names an agent, by id or by name. */
export const namesAgents = (command: Command): boolean => referencesOf(command).length > 0;

/** What a Choose button carries: the command as typed, and the agents chosen so far, by their place in it. */
const chosenAgents = z.object({ text: z.string(), chosen: z.record(z.string(), z.string()) });
export type ChosenAgents = z.infer<typeof chosenAgents>;

export const decodeChosenAgents = (value: string): ChosenAgents | undefined => decodeValue(chosenAgents, value);

/** Or the answer to show instead: the agents of a name to choose from, or why no agent has it (audited). */
export async function withAgentsFound(
  deps: SlackDeps,
  actor: Actor,
  command: Command,
  typed: ChosenAgents,
): Promise<{ ok: true; command: Command } | { ok: false; answer: Answer }> {
  let current = command;
  for (const [at, agentId] of Object.entries(typed.chosen)) {
    current = referencesOf(current)[Number(at)]?.with(agentId) ?? current;
  }
  // Read afresh after each agent found: a reference's `with` keeps the agents before it as they then stood.
  for (let at = 0; at < referencesOf(current).length; at++) {
    const reference = referencesOf(current)[at];
    if (!reference) break;
    const found = await deps.ops.findAgent(reference.agent);
    if (!found.ok) {
      if (reference.answeredByOperation && found.reason === 'not_found') continue;
      if (reference.change) await deps.ops.refuseInput(actor, reference.change, found);
      return { ok: false, answer: { kind: 'failure', failure: found } };
    }
    if (found.found === 'several') {
      const valueFor = (agentId: string) =>
        encodeValue({ text: typed.text, chosen: { ...typed.chosen, [at]: agentId } } satisfies ChosenAgents);
      return { ok: false, answer: { kind: 'message', message: agentChoiceMessage(found, valueFor) } };
    }
    current = reference.with(found.agent.id);
  }
  return { ok: true, command: current };
}
