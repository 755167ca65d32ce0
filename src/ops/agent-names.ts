// An agent by its id, or its whole name in any case. A name may stand for several, and then nothing goes on until one
// is chosen by its id. Every way in finds agents here, so that a name means the same everywhere.
import { counted } from '../counts.js';
import type { Agent } from '../provider/schemas.js';
import type { OpsDeps } from './deps.js';
import { editDistance } from './edit-distance.js';
import { providerFailure } from './failures.js';
import { type Failure, fail, type Result } from './types.js';
import { withInvisibleShown } from './visible.js';

/** An agent one of several of a name, with the numbers routed to it, to tell it from the others. */
export interface AgentChoice {
  id: string;
  name: string;
  numbers: readonly string[];
}

/** What a reference needs of an agent: its id and its name. */
type Named = Pick<Agent, 'id' | 'name'>;

type AgentMatch<A extends Named = Agent> =
  | { found: 'one'; agent: A }
  | { found: 'several'; agents: A[] }
  | { found: 'none'; closest: string[] };

/** Names offered after "did you mean". */
const CLOSEST_SHOWN = 3;

/** The agents a reference names: the one with that id, else every agent of that name, whatever its case. */
export function matchAgent<A extends Named>(agents: readonly A[], reference: string): AgentMatch<A> {
  const typed = reference.trim();
  const byId = agents.find((agent) => agent.id === typed);
  if (byId) return { found: 'one', agent: byId };
  const lowered = typed.toLowerCase();
  const named = agents.filter((agent) => agent.name.toLowerCase() === lowered);
  if (named.length === 1 && named[0]) return { found: 'one', agent: named[0] };
  if (named.length > 1) return { found: 'several', agents: named };
  return { found: 'none', closest: closestNames(agents, lowered) };
}

/** The names a slip or two away from the text, or containing it, closest first. */
function closestNames(agents: readonly Named[], lowered: string): string[] {
  const slips = Math.max(1, Math.floor(lowered.length / 4));
  const scored = [...new Set(agents.map((agent) => agent.name))].flatMap((name) => {
    const candidate = name.toLowerCase();
    const distance = candidate.includes(lowered) ? 0 : editDistance(lowered, candidate);
    return distance <= slips ? [{ name, distance }] : [];
  });
  return scored
    .sort((a, b) => a.distance - b.distance)
    .slice(0, CLOSEST_SHOWN)
    .map((entry) => entry.name);
}

const quoted = (text: string) => `"${withInvisibleShown(text)}"`;
/** A clause made a sentence of its own. */
const sentence = (clause: string) => `${clause.charAt(0).toUpperCase()}${clause.slice(1)}.`;

/** "no agent is named "Berlin Suport" (did you mean "Berlin Support"?)": a clause, for a sentence or a plan's line. */
export function noAgentNamed(reference: string, closest: readonly string[]): string {
  const meant = closest.length ? ` (did you mean ${orList(closest.map(quoted))}?)` : '';
  return `no agent is named ${quoted(reference)}, and none has it as its id${meant}`;
}

/** "2 agents are named "Support" (agt_1 with 3 numbers; agt_2 with 0 numbers): give the id…": a clause. */
export function severalNamed(
  reference: string,
  agents: readonly { id: string; numbers?: readonly string[] }[],
): string {
  const each = agents.map((agent) =>
    agent.numbers ? `${agent.id} with ${counted(agent.numbers.length, 'number')}` : agent.id,
  );
  return `${agents.length} agents are named ${quoted(reference)} (${each.join('; ')}): give the id of the one you mean`;
}

function orList(items: string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : (items[0] ?? '');
}

export type AgentFound = Result<
  { found: 'one'; agent: Agent } | { found: 'several'; reference: string; agents: AgentChoice[] }
>;

/** One, or the several of that name with their numbers; else why none, with the names they may have meant. */
export async function findAgent(deps: OpsDeps, reference: string): Promise<AgentFound> {
  let agents: Agent[];
  try {
    agents = await deps.lists.agents.get({ fresh: true });
  } catch (error) {
    return providerFailure(error);
  }
  const match = matchAgent(agents, reference);
  if (match.found === 'one') return { ok: true, found: 'one', agent: match.agent };
  if (match.found === 'none') return noAgent(reference, match.closest);
  const records = await deps.store.routes.ofAgents(match.agents.map((agent) => agent.id));
  const choices = match.agents.map((agent) => ({ ...agent, numbers: records.get(agent.id)?.numbers ?? [] }));
  return { ok: true, found: 'several', reference, agents: choices };
}

/** Why a reference names no agent, as a failure: the names meant, and the listing that finds the rest. */
export function noAgent(reference: string, closest: readonly string[]): Failure {
  const clause = noAgentNamed(reference, closest);
  return fail(
    'not_found',
    `${sentence(clause)} /voice agents ${withInvisibleShown(reference)} lists the agents whose name contains it.`,
    { field: 'agent' },
  );
}

/** Or why not: none, or several (a caller that can offer a choice uses `findAgent` first). */
export function oneAgentIn<A extends Named>(agents: readonly A[], reference: string): Result<{ agent: A }> {
  const match = matchAgent(agents, reference);
  if (match.found === 'one') return { ok: true, agent: match.agent };
  if (match.found === 'none') return noAgent(reference, match.closest);
  return fail('conflict', sentence(severalNamed(reference, match.agents)), { field: 'agent' });
}

/** One agent found, or why a name cannot stand for one where nobody can be asked to choose (a workflow step). */
export function oneAgentOnly(found: AgentFound): Result<{ agent: Agent }> {
  if (!found.ok || found.found === 'one') return found;
  const clause = severalNamed(found.reference, found.agents);
  return fail('conflict', sentence(clause), { field: 'agent' });
}
