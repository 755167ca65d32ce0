// Changes made outside Voice Ops (the provider's dashboard, its API): the provider's numbers and agents are read
// and compared with the last read. The first read is the baseline, not news. Every difference the app did not make
// is audited once (source `provider`), routing records it invalidates are dropped and audited, and all of them are
// announced in one message.
import { newCorrelationId, type OpsDeps, record } from '../ops/context.js';
import type { Change } from '../ops/notify.js';
import type { Actor } from '../ops/types.js';
import type { AuditAction } from '../store/audit.js';
import type { ProviderSnapshot, ProviderState } from '../store/provider-snapshot.js';
import type { RouteRecord } from '../store/routes.js';

const OUTSIDE: Actor = { userId: 'provider', userName: 'outside Voice Ops', source: 'provider' };

export interface DriftDeps extends OpsDeps {
  snapshot: ProviderSnapshot;
}

/** Reads the provider, records and announces what changed outside the app since the last read; returns those changes. */
export async function detectDrift(deps: DriftDeps, now: () => Date): Promise<Change[]> {
  const readAt = now();
  const [numbers, agents] = await Promise.all([deps.provider.listPurchasedNumbers(), deps.provider.listAgents()]);
  const current: ProviderState = {
    numbers: new Map(numbers.map((entry) => [entry.number, entry.id])),
    agents: new Map(agents.map((agent) => [agent.id, agent.name])),
  };
  const since = deps.snapshot.takenAt();
  if (since === undefined) {
    deps.snapshot.replace(current, readAt);
    return [];
  }
  const before = deps.snapshot.read();
  // A target whose change is under way is the intent's business: it is compared again on the next pass.
  const inFlight = new Set(deps.intents.openedBefore(readAt).flatMap((intent) => targetsOf(intent.change)));
  const outside = differences(before, current).filter(
    ({ action, target }) => !inFlight.has(target) && !deps.audit.succeededSince(action, target, since),
  );
  deps.atomically(() => {
    for (const found of outside) recordOutside(deps, found);
    deps.snapshot.replace(keepInFlight(current, before, inFlight), readAt);
  });
  const changes = outside.map((found) => found.change);
  if (changes.length > 0) {
    deps.logger.info({ changes: changes.length }, 'noticed changes made outside Voice Ops');
    await deps.announcer.announceOutside(changes).catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'could not announce changes made outside Voice Ops');
    });
  }
  return changes;
}

interface Difference {
  action: AuditAction;
  target: string;
  change: Change;
}

function differences(before: ProviderState, after: ProviderState): Difference[] {
  const found: Difference[] = [];
  for (const [number, id] of after.numbers) {
    if (!before.numbers.has(number)) {
      found.push({ action: 'number.buy', target: number, change: { action: 'number.buy', number: { id, number } } });
    }
  }
  for (const [number, id] of before.numbers) {
    if (!after.numbers.has(number)) {
      const change: Change = { action: 'number.release', number: { id, number } };
      found.push({ action: 'number.release', target: number, change });
    }
  }
  for (const [id, name] of after.agents) {
    if (!before.agents.has(id)) {
      // The agent list carries no language: the announcement says so rather than guess.
      const change: Change = { action: 'agent.create', agent: { id, name, language: 'language not listed' } };
      found.push({ action: 'agent.create', target: id, change });
    }
  }
  for (const [id, name] of before.agents) {
    if (!after.agents.has(id)) {
      found.push({ action: 'agent.delete', target: id, change: { action: 'agent.delete', agent: { id, name } } });
    }
  }
  return found;
}

/** One audit row per outside change, and the routing records it leaves pointing nowhere dropped, each audited. */
function recordOutside(deps: DriftDeps, found: Difference): void {
  const correlationId = newCorrelationId();
  record(deps, OUTSIDE, correlationId, { action: found.action, outcome: 'succeeded', target: found.target });
  for (const route of routesEndedBy(deps, found)) {
    deps.routes.removeNumber(route.phoneNumber);
    record(deps, OUTSIDE, correlationId, {
      action: 'routing.drop',
      outcome: 'succeeded',
      target: route.phoneNumber,
      params: { agentId: route.agentId, because: found.action },
    });
  }
}

/** A released number's route, or every route to a deleted agent: the provider no longer has them. */
function routesEndedBy(deps: DriftDeps, found: Difference): RouteRecord[] {
  if (found.action === 'agent.delete') return deps.routes.forAgent(found.target);
  const route = found.action === 'number.release' ? deps.routes.forNumber(found.target) : undefined;
  return route ? [route] : [];
}

function targetsOf(change: Record<string, unknown>): string[] {
  return ['number', 'phoneNumber', 'agentId'].flatMap((key) => (typeof change[key] === 'string' ? [change[key]] : []));
}

/** The state to remember: what was read, except targets under way, which keep their previous state. */
function keepInFlight(current: ProviderState, before: ProviderState, inFlight: Set<string>): ProviderState {
  const kept: ProviderState = { numbers: new Map(current.numbers), agents: new Map(current.agents) };
  for (const target of inFlight) {
    for (const [mine, theirs] of [
      [kept.numbers, before.numbers],
      [kept.agents, before.agents],
    ] as const) {
      const previous = theirs.get(target);
      if (previous === undefined) mine.delete(target);
      else mine.set(target, previous);
    }
  }
  return kept;
}
