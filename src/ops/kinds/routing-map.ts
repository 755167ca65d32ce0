// Routing a number to an agent: confirmed first when it takes the number from another agent; the number and the
// agent are locked meanwhile. Routing cannot be read back, so a lost answer is settled by sending the map again.
// In bulk: every number a filter picks routed to one agent, or each number to its own (a routing text).
import { z } from 'zod';
import { count, counted } from '../../counts.js';
import { ProviderError, type ProviderErrorKind } from '../../provider/errors.js';
import { EXPECTED_STATUS, type PurchasedNumber, resourceId } from '../../provider/schemas.js';
import { oneAgentIn } from '../agent-names.js';
import { type AccountRead, MAX_BATCH_ITEMS, named, type Planned, type PlannedItem, pick } from '../bulk-items.js';
import type { OpsDeps } from '../deps.js';
import { providerFailure, unexpectedStatus } from '../failures.js';
import { numberFilter } from '../number-filter.js';
import { WARNING } from '../phrase.js';
import { regionOf } from '../regions.js';
import { fail, type Result } from '../types.js';
import { validate } from '../validate.js';
import { visible } from '../visible.js';
import type { Verified, Work } from '../work.js';
import type { BulkForm, ChangeKind } from './kind.js';
import { agentRef, namedAgent, noLongerOurs } from './refs.js';

const NAME = 'routing.map';

const mapping = z.object({
  kind: z.literal(NAME),
  phoneNumber: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  previousAgent: agentRef.optional(),
});
export type Mapping = z.infer<typeof mapping>;

const routed = z.object({
  action: z.literal(NAME),
  number: z.string(),
  agent: namedAgent,
  previousAgent: agentRef.optional(),
});
type Routed = z.infer<typeof routed>;

// The names as they were, so that the log names an agent renamed or deleted since.
const auditParams = (change: Mapping) => ({
  agentId: change.agentId,
  agentName: change.agentName,
  previousAgentId: change.previousAgent?.id,
  previousAgentName: change.previousAgent?.name,
});

function mapWork(change: Mapping, by: string): Work {
  return {
    action: NAME,
    target: change.phoneNumber,
    params: auditParams(change),
    intent: change,
    lockKeys: [`number:${change.phoneNumber}`, `agent:${change.agentId}`],
    run: async (provider) => {
      const routed = await provider.mapNumber({ phone_number: change.phoneNumber, agent_id: change.agentId });
      if (routed.status !== EXPECTED_STATUS.routeConnected) {
        return unexpectedStatus('the mapping', EXPECTED_STATUS.routeConnected, routed.status);
      }
      return {
        ok: true,
        keep: (deps) =>
          deps.store.routes.set({ phoneNumber: change.phoneNumber, agentId: change.agentId, updatedBy: by }),
        change: {
          action: NAME,
          number: change.phoneNumber,
          agent: { id: change.agentId, name: change.agentName },
          previousAgent: change.previousAgent,
        },
      };
    },
  };
}

/** Failures of a map sent again that say nothing of whether it happened. */
const NOT_KNOWN = new Set<ProviderErrorKind>(['timeout', 'network', 'unavailable', 'rate_limited', 'withheld']);

/** Routing cannot be read, but mapping a number to the same agent twice has one effect: the map is sent again. */
async function remap(deps: OpsDeps, change: Mapping, by: string): Promise<Verified> {
  try {
    const routed = await deps.provider.mapNumber({ phone_number: change.phoneNumber, agent_id: change.agentId });
    if (routed.status !== EXPECTED_STATUS.routeConnected) {
      return fail('provider', `${change.phoneNumber} was not routed: the provider answered "${routed.status}".`);
    }
  } catch (error) {
    // The provider is not answering, lost the answer again, or this replica may not send it now: nothing is known,
    // try again on the next pass.
    if (error instanceof ProviderError && (error.mayStillLand || NOT_KNOWN.has(error.kind))) {
      throw error;
    }
    const failure = providerFailure(error);
    return fail(failure.reason, `${change.phoneNumber} was not routed to ${change.agentName}: ${failure.message}`);
  }
  await deps.store.routes.set({ phoneNumber: change.phoneNumber, agentId: change.agentId, updatedBy: by });
  const agent = { id: change.agentId, name: change.agentName };
  return {
    ok: true,
    change: { action: NAME, number: change.phoneNumber, agent, previousAgent: change.previousAgent },
  };
}

