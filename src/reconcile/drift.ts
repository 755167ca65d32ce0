// Changes made outside Voice Ops (the provider's dashboard, its API): the provider's numbers and agents are read
// and compared with the last read. The first read is the baseline, not news. Every difference the app did not make
// is audited once (source `provider`), routing records it invalidates are dropped and audited, and all of them are
// announced in one message (in a subscribed channel, those its filter picks).

import {
  type Actor,
  announceParts,
  atomically,
  type Change,
  keepForDigests,
  newCorrelationId,
  type OpsDeps,
  outsideKinds,
  ROUTE_DROPPED,
  record,
  taggedNow,
} from '../ops/api.js';
import { type AuditAction, CHAIN_LOCK } from '../store/audit.js';
import type { ProviderState } from '../store/provider-snapshot.js';
import type { Tags } from '../store/tags.js';

const OUTSIDE: Actor = { userId: 'provider', userName: 'outside Voice Ops', source: 'provider' };

/** Reads the provider, records and announces what changed outside the app since the last read; returns those changes. */
export async function detectDrift(deps: OpsDeps, now: () => Date): Promise<Change[]> {
  const readAt = now();
  const [numbers, agents] = await Promise.all([deps.provider.listPurchasedNumbers(), deps.provider.listAgents()]);
  const current: ProviderState = {
    numbers: new Map(numbers.map((entry) => [entry.number, entry.id])),
    agents: new Map(agents.map((agent) => [agent.id, agent.name])),
  };
  // The comparison and its records are one transaction under one lock: should two replicas ever pass at once, the
  // second compares with the first's snapshot (or finds it newer than its own read and stops), so nothing is
  // audited or announced twice. It also holds the audit chain's lock: every change stamped before the read has then
  // been committed, so none is taken for one made outside.
  const outside = await atomically(deps, async (deps): Promise<{ found: Difference[]; tagged: Tags[] }> => {
    await deps.store.lock('drift');
    await deps.store.lock(CHAIN_LOCK);
    const since = await deps.store.snapshot.takenAt();
    if (since === undefined || since >= readAt.toISOString()) {
      if (since === undefined) await deps.store.snapshot.replace(current, readAt);
      return { found: [], tagged: [] };
    }
    // What the provider should hold: the last read, with the changes the app made since then. A target a change was
    // under way on around the read is left to that change: compared again on the next pass.
    const expected = withChangesMade(
      await deps.store.snapshot.read(),
      await deps.store.audit.changesMade(since, readAt.toISOString()),
    );
    const touched = await deps.store.intents.touchedSince(readAt);
    const underWay = new Set(touched.flatMap((intent) => targetsOf(intent.change)));
    const found = differences(expected, current).filter(({ target }) => !underWay.has(target));
    // Read before what went forgets its tags, for where each change is announced.
    const tagged = await taggedNow(
      deps,
      found.map(({ target }) => target),
    );
    for (const difference of found) await recordOutside(deps, difference);
    await dropRoutesToNothing(deps, current, underWay);
    await deps.store.snapshot.replace(keepUnderWay(current, expected, underWay), readAt);
    return { found, tagged };
  });
  const { found: outsideFound, tagged } = outside;
  const changes = outsideFound.map((found) => found.change);
  if (changes.length > 0) {
    deps.lists.invalidate();
    deps.logger.info({ changes: changes.length }, 'noticed changes made outside Voice Ops');
    const eachTagged = tagged.map((tags) => [tags]);
    for (const [index, change] of changes.entries()) {
      await keepForDigests(deps, 'outside', eachTagged.slice(index, index + 1), () => ({ outside: change }));
    }
    await announceParts(deps, 'outside', changes, eachTagged, (some, where) =>
      deps.announcer.announceOutside(some, where),
    ).catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'could not announce changes made outside Voice Ops');
    });
  }
  return changes;
}

/** The last read, moved forward by the app's own changes (ids and names are not needed to compare: keys are). */
function withChangesMade(state: ProviderState, made: { action: AuditAction; target: string }[]): ProviderState {
  const next: ProviderState = { numbers: new Map(state.numbers), agents: new Map(state.agents) };
  const shows = new Map(outsideKinds().map(({ kind, outside }) => [kind, outside]));
  for (const { action, target } of made) {
    const outside = shows.get(action);
    if (!outside) continue;
    const list = next[outside.list];
    if (outside.adds) list.set(target, list.get(target) ?? '');
    else list.delete(target);
  }
  return next;
}

/** A change made outside, its target (the entry of the provider's lists that came or went), and whether it went. */
type Difference = { target: string; change: Change; gone: boolean };

/** Each entry that came into a list, or went from it, as the change of the kind that shows so (ChangeKind.outside). */
function differences(before: ProviderState, after: ProviderState): Difference[] {
  return outsideKinds().flatMap(({ outside }) => {
    const [from, to] = outside.adds ? [before, after] : [after, before];
    return [...to[outside.list]]
      .filter(([key]) => !from[outside.list].has(key))
      .map(([key, value]) => ({ target: key, change: outside.change(key, value), gone: !outside.adds }));
  });
}

/** One audit row per outside change; a number or agent gone forgets its tags, as replaying that row does. */
async function recordOutside(deps: OpsDeps, found: Difference): Promise<void> {
  if (found.gone) await deps.store.tags.forget(found.target);
  await record(deps, OUTSIDE, newCorrelationId(), {
    action: found.change.action,
    outcome: 'succeeded',
    target: found.target,
  });
}

/** Routing records whose number or agent the provider no longer has point nowhere: each is dropped and audited. */
async function dropRoutesToNothing(deps: OpsDeps, current: ProviderState, underWay: Set<string>): Promise<void> {
  for (const route of await deps.store.routes.all()) {
    const numberGone = !current.numbers.has(route.phoneNumber);
    const agentGone = !current.agents.has(route.agentId);
    if ((!numberGone && !agentGone) || underWay.has(route.phoneNumber) || underWay.has(route.agentId)) continue;
    await deps.store.routes.removeNumber(route.phoneNumber);
    await record(deps, OUTSIDE, newCorrelationId(), {
      action: ROUTE_DROPPED,
      outcome: 'succeeded',
      target: route.phoneNumber,
      params: { agentId: route.agentId, because: numberGone ? 'the number is no longer yours' : 'the agent is gone' },
    });
  }
}

function targetsOf(change: Record<string, unknown>): string[] {
  return ['number', 'phoneNumber', 'agentId'].flatMap((key) => (typeof change[key] === 'string' ? [change[key]] : []));
}

/** The state to remember: what was read, except targets under way, which keep what was expected of them. */
function keepUnderWay(current: ProviderState, before: ProviderState, inFlight: Set<string>): ProviderState {
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
