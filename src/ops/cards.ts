// One number or one agent, looked up by what identifies it: a card with its route(s) and its latest audit changes.
import { phoneNumber } from '../provider/schemas.js';
import { NO_TAGS, type Tags } from '../store/tags.js';
import { type AgentFilter, type AgentSummary, type AgentsPage, listAgents } from './agents.js';
import { type AuditChange, auditPage } from './audit.js';
import { cardOutsideScope } from './channel-scope.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import { readsTags } from './number-filter.js';
import { type NumberSummary, summarize, withCapabilities } from './numbers.js';
import type { ListedIn, PageRequest } from './pages.js';
import { refuseImpossible } from './routing-text.js';
import { fail, type Result } from './types.js';
import { validate } from './validate.js';
import { named } from './visible.js';

/** Latest changes shown on a card. */
export const CARD_HISTORY = 5;

export interface NumberCard {
  number: NumberSummary;
  history: AuditChange[];
  tags: Tags;
}

const tagsOf = async (deps: OpsDeps, subject: string): Promise<Tags> =>
  (await deps.store.tags.of([subject])).get(subject) ?? NO_TAGS;

/**
 * `/voice numbers +NUMBER`: the number as the provider lists it now, its route, and what happened to it lately; in a
 * bound channel, only a number within its binding.
 */
export async function showNumber(deps: OpsDeps, number: string, where: ListedIn = {}): Promise<Result<NumberCard>> {
  const checked = validate(phoneNumber, number);
  if (!checked.ok) return { ...checked, field: 'number', message: `${named('Number', number)} ${checked.message}` };
  const impossible = await refuseImpossible(checked.value, 'show');
  if (impossible) return impossible;
  try {
    const [purchased, agents] = await Promise.all([
      deps.lists.numbers.get({ fresh: true }),
      deps.lists.agents.get({ fresh: true }),
    ]);
    const found = purchased.find((entry) => entry.number === checked.value);
    if (!found) {
      const digits = checked.value.slice(1);
      return fail(
        'not_found',
        `${checked.value} is not one of your numbers. /voice numbers ${digits} finds numbers containing those digits.`,
      );
    }
    const outside = await cardOutsideScope(deps, where.channelId, found.number);
    if (outside) return outside;
    const route = await deps.store.routes.forNumber(found.number);
    const routes = new Map(route ? [[found.number, route.agentId]] : []);
    const names = new Map(agents.map((agent) => [agent.id, agent.name]));
    const history = await auditPage(deps, { filter: { target: found.number }, page: 1, size: CARD_HISTORY });
    const [number] = await withCapabilities(deps, [summarize(found, routes, names)]);
    if (!number) throw new Error('a summary of one number is one number');
    return { ok: true, number, history: history.items, tags: await tagsOf(deps, found.number) };
  } catch (error) {
    return providerFailure(error);
  }
}

export interface AgentCard {
  agent: AgentSummary;
  history: AuditChange[];
  tags: Tags;
}

export type AgentLookup = Result<{ kind: 'card'; card: AgentCard } | { kind: 'page'; page: AgentsPage }>;

/**
 * `/voice agents TEXT`: the agent whose id it is, as a card with its numbers and latest changes; otherwise a page of
 * the agents whose name contains it.
 */
export async function findAgents(
  deps: OpsDeps,
  request: PageRequest & ListedIn & { filter: AgentFilter; fresh?: boolean },
): Promise<AgentLookup> {
  const text = request.filter.text;
  // A filter by labels or owner asks for a list, even of one agent.
  const asCard = text !== undefined && !readsTags(request.filter);
  if (asCard) {
    try {
      const agent = (await deps.lists.agents.get(request)).find((candidate) => candidate.id === text);
      if (agent) {
        const outside = await cardOutsideScope(deps, request.channelId, agent.id);
        if (outside) return outside;
        const records = (await deps.store.routes.ofAgents([agent.id])).get(agent.id);
        const history = await auditPage(deps, { filter: { agentId: agent.id }, page: 1, size: CARD_HISTORY });
        const card = { ...agent, language: records?.language, numbers: records?.numbers ?? [] };
        const tags = await tagsOf(deps, agent.id);
        return { ok: true, kind: 'card', card: { agent: card, history: history.items, tags } };
      }
    } catch (error) {
      return providerFailure(error);
    }
  }
  // After a text that named no agent, the list was just read (afresh, if asked): the page reuses it.
  const listed = await listAgents(deps, { ...request, fresh: !asCard && request.fresh });
  return listed.ok ? { ok: true, kind: 'page', page: listed.page } : listed;
}
