import { type AvailableNumber, type PurchasedNumber, phoneNumber, resourceId } from '../provider/schemas.js';
import { filterInSlices } from '../slices.js';
import type { Tags } from '../store/tags.js';
import { requestConfirmation } from './ask-confirmation.js';
import type { ConfirmationPrompt } from './changes.js';
import { inScope, scopeOf } from './channel-scope.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import { KIND } from './kinds/index.js';
import type { ReadOptions } from './lists.js';
import { matches, type NumberFilter, readsTags, refuseFilter } from './number-filter.js';
import { type ListedIn, type Page, type PageRequest, pageOf } from './pages.js';
import { mayRequest } from './policies.js';
import { regionOf } from './regions.js';
import { refuseImpossible } from './routing-text.js';
import { forSaleIn, nearestForSale } from './search.js';
import { OFFERED_FOR_MS } from './seen-numbers.js';
import { type Actor, type Failure, fail, type Result } from './types.js';
import { validate } from './validate.js';
import { named, visible } from './visible.js';

export interface NumberSummary extends PurchasedNumber {
  /** Told from the number's country calling code; undefined when the region table does not know it. */
  region?: string;
  /** As learnt when the app bought it; undefined for a number bought elsewhere. */
  capabilities?: string[];
  /** The agent the number routes to, from the app's own routing records. */
  agentId?: string;
  /** That agent's name, when the provider still lists it. */
  agentName?: string;
  /** Its labels and owning team, where it has any. */
  tags?: Tags;
}

export type NumbersPage = Page<NumberSummary, NumberFilter>;

/** A page of purchased numbers, in the provider's (purchase) order, with each number's route. */
export async function listNumbers(
  deps: OpsDeps,
  request: PageRequest & ReadOptions & ListedIn & { filter?: NumberFilter },
): Promise<Result<{ page: NumbersPage }>> {
  const filter = request.filter ?? {};
  const refused = refuseFilter(filter);
  if (refused) return refused;
  try {
    const [purchased, agents] = await Promise.all([deps.lists.numbers.get(request), deps.lists.agents.get(request)]);
    const routed = await deps.store.routes.agentByNumber();
    const scope = await scopeOf(deps, request.channelId);
    const tags = readsTags(filter) || scope ? await deps.store.tags.all() : new Map();
    const matching = await filterInSlices(
      purchased,
      (entry) => inScope(scope, tags.get(entry.number)) && matches(filter, entry, routed.get(entry.number), tags),
    );
    const page = { ...pageOf(matching, request, filter), ...(scope ? { scope } : {}) };
    const names = new Map(agents.map((agent) => [agent.id, agent.name]));
    const summaries = page.items.map((entry) => summarize(entry, routed, names));
    const [items, tagged] = await Promise.all([
      withCapabilities(deps, summaries),
      deps.store.tags.of(summaries.map((entry) => entry.number)),
    ]);
    return { ok: true, page: { ...page, items: items.map((item) => ({ ...item, tags: tagged.get(item.number) })) } };
  } catch (error) {
    return providerFailure(error);
  }
}

/** Adds what the app learnt of each number's capabilities: one query for the page. */
export async function withCapabilities(deps: OpsDeps, numbers: NumberSummary[]): Promise<NumberSummary[]> {
  const known = await deps.store.facts.capabilities(numbers.map((entry) => entry.number));
  return numbers.map((entry) => ({ ...entry, capabilities: known.get(entry.number) }));
}

export function summarize(
  entry: PurchasedNumber,
  routed: Map<string, string>,
  names: Map<string, string>,
): NumberSummary {
  const agentId = routed.get(entry.number);
  return {
    ...entry,
    region: regionOf(entry.number),
    agentId,
    agentName: agentId === undefined ? undefined : names.get(agentId),
  };
}

/** Why a number cannot be bought: it is not for sale, and these are the nearest that are. */
function notForSale(number: string, entries: AvailableNumber[]): Failure {
  return fail('not_found', `${number} is not for sale.`, {
    code: 'not_for_sale',
    instead: nearestForSale(number, entries),
  });
}

