// The registry of kinds of change: the one place a kind is added. The compiler checks that every kind a change can be
// has its module, and the dispatchers below are how the rest of ops asks a kind what it does.
import type { ChangeIntent, PendingChange } from '../changes.js';
import type { OpsDeps } from '../deps.js';
import type { ProviderReads } from '../provider-reads.js';
import type { Role } from '../types.js';
import type { Verified, Work } from '../work.js';
import { agentCreate } from './agent-create.js';
import { agentDelete } from './agent-delete.js';
import type { ChangeKind, Kind } from './kind.js';
import { numberBuy } from './number-buy.js';
import { numberRelease } from './number-release.js';
import { routingMap } from './routing-map.js';

const KINDS: { [K in Kind]: ChangeKind<K> } = {
  'number.buy': numberBuy,
  'number.release': numberRelease,
  'routing.map': routingMap,
  'agent.create': agentCreate,
  'agent.delete': agentDelete,
};

export function changeKind<K extends Kind>(kind: K): ChangeKind<K> {
  return KINDS[kind];
}

/** Whether an audit action names a kind of change (rather than a search, a denial, a step of a batch…). */
export const isKind = (action: string): action is Kind => Object.hasOwn(KINDS, action);

/** The target an audit row names for a change. */
export function targetOf(change: PendingChange): string;
export function targetOf(change: ChangeIntent): string | undefined;
export function targetOf(change: ChangeIntent): string | undefined {
  return changeKind(change.kind).target(change);
}

/** The provider work of a change that may go ahead, whoever's decision let it (its requester, or an approver). */
export function workFor(deps: OpsDeps, change: ChangeIntent, by: string): Work {
  return changeKind(change.kind).work(deps, change, by);
}

/** The role that may ask for a kind of change, confirm it and approve it. */
export const neededRole = (kind: Kind): Role => changeKind(kind).role;

/** What a change's outcome row keeps of it beside its target (see ChangeKind.auditParams). */
export function auditParamsOf(change: ChangeIntent): Record<string, unknown> | undefined {
  return changeKind(change.kind).auditParams(change);
}

export function takesFromAgent(change: ChangeIntent): boolean {
  return changeKind(change.kind).takesFromAgent(change);
}

/** What the provider says became of a change (see ChangeKind.verify). */
export function verifyChange(deps: OpsDeps, reads: ProviderReads, change: ChangeIntent, by: string): Promise<Verified> {
  return changeKind(change.kind).verify(deps, change, reads, by);
}

export type { BatchAction, BulkForm, ChangeKind, ChangeOf, Kind } from './kind.js';
