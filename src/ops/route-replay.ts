// The routing rebuilt from the audit log, a pure function of its rows: each successful row that moves a number's
// route, replayed in the log's id order. A map routes its number (the row's target) to its agent (`params.agentId`,
// which the kind's outcome row keeps); a buy and a release leave the number routing nowhere (a number just bought
// routes nowhere), and so does the reconciler's `routing.drop` of a route whose number or agent is gone. A batch's
// items are audited with their own action under the batch's correlation id, so they replay as single changes do; its
// `batch.*` rows are its request and summary, and move nothing.
import { z } from 'zod';
import type { AuditEvent } from '../store/audit.js';
import { KIND } from './kinds/index.js';

/** The reconciler's row for a route it dropped because its number or agent is gone. */
export const ROUTE_DROPPED = 'routing.drop';

export type Ownership = 'bought' | 'released';

/** What a row does to its number: routes it to an agent, or leaves it routing nowhere (bought or released too). */
interface Step {
  number: string;
  agentId?: string;
  ownership?: Ownership;
}

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
}

export interface Replayed {
  /** Number → agent id: the routing as the rows at or before the moment left it. */
  asOf: Map<string, string>;
  /** The numbers rows after the moment changed, sorted by number. */
  changes: RouteChange[];
}

const mapped = z.object({ agentId: z.string() });

function stepOf(row: AuditEvent): Step | undefined {
  if (row.outcome !== 'succeeded' || row.target === undefined) return undefined;
  switch (row.action) {
    case KIND.map: {
      const params = mapped.safeParse(row.params);
      return params.success ? { number: row.target, agentId: params.data.agentId } : undefined;
    }
    case KIND.buy:
      return { number: row.target, ownership: 'bought' };
    case KIND.release:
      return { number: row.target, ownership: 'released' };
    case ROUTE_DROPPED:
      return { number: row.target };
    default:
      return undefined;
  }
}

function route(routes: Map<string, string>, step: Step): void {
  if (step.agentId === undefined) routes.delete(step.number);
  else routes.set(step.number, step.agentId);
}

type Trail = Omit<RouteChange, 'number' | 'before' | 'after'>;

function note(trails: Map<string, Trail>, step: Step, row: AuditEvent): void {
  const trail = trails.get(step.number) ?? { ownership: [], by: [], outside: false };
  if (step.ownership && trail.ownership.at(-1) !== step.ownership) trail.ownership.push(step.ownership);
  if (row.source === 'provider') trail.outside = true;
  else if (!trail.by.includes(row.actorId)) trail.by.push(row.actorId);
  trails.set(step.number, trail);
}

/**
 * Replays `rows` (the whole log, in id order) once: the routing as it was at `at` (the rows stamped at or before it),
 * and, for each number a later row changed, its agent then and now with who changed it.
 */
export async function replayRoutes(rows: AsyncIterable<AuditEvent>, at: Date): Promise<Replayed> {
  const asOf = new Map<string, string>();
  const now = new Map<string, string>();
  const trails = new Map<string, Trail>();
  for await (const row of rows) {
    const step = stepOf(row);
    if (!step) continue;
    // The rows stamped by the moment make the routing then; every row makes the routing now.
    if (Date.parse(row.at) <= at.getTime()) route(asOf, step);
    else note(trails, step, row);
    route(now, step);
  }
  const changes = [...trails]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([number, trail]) => ({ number, before: asOf.get(number), after: now.get(number), ...trail }));
  return { asOf, changes };
}
