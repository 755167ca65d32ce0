// Routing as text: today's routing exported, and a desired routing read back as a plan. A plan with errors (a line
// it cannot take) cannot be applied.
import { counted } from '../counts.js';
import type { Agent } from '../provider/schemas.js';
import type { ChannelBinding } from '../settings-schema.js';
import { NO_TAGS, type Tags } from '../store/tags.js';
import { matchAgent, noAgentNamed, severalNamed } from './agent-names.js';
import { type PlanResult, planBatch } from './batches.js';
import { type AccountRead, readAccount } from './bulk-items.js';
import { scopeOf, withinScope } from './channel-scope.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import { KIND } from './kinds/index.js';
import { changeBetween } from './kinds/label-change.js';
import { withLabelsPart } from './labels-text.js';
import { parseRoutingText, ROUTING_TEXT_MAX_LINES, type RoutingLine, routingText } from './routing-text.js';
import { type Actor, fail, type Result } from './types.js';

/** A routing as text: today's, with how many numbers route nowhere, or one rebuilt as of a moment past. */
export type RoutingExport = {
  text: string;
  routed: number;
  /** The binding of the channel it was asked in: only the numbers it covers are in it. */
  scope?: ChannelBinding;
} & (
  | {
      /** Numbers that route nowhere: not in the text, since a line needs an agent. */
      unrouted: number;
    }
  | {
      /** The moment, said back: "2026-11-27 09:00 UTC". */
      asOf: string;
    }
);

/** Today's routing in the format a plan reads: every purchased number that routes to an agent, with its name. */
export async function exportRouting(deps: OpsDeps, at: Date, channelId?: string): Promise<Result<RoutingExport>> {
  try {
    const { numbers, agents } = await readAccount(deps.lists);
    const scope = await scopeOf(deps, channelId);
    const purchased = await withinScope(deps, scope, numbers, (entry) => entry.number);
    const [routed, tags] = await Promise.all([deps.store.routes.agentByNumber(), deps.store.tags.all()]);
    const names = new Map(agents.map((agent) => [agent.id, agent.name]));
    const routes = purchased.flatMap(({ number }) => {
      const agentId = routed.get(number);
      return agentId === undefined ? [] : [{ phoneNumber: number, agentId, agentName: names.get(agentId) }];
    });
    const unrouted = purchased.length - routes.length;
    const header =
      `Voice Ops routing, ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC: ${routes.length} routed, ` +
      `${unrouted} routing nowhere (not listed).\nOne NUMBER AGENT_ID a line (or an agent's "NAME" in quotes); an ` +
      'operator can paste an edited copy into /voice plan.';
    // Tags of numbers the account no longer holds (released elsewhere), or outside the channel's binding, are not part
    // of its routing.
    const listed = new Set(purchased.map(({ number }) => number));
    const held = new Map([...tags].filter(([subject]) => listed.has(subject)));
    const text = withLabelsPart(routingText(routes, header), held);
    return { ok: true, text, routed: routes.length, unrouted, ...(scope ? { scope } : {}) };
  } catch (error) {
    return providerFailure(error);
  }
}

/**
 * A line of a routing text as checked against the account: the agent it names and what it would do, or the labels and
 * owner it sets; or why not.
 */
export type CheckedLine = { line: number; text: string } & (
  | { ok: true; number: string; agentId: string; effect: 'route' | 're-route' | 'unchanged' }
  | ({ ok: true; number: string } & Tags)
  | { ok: false; error: string }
);

/** A routing text checked against the account: every line, how many are at fault, and the routes when none is. */
export interface CheckedText {
  lines: CheckedLine[];
  errors: number;
  routes: { number: string; agentId: string }[];
  /** Its labels part: each number listed there with its labels and owner as they are to be. */
  labels: ({ number: string } & Tags)[];
  /** The lists the text was checked against: its plan is made on them, not on a second reading. */
  read: AccountRead;
}

