// The map form's type-ahead pickers: whatever the account's size, each answer is the first matches of what was typed,
// numbers that route nowhere first, from the provider lists kept for a minute (a keystroke must not read them again).
import type { Agent, PurchasedNumber } from '../provider/schemas.js';
import { eachInSlices } from '../slices.js';
import { scopeOf, withinScope } from './channel-scope.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import { type NumberSummary, summarize } from './numbers.js';
import type { Result } from './types.js';

/** Slack shows at most 100 options. */
export const PICKER_MAX = 100;

export interface NumberChoices {
  /** Numbers that route nowhere, then those that do, together at most `limit`. */
  unrouted: NumberSummary[];
  routed: NumberSummary[];
  /** How many of each match in all. */
  matching: { unrouted: number; routed: number };
}

/**
 * Numbers matching what was typed: its digits anywhere in the number (an area code, the last four), and its letters
 * in the name of the agent the number routes to.
 */
export async function numberChoices(
  deps: OpsDeps,
  typed: string,
  channelId?: string,
  limit = PICKER_MAX,
): Promise<Result<NumberChoices>> {
  const digits = typed.replace(/\D/g, '');
  const words = typed.replace(/[\d\s+().-]/g, '').toLowerCase();
  try {
    const [all, agents] = await Promise.all([deps.lists.numbers.get(), deps.lists.agents.get()]);
    const purchased = await withinScope(deps, await scopeOf(deps, channelId), all, (entry) => entry.number);
    const routes = await deps.store.routes.agentByNumber();
    const names = new Map(agents.map((agent) => [agent.id, agent.name]));
    const unrouted: PurchasedNumber[] = [];
    const routed: PurchasedNumber[] = [];
    await eachInSlices(purchased, (entry) => {
      if (digits && !entry.number.includes(digits)) return;
      const agentId = routes.get(entry.number);
      if (words && !(agentId && names.get(agentId)?.toLowerCase().includes(words))) return;
      (agentId ? routed : unrouted).push(entry);
    });
    // Only the numbers shown are summarized: the rest are counted.
    const shownUnrouted = unrouted.slice(0, limit);
    const shownRouted = routed.slice(0, limit - shownUnrouted.length);
    return {
      ok: true,
      unrouted: shownUnrouted.map((entry) => summarize(entry, routes, names)),
      routed: shownRouted.map((entry) => summarize(entry, routes, names)),
      matching: { unrouted: unrouted.length, routed: routed.length },
    };
  } catch (error) {
    return providerFailure(error);
  }
}

export interface AgentChoices {
  agents: Agent[];
  matching: number;
}

/** Agents whose name or id contains what was typed, whatever its case. */
export async function agentChoices(
  deps: OpsDeps,
  typed: string,
  channelId?: string,
  limit = PICKER_MAX,
): Promise<Result<AgentChoices>> {
  const text = typed.trim().toLowerCase();
  try {
    const scope = await scopeOf(deps, channelId);
    const agents = await withinScope(deps, scope, await deps.lists.agents.get(), (agent) => agent.id);
    const matching = agents.filter(
      (agent) => !text || agent.name.toLowerCase().includes(text) || agent.id.toLowerCase().includes(text),
    );
    return { ok: true, agents: matching.slice(0, limit), matching: matching.length };
  } catch (error) {
    return providerFailure(error);
  }
}

export interface MapFormData {
  numbers: number;
  agents: number;
  /** The number the form was opened for, wherever it stands in the list; absent when it is not one of ours. */
  initial?: NumberSummary;
  /** The agent the form was opened for; absent when there is no such agent (any more). */
  initialAgent?: { id: string; name: string };
}

/** What the map form needs before it opens: whether there is anything to map, and the number and agent asked for. */
export async function mapFormData(
  deps: OpsDeps,
  asked: { number?: string; agentId?: string } = {},
): Promise<Result<MapFormData>> {
  const initialNumber = asked.number;
  try {
    const [purchased, kept] = await Promise.all([deps.lists.numbers.get(), deps.lists.agents.get()]);
    const found = initialNumber === undefined ? undefined : purchased.find((entry) => entry.number === initialNumber);
    // An agent just created (on another replica, say) may be newer than the list kept here: read it afresh first.
    const missing = asked.agentId !== undefined && !kept.some((candidate) => candidate.id === asked.agentId);
    const agents = missing ? await deps.lists.agents.get({ fresh: true }) : kept;
    const agent = agents.find((candidate) => candidate.id === asked.agentId);
    const route = found && (await deps.store.routes.forNumber(found.number));
    const routes = new Map(found && route ? [[found.number, route.agentId]] : []);
    const names = new Map(agents.map((agent) => [agent.id, agent.name]));
    return {
      ok: true,
      numbers: purchased.length,
      agents: agents.length,
      initial: found && summarize(found, routes, names),
      ...(agent ? { initialAgent: { id: agent.id, name: agent.name } } : {}),
    };
  } catch (error) {
    return providerFailure(error);
  }
}
