// The routing rebuilt from the audit log, a pure function of its rows replayed in id order, each as its kind's
// `routeEffect` says, plus the reconciler's `routing.drop`. A batch's items replay as single changes; its `batch.*`
// rows move nothing. An Undo's changes share its correlation id. `playground.reset` releases every route.
import type { AuditEvent } from '../store/audit.js';
import type { Tags } from '../store/tags.js';
import { PLAYGROUND_RESET } from './action-words.js';
import { changeKind, isKind, type RouteEffect } from './kinds/index.js';
import { replayTags } from './tag-replay.js';
import { UNDO_ACTION } from './undo-trail.js';

/** The reconciler's row for a route it dropped because its number or agent is gone. */
export const ROUTE_DROPPED = 'routing.drop';

export type Ownership = NonNullable<RouteEffect['ownership']>;

/** What changed a number after the moment, per the log. */
export interface RouteChange {
  number: string;
  /** The agent it routed to at the moment, and the one it routes to now; absent where it routed nowhere. */
  before?: string;
  after?: string;
  /** Bought and released since, in the order they happened. */
  ownership: Ownership[];
  /** The people who changed it, first to last, once each, by Slack user id. */
  by: string[];
  /** Whether a change was made outside Voice Ops (the provider's dashboard or API), and noticed by the app. */
  outside: boolean;
  /** Whether one of the changes was an Undo's. */
  undone: boolean;
}

export interface Replayed {
  /** Number → agent id: the routing as the rows at or before the moment left it. */
  asOf: Map<string, string>;
  /** Number → its labels and owner, as those rows left them (tag-replay.ts). */
  tagsAsOf: Map<string, Tags>;
  /** The numbers rows after the moment changed, sorted by number. */
  changes: RouteChange[];
}

/** What a row did to its number's route, as its kind says, or the reconciler's drop of a route. */
function effectOfRow(row: AuditEvent): RouteEffect | undefined {
  if (row.outcome !== 'succeeded' || row.target === undefined) return undefined;
  if (row.action === ROUTE_DROPPED) return { number: row.target };
  if (!isKind(row.action)) return undefined;
  return changeKind(row.action).routeEffect?.({ target: row.target, params: row.params ?? {} });
}

/** A row's effects: a change's one, or a reset's release of every number routed now. */
function effectsOfRow(row: AuditEvent, now: Map<string, string>): RouteEffect[] {
  if (row.action === PLAYGROUND_RESET && row.outcome === 'succeeded') {
    return [...now.keys()].map((number) => ({ number, ownership: 'released' }));
  }
  const effect = effectOfRow(row);
  return effect ? [effect] : [];
}

function route(routes: Map<string, string>, effect: RouteEffect): void {
  if (effect.agentId === undefined) routes.delete(effect.number);
  else routes.set(effect.number, effect.agentId);
}

type Trail = Omit<RouteChange, 'number' | 'before' | 'after' | 'undone'> & { requests: Set<string> };

function note(trails: Map<string, Trail>, effect: RouteEffect, row: AuditEvent): void {
  const trail = trails.get(effect.number) ?? { ownership: [], by: [], outside: false, requests: new Set<string>() };
  trail.requests.add(row.correlationId);
  if (effect.ownership && trail.ownership.at(-1) !== effect.ownership) trail.ownership.push(effect.ownership);
  if (row.source === 'provider') trail.outside = true;
  else if (!trail.by.includes(row.actorId)) trail.by.push(row.actorId);
  trails.set(effect.number, trail);
}

/** The routing at `at`, and for each number a later row changed, its agent then and now with who changed it. */
export async function replayRoutes(rows: AsyncIterable<AuditEvent>, at: Date): Promise<Replayed> {
  const asOf = new Map<string, string>();
  const tagsAsOf = new Map<string, Tags>();
  const now = new Map<string, string>();
  const trails = new Map<string, Trail>();
  const undos = new Set<string>();
  for await (const row of rows) {
    if (row.action === UNDO_ACTION) undos.add(row.correlationId);
    const effects = effectsOfRow(row, now);
    // The rows stamped by the moment make the routing then; every row makes the routing now.
    const byTheMoment = Date.parse(row.at) <= at.getTime();
    if (byTheMoment) replayTags(tagsAsOf, row, effects);
    for (const effect of effects) {
      if (byTheMoment) route(asOf, effect);
      else note(trails, effect, row);
      route(now, effect);
    }
  }
  const changes = [...trails]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([number, { requests, ...trail }]) => ({
      number,
      before: asOf.get(number),
      after: now.get(number),
      ...trail,
      undone: [...requests].some((id) => undos.has(id)),
    }));
  return { asOf, tagsAsOf, changes };
}