const agentOf = (change: Mapping) => ({ id: change.agentId, name: change.agentName });

export const routingMap: ChangeKind<Mapping, Routed> = {
  name: NAME,
  record: mapping,
  announced: routed,
  role: 'operator',
  permits: 'map numbers to agents',
  spends: false,
  confirm: {
    verb: 'Re-route',
    title: 'Confirm re-route',
    effect: (change) => [
      'Route ',
      { number: change.phoneNumber },
      ' to ',
      { agent: agentOf(change) },
      '.',
      ...(change.previousAgent
        ? [' It now routes to ', { agentName: change.previousAgent }, ': callers will reach the new agent instead.']
        : []),
    ],
    destroys: (change) => change.previousAgent !== undefined,
    kept: (change) => [{ number: change.phoneNumber }, ' was not routed to ', { agent: agentOf(change) }, '.'],
    gerund: 'mapping',
  },
  target: (change) => change.phoneNumber,
  subject: (change) => change.number,
  auditParams,
  routesTo: agentOf,
  takesFromAgent: (change) => change.previousAgent !== undefined,
  work: (_deps, change, by) => mapWork(change, by),
  verify: (deps, change, _reads, by) => remap(deps, change, by),
  did: (change) => {
    const number = { number: change.number, region: regionOf(change.number) };
    if (!change.previousAgent) return ['routed ', number, ' to ', { agent: change.agent }];
    return ['re-routed ', number, ' from ', { agent: change.previousAgent }, ' to ', { agent: change.agent }];
  },
  lookUp: (change) => `/voice numbers ${change.number}`,
  happened: ({ params }, names) => {
    const named = (id: unknown, kept: unknown) =>
      typeof id === 'string'
        ? { agent: { id, name: names.get(id) ?? (typeof kept === 'string' ? kept : undefined) } }
        : 'an agent';
    const to = named(params.agentId, params.agentName);
    if (typeof params.previousAgentId !== 'string') return ['routed to ', to];
    return ['re-routed from ', named(params.previousAgentId, params.previousAgentName), ' to ', to];
  },
  routeEffect: ({ target, params }) =>
    typeof params.agentId === 'string' ? { number: target, agentId: params.agentId } : undefined,
  undo: {
    // Routed back while the number is the account's, routes where the change left it, and the agent before exists.
    inverse: async ({ target, params }, scene) => {
      const before = params.previousAgentId;
      const unroute = 'the provider cannot unroute a number: map it to another agent or release it.';
      if (typeof before !== 'string') return { cannot: `${target} routed to no agent before, and ${unroute}` };
      const { numbers, agents, routed } = await scene.account();
      if (!numbers.has(target)) return { cannot: noLongerOurs(target) };
      if (!scene.includeChanged && routed.get(target) !== params.agentId)
        return { cannot: `${target} was changed again since: left as it is.`, changedSince: true };
      const agentName = agents.get(before);
      if (agentName === undefined)
        return { cannot: `${target} routed to agent ${before} before, which no longer exists.` };
      return { change: { kind: NAME, phoneNumber: target, agentId: before, agentName } };
    },
    withheld: (change) =>
      change.previousAgent === undefined
        ? 'It routed to no agent before, and the provider cannot unroute a number: to walk it back, map it to ' +
          'another agent or release it.'
        : undefined,
  },
  // A launch routes several numbers to one agent: the next one is a click away, its agent picked already.
  nextAgent: (change) => change.agent.id,
};

/** One agent for every number a filter picks (or the numbers named), or each number its own agent (a routing text). */
const mapMany = z.object({
  kind: z.literal(NAME),
  agentId: z.string().optional(),
  filter: numberFilter.optional(),
  numbers: named,
  routes: z
    .array(z.object({ number: z.string(), agentId: z.string() }))
    .max(MAX_BATCH_ITEMS)
    .optional(),
  /** The change this plan undoes, when it is an Undo: its correlation id, which its audit row names. */
  undoes: z.string().optional(),
});
type MapMany = z.infer<typeof mapMany>;

