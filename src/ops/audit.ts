// `/voice audit`: one line per change (the rows that share a correlation id), newest first, a page at a time, with
// the agents named.
import type { AuditAction, AuditEvent, AuditOutcome } from '../store/audit.js';
import type { AuditCursor, AuditFilter, ChangeTrail } from '../store/audit-changes.js';
import type { Store } from '../store/store.js';
import type { AccountLists } from './lists.js';
import type { Page } from './pages.js';
import { SECOND_OUTCOME } from './second-outcome.js';
import { UNDO_ACTION } from './undo-trail.js';

/** A change as one line of the audit: what it was, who asked, and where it ended. */
export interface AuditChange {
  correlationId: string;
  /** When its latest row was written. */
  at: string;
  actorId: string;
  actorName?: string;
  action: AuditAction;
  target?: string;
  /** The outcome of its latest row (a failed announcement is a note, not the outcome). */
  outcome: AuditOutcome;
  errorCode?: string;
  errorMessage?: string;
  /** The agent the change concerned, and for a re-route the one before, named where the name is known. */
  agent?: { id: string; name?: string };
  previousAgent?: { id: string; name?: string };
  /** For a denial: what was attempted. */
  attempted?: string;
  /** Whether it was an Undo of another change (its own `change.undo` rows share its correlation id). */
  undo?: boolean;
  /**
   * For a bulk change: its items by outcome, as its last row counted them, with those being settled (their outcome
   * not known yet) until they are.
   */
  batch?: { succeeded: number; failed: number; cancelled: number; settling?: number };
  /** For a bulk change: the region it bought in, or picked its numbers from. */
  region?: string;
  /** Side rows: an announcement or an agent token that did not arrive, someone else refused. */
  notes: { action: AuditAction; outcome: AuditOutcome; actorId: string; errorCode?: string }[];
}

/** Changes counted exactly; beyond, the total and the pages are shown as "at least". */
export const AUDIT_COUNT_LIMIT = 100_000;

/** Where a page of the audit stands, for its Previous and Next buttons. */
export interface AuditPage extends Page<AuditChange, AuditFilter> {
  /** The log holds more than AUDIT_COUNT_LIMIT matching changes: `total` and `pages` are lower bounds. */
  atLeast: boolean;
  /** The cursors of the neighbouring pages; absent at either end. */
  newer?: AuditCursor;
  older?: AuditCursor;
}

export interface AuditRequest {
  filter?: AuditFilter;
  /** The page number the cursor leads to; 1 (or less) is the newest page, whatever the cursor. */
  page: number;
  cursor?: AuditCursor;
  size: number;
}

// A refused second outcome is a note beside the change: the outcome that stands is the change's.
const SIDE_ROWS = new Set<AuditAction>(['change.announce', 'agent.token', SECOND_OUTCOME]);

/** What reading the audit needs: the log, and the agents' names. */
export interface AuditDeps {
  store: Pick<Store, 'auditChanges'>;
  lists: Pick<AccountLists, 'agents'>;
}

export async function auditPage(deps: AuditDeps, request: AuditRequest): Promise<AuditPage> {
  const filter = request.filter ?? {};
  const newest = request.page <= 1 || request.cursor === undefined;
  const [found, counted] = await Promise.all([
    deps.store.auditChanges.page(filter, newest ? undefined : request.cursor, request.size),
    deps.store.auditChanges.count(filter, AUDIT_COUNT_LIMIT + 1),
  ]);
  const atLeast = counted > AUDIT_COUNT_LIMIT;
  const total = Math.min(counted, AUDIT_COUNT_LIMIT);
  const pages = Math.max(1, Math.ceil(total / request.size));
  // Pages are found by cursor, so one beyond the counted ones is still where the user is.
  const page = newest ? 1 : atLeast ? Math.max(2, request.page) : Math.min(Math.max(2, request.page), pages);
  const names = await agentNames(deps);
  const items = found.trails.map((trail) => summarize(trail, names));
  const first = found.trails[0]?.position;
  const last = found.trails.at(-1)?.position;
  return {
    items,
    page,
    pages,
    total,
    atLeast,
    filter,
    newer: found.newer && first !== undefined ? { after: first } : undefined,
    older: found.older && last !== undefined ? { before: last } : undefined,
  };
}

/** Names are a help to the reader, so a provider that does not answer gives none. */
export async function agentNames(deps: Pick<AuditDeps, 'lists'>): Promise<Map<string, string>> {
  try {
    return new Map((await deps.lists.agents.get()).map((agent) => [agent.id, agent.name]));
  } catch {
    return new Map();
  }
}