/** In one pass, unreadable lines and the account's errors together, so that a person fixes all in one round. */
export async function checkRoutingText(deps: OpsDeps, text: string): Promise<Result<CheckedText>> {
  const lines = await parseRoutingText(text);
  if (lines.length === 0) return fail('invalid', 'The text has no NUMBER AGENT_ID line: nothing to plan.');
  if (lines.length > ROUTING_TEXT_MAX_LINES) {
    return fail('invalid', `The text has ${lines.length} lines, and a plan holds at most ${ROUTING_TEXT_MAX_LINES}.`);
  }
  let read: AccountRead;
  try {
    read = await readAccount(deps.lists);
  } catch (error) {
    return providerFailure(error);
  }
  const owned = new Set(read.numbers.map((entry) => entry.number));
  const routed = await deps.store.routes.agentByNumber();
  // A number may have its route and its labels, once each.
  const firstLine = { routes: new Map<string, number>(), labels: new Map<string, number>() };
  const checked = lines.map((line): CheckedLine => {
    if (!line.ok) return line;
    const { line: at, text, number } = line;
    const part = 'agent' in line ? firstLine.routes : firstLine.labels;
    const refused = numberError(line, owned, part);
    part.set(number, part.get(number) ?? at);
    if (refused) return { line: at, text, ok: false, error: refused };
    if (!('agent' in line)) return line;
    const agent = lineAgent(line.agent, read.agents, routed);
    if (!agent.ok) return { line: at, text, ok: false, error: agent.error };
    const { agentId } = agent;
    const current = routed.get(number);
    return {
      line: at,
      text,
      ok: true,
      number,
      agentId,
      effect: current === agentId ? 'unchanged' : current ? 're-route' : 'route',
    };
  });
  const errors = checked.filter((line) => !line.ok).length;
  const routes = checked.flatMap((line) =>
    line.ok && 'agentId' in line ? [{ number: line.number, agentId: line.agentId }] : [],
  );
  const labels = checked.flatMap((line) =>
    line.ok && 'labels' in line ? [{ number: line.number, labels: line.labels, owner: line.owner }] : [],
  );
  return { ok: true, lines: checked, errors, routes, labels, read };
}

/**
 * The plans of a text checked with no error, made on the lists it was checked against: one of its routes, and one of
 * its labels part when it has one, each confirmed (and undone) on its own.
 */
export async function planCheckedText(deps: OpsDeps, actor: Actor, checked: CheckedText): Promise<PlanResult[]> {
  if (checked.errors) {
    return [
      fail(
        'invalid',
        `The text has ${counted(checked.errors, 'line')} at fault: nothing can be planned until each is right.`,
      ),
    ];
  }
  const { routes, labels, read } = checked;
  const plans: PlanResult[] = [];
  if (routes.length || !labels.length) plans.push(await planBatch(deps, actor, { kind: KIND.map, routes }, read));
  if (labels.length) {
    // Each number's labels and owner set as written: the plan holds what changes them from what they are now.
    const found = await deps.store.tags.of(labels.map((entry) => entry.number));
    const changes = labels.map(({ number, ...tags }) => ({
      number,
      ...changeBetween(found.get(number) ?? NO_TAGS, tags),
    }));
    plans.push(await planBatch(deps, actor, { kind: KIND.label, changes }, read));
  }
  return plans;
}

function numberError(
  line: Extract<RoutingLine, { ok: true }>,
  owned: Set<string>,
  firstLine: Map<string, number>,
): string | undefined {
  const earlier = firstLine.get(line.number);
  if (earlier !== undefined) return `${line.number} is listed twice (first on line ${earlier})`;
  if (!owned.has(line.number)) return `${line.number} is not one of your numbers`;
  return undefined;
}

/** The agent a line names, or why it names none: no agent of that name or id, or several of that name. */
function lineAgent(
  reference: string,
  agents: readonly Agent[],
  routed: ReadonlyMap<string, string>,
): { ok: true; agentId: string } | { ok: false; error: string } {
  const match = matchAgent(agents, reference);
  if (match.found === 'one') return { ok: true, agentId: match.agent.id };
  if (match.found === 'none') return { ok: false, error: noAgentNamed(reference, match.closest) };
  const numbersOf = (id: string) => [...routed].flatMap(([number, agentId]) => (agentId === id ? [number] : []));
  const choices = match.agents.map((agent) => ({ ...agent, numbers: numbersOf(agent.id) }));
  return { ok: false, error: severalNamed(reference, choices) };
}