async function planMaps(deps: OpsDeps, request: MapMany, read?: AccountRead): Promise<Result<Planned>> {
  const agents = read?.agents ?? (await deps.lists.agents.get({ fresh: true }));
  const names = new Map(agents.map((entry) => [entry.id, entry.name]));
  const routed = await deps.store.routes.agentByNumber();
  const item = (number: string, agent: { id: string; name: string }): PlannedItem => {
    const current = routed.get(number);
    const moved = current !== undefined && current !== agent.id;
    const change: Mapping = {
      kind: NAME,
      phoneNumber: number,
      agentId: agent.id,
      agentName: agent.name,
      ...(moved ? { previousAgent: { id: current, name: names.get(current) } } : {}),
    };
    return { change, unchanged: current === agent.id };
  };
  if (request.routes) {
    const numbers = read?.numbers ?? (await deps.lists.numbers.get({ fresh: true }));
    return planRoutes(numbers, request.routes, names, item);
  }
  const agentId = validate(resourceId, request.agentId ?? '');
  if (!agentId.ok) return { ...agentId, message: `Agent id ${agentId.message}` };
  const found = oneAgentIn(agents, agentId.value);
  if (!found.ok) return found;
  const picked = await pick(deps, routed, request);
  if (!picked.ok) return picked;
  const agent = { id: found.agent.id, name: found.agent.name };
  return { ok: true, agent, items: picked.picked.map(({ number }) => item(number, agent)) };
}

/** Each number routed to its own agent, as a routing text asks: every number must be the account's, every agent known. */
function planRoutes(
  numbers: PurchasedNumber[],
  routes: { number: string; agentId: string }[],
  names: Map<string, string>,
  item: (number: string, agent: { id: string; name: string }) => PlannedItem,
): Result<Planned> {
  const owned = new Set(numbers.map((entry) => entry.number));
  const items: PlannedItem[] = [];
  for (const route of routes) {
    const name = names.get(route.agentId);
    if (!owned.has(route.number))
      return fail('not_found', `${visible(route.number)} is no longer one of your numbers.`);
    if (name === undefined) return fail('not_found', `No agent has the id ${visible(route.agentId)} any more.`);
    items.push(item(route.number, { id: route.agentId, name }));
  }
  return { ok: true, items };
}

export const routingMapBulk: BulkForm<typeof mapMany, Mapping> = {
  request: mapMany,
  audit: 'batch.map',
  plan: planMaps,
  again: (request, numbers) => {
    if (!request.routes) return { ...request, numbers };
    const kept = new Set(numbers);
    return { ...request, routes: request.routes.filter((route) => kept.has(route.number)) };
  },
  gather: (changes) => ({
    kind: NAME,
    routes: changes.map((change) => ({ number: change.phoneNumber, agentId: change.agentId })),
  }),
  words: {
    doing: 'Routing',
    done: 'Routed',
    apply: 'Apply to',
    verb: 'route',
    items: 'map of',
    plan: (_request, totals) => [
      'route ',
      ...(totals.agent ? ['to ', { agent: totals.agent }] : ['each number as its line says']),
      `. ${counted(totals.change, 'number')} to route`,
      ...(totals.taken
        ? [' · ', WARNING, `${count(totals.taken)} re-routed from another agent: their callers will reach this one`]
        : []),
      ...(totals.unchanged ? [` · ${count(totals.unchanged)} already routed there (unchanged)`] : []),
    ],
    effect: (change, unchanged) => {
      if (unchanged) return ['already routes there, unchanged'];
      const to = ['to ', { agentName: agentOf(change) }] as const;
      return change.previousAgent
        ? ['re-route from ', { agentName: change.previousAgent }, ' ', ...to]
        : ['route ', ...to];
    },
    taken: 'move from the agent their callers reach now',
    destroys: false,
  },
};