function summarize(trail: ChangeTrail, names: Map<string, string>): AuditChange {
  const rows = trail.events.filter((event) => !SIDE_ROWS.has(event.action) && event.action !== 'access.denied');
  // A request refused outright has only its denial.
  const main = rows.length ? rows : trail.events.filter((event) => !SIDE_ROWS.has(event.action));
  const [request] = main.length ? main : trail.events;
  const latest = (main.length ? main : trail.events).at(-1) ?? request;
  if (!request || !latest) throw new Error(`change ${trail.correlationId} has no rows`);
  const recorded = recordedNames(trail.events);
  const named = (id: string | undefined) => (id ? { id, name: names.get(id) ?? recorded.get(id) } : undefined);
  // An agent's creation names its id only once the provider has answered.
  const target = main.find((event) => event.target !== undefined)?.target;
  const agentId = stringParam(trail.events, 'agentId') ?? (request.action.startsWith('agent.') ? target : undefined);
  return {
    correlationId: trail.correlationId,
    at: latest.at,
    actorId: request.actorId,
    actorName: request.actorName,
    action: request.action,
    target,
    outcome: latest.outcome,
    errorCode: latest.errorCode,
    errorMessage: latest.errorMessage,
    agent: named(agentId),
    previousAgent: named(stringParam(trail.events, 'previousAgentId') ?? nestedId(trail.events, 'previousAgent')),
    attempted: request.action === 'access.denied' ? stringParam([request], 'attempted') : undefined,
    undo: request.action !== UNDO_ACTION && trail.events.some((event) => event.action === UNDO_ACTION),
    batch: request.action.startsWith('batch.') ? batchCounts(trail.events, request.action) : undefined,
    region: request.action.startsWith('batch.') ? batchRegion(trail.events) : undefined,
    notes: trail.events
      .filter((event) => !main.includes(event))
      .map((event) => ({
        action: event.action,
        outcome: event.outcome,
        actorId: event.actorId,
        errorCode: event.errorCode,
      })),
  };
}

/** The items' outcomes, as the batch's latest count recorded them. */
function batchCounts(events: AuditEvent[], action: AuditAction): AuditChange['batch'] {
  const counted = events.findLast((event) => event.action === action && event.params?.succeeded !== undefined);
  if (!counted?.params) return undefined;
  const { succeeded, failed, cancelled, settling } = counted.params;
  const number = (value: unknown) => (typeof value === 'number' ? value : 0);
  return {
    succeeded: number(succeeded),
    failed: number(failed),
    cancelled: number(cancelled),
    ...(number(settling) ? { settling: number(settling) } : {}),
  };
}

/** A bulk buy's region, or the region of the filter that picked a bulk release's or map's numbers. */
function batchRegion(events: AuditEvent[]): string | undefined {
  const region = stringParam(events, 'region');
  if (region) return region;
  for (const event of events) {
    const filter = event.params?.filter;
    if (filter && typeof filter === 'object' && 'region' in filter && typeof filter.region === 'string') {
      return filter.region;
    }
  }
  return undefined;
}

function stringParam(events: AuditEvent[], key: string): string | undefined {
  for (const event of events) {
    const value = event.params?.[key];
    if (typeof value === 'string' && value) return value;
  }
  return undefined;
}

function nestedId(events: AuditEvent[], key: string): string | undefined {
  for (const event of events) {
    const value = event.params?.[key];
    if (value && typeof value === 'object' && 'id' in value && typeof value.id === 'string') return value.id;
  }
  return undefined;
}

/** Names the change's own rows recorded: a deleted agent is named by its deletion, a route by its request. */
function recordedNames(events: AuditEvent[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const event of events) {
    const params = event.params ?? {};
    const id = typeof params.agentId === 'string' ? params.agentId : event.target;
    const name = params.agentName ?? params.name;
    if (id && typeof name === 'string') names.set(id, name);
    if (typeof params.previousAgentId === 'string' && typeof params.previousAgentName === 'string') {
      names.set(params.previousAgentId, params.previousAgentName);
    }
    const previous = params.previousAgent;
    if (previous && typeof previous === 'object' && 'id' in previous && 'name' in previous) {
      if (typeof previous.id === 'string' && typeof previous.name === 'string') names.set(previous.id, previous.name);
    }
  }
  return names;
}