/**
 * Refused only when a search read the whole region without it; when the region cannot be read whole, the buy goes
 * ahead to its confirmation (the provider refuses a buy of what it does not sell).
 */
async function offered(deps: OpsDeps, number: string): Promise<{ capabilities?: string[] } | Failure> {
  const known = deps.seen.offeredSince(number, deps.now().getTime() - OFFERED_FOR_MS);
  if (known) return { capabilities: known };
  const inRegion = regionOf(number);
  if (!inRegion) return {};
  try {
    const forSale = await forSaleIn(deps.provider, inRegion, number);
    deps.seen.remember(forSale.entries, deps.now().getTime());
    const found = forSale.entries.find((entry) => entry.number === number);
    if (found) return { capabilities: found.capabilities };
    return forSale.complete ? notForSale(number, forSale.entries) : {};
  } catch (error) {
    deps.logger.info({ err: error, number }, 'could not tell whether a number to buy is for sale');
    return {};
  }
}

export async function requestBuy(
  deps: OpsDeps,
  actor: Actor,
  number: string,
  correlationId: string,
): Promise<Result<{ prompt: ConfirmationPrompt }>> {
  const denied = await mayRequest(deps, actor, { action: KIND.buy, target: number, correlationId });
  if (denied) return denied;
  const checked = validate(phoneNumber, number);
  if (!checked.ok) return { ...checked, field: 'number', message: `${named('Number', number)} ${checked.message}` };
  // A number no country has cannot be bought: refused before any confirmation, as a plan refuses it.
  const impossible = await refuseImpossible(checked.value, 'buy');
  if (impossible) return impossible;
  let purchased: PurchasedNumber[];
  try {
    purchased = await deps.lists.numbers.get({ fresh: true });
  } catch (error) {
    return providerFailure(error);
  }
  if (purchased.some((entry) => entry.number === checked.value)) {
    return fail('conflict', `${visible(checked.value)} is already one of your numbers: nothing to buy.`);
  }
  const forSale = await offered(deps, checked.value);
  if ('ok' in forSale) return forSale;
  return requestConfirmation(deps, actor, correlationId, {
    kind: KIND.buy,
    number: checked.value,
    capabilities: forSale.capabilities,
  });
}

/** Finds a purchased number by its E.164 form or by its provider id. */
export async function requestRelease(
  deps: OpsDeps,
  actor: Actor,
  numberOrId: string,
  correlationId: string,
): Promise<Result<{ prompt: ConfirmationPrompt }>> {
  const denied = await mayRequest(deps, actor, {
    action: KIND.release,
    target: numberOrId,
    correlationId,
  });
  if (denied) return denied;
  const checked = validate(resourceId, numberOrId);
  if (!checked.ok)
    return { ...checked, field: 'number', message: `${named('Number or id', numberOrId)} ${checked.message}` };
  const impossible = checked.value.startsWith('+') ? await refuseImpossible(checked.value, 'release') : undefined;
  if (impossible) return impossible;
  let found: PurchasedNumber | undefined;
  try {
    const purchased = await deps.lists.numbers.get({ fresh: true });
    found = purchased.find((entry) => entry.number === checked.value || entry.id === checked.value);
  } catch (error) {
    return providerFailure(error);
  }
  if (!found) {
    return fail('not_found', `${visible(checked.value)} is not one of your numbers: /voice numbers lists them.`);
  }
  const agentId = (await deps.store.routes.forNumber(found.number))?.agentId;
  const routedAgent = agentId ? { id: agentId, name: await agentName(deps, agentId) } : undefined;
  return requestConfirmation(deps, actor, correlationId, {
    kind: KIND.release,
    numberId: found.id,
    number: found.number,
    routedAgent,
  });
}

/** An agent's name for a warning, when the provider can tell it; the warning stands without it. */
export async function agentName(deps: OpsDeps, agentId: string): Promise<string | undefined> {
  try {
    return (await deps.lists.agents.get()).find((agent) => agent.id === agentId)?.name;
  } catch {
    return undefined;
  }
}
