// The routing at a moment, and what changed since, rebuilt from the verified audit log, so that an edited log cannot
// pass for what happened. A broken chain is named, and nothing is rebuilt from it.
import type { ChannelBinding } from '../settings-schema.js';
import { agentNames } from './audit.js';
import { inScope, scopeOf } from './channel-scope.js';
import type { OpsDeps } from './deps.js';
import { withLabelsPart } from './labels-text.js';
import type { ListedIn } from './pages.js';
import type { AgentRef } from './phrase.js';
import { type Replayed, type RouteChange, replayRoutes } from './route-replay.js';
import type { RoutingExport } from './routing-plans.js';
import { routingText } from './routing-text.js';
import type { TimeZone } from './time-zone.js';
import { parseTypedTime } from './typed-time.js';
import type { Result } from './types.js';
import { fromVerifiedLog } from './verified-log.js';

/** A number's change since the moment, its agents named where the provider still lists them. */
export type NamedRouteChange = Omit<RouteChange, 'before' | 'after'> & { before?: AgentRef; after?: AgentRef };

export interface RoutingChanges {
  /** The moment, said back in the zone it was read in: "2026-11-27 09:00 Europe/Paris (08:00 UTC)". */
  since: string;
  /** The moment in UTC, to copy into a command: "2026-11-27 08:00 UTC". */
  sinceUtc: string;
  changes: NamedRouteChange[];
  /** The binding of the channel it was asked in: only the numbers it covers are in it. */
  scope?: ChannelBinding;
}

/** In the format a plan reads: pasted into a plan, it routes back. */
export async function exportRoutingAsOf(
  deps: OpsDeps,
  time: string,
  zone?: TimeZone,
  where: ListedIn = {},
): Promise<Result<RoutingExport>> {
  const moment = await parseTypedTime(time, deps.now(), zone);
  if (!moment.ok) return moment;
  const [replayed, names] = await Promise.all([replayVerified(deps, moment.at), agentNames(deps)]);
  if (!replayed.ok) return replayed;
  const scope = await scopeOf(deps, where.channelId);
  // Within the binding as the numbers were tagged then: one released or handed to another team since still counts.
  const asOf = [...replayed.asOf].filter(([phoneNumber]) => inScope(scope, replayed.tagsAsOf.get(phoneNumber)));
  const routes = asOf.map(([phoneNumber, agentId]) => ({
    phoneNumber,
    agentId,
    agentName: names.get(agentId),
  }));
  const header =
    `Voice Ops routing as of ${moment.said}, rebuilt from the verified audit log: ${routes.length} routed ` +
    '(numbers that routed nowhere are not listed).\nOne NUMBER AGENT_ID a line; an operator can paste it into ' +
    '/voice plan to route these numbers back.';
  // The labels part, like the routes, only of what the channel's binding covers (as tagged then).
  const tags = scope ? new Map([...replayed.tagsAsOf].filter(([, then]) => inScope(scope, then))) : replayed.tagsAsOf;
  const text = withLabelsPart(routingText(routes, header), tags);
  return { ok: true, text, routed: routes.length, asOf: moment.said, ...(scope ? { scope } : {}) };
}

/** Each number changed since the moment `time` names (in `zone`): its agent then and now, bought or released, by whom. */
export async function routingChangesSince(
  deps: OpsDeps,
  time: string,
  zone?: TimeZone,
  where: ListedIn = {},
): Promise<Result<RoutingChanges>> {
  const moment = await parseTypedTime(time, deps.now(), zone);
  if (!moment.ok) return moment;
  const [replayed, names] = await Promise.all([replayVerified(deps, moment.at), agentNames(deps)]);
  if (!replayed.ok) return replayed;
  const named = (id: string | undefined) => (id === undefined ? undefined : { id, name: names.get(id) });
  const scope = await scopeOf(deps, where.channelId);
  // A number within the binding then or now: one released since, or handed to another team, still shows in its
  // team's channel, and one taken over since shows in its new team's.
  const now = await deps.store.tags.of(replayed.changes.map((change) => change.number));
  const within = (number: string) => inScope(scope, replayed.tagsAsOf.get(number)) || inScope(scope, now.get(number));
  const changes = replayed.changes
    .filter((change) => within(change.number))
    .map((change) => ({
      ...change,
      before: named(change.before),
      after: named(change.after),
    }));
  return { ok: true, since: moment.said, sinceUtc: moment.utc, changes, ...(scope ? { scope } : {}) };
}

/** The log's changes replayed, up to the end of the chain as verified. */
const replayVerified = (deps: OpsDeps, at: Date): Promise<Result<Replayed>> =>
  fromVerifiedLog(deps, (end) => replayRoutes(deps.store.audit.changesUpTo(end), at));
