// What makes a kind of change: who may ask for it, what its audit rows name, its provider work, and how a change
// whose answer was lost is settled; and, for a kind asked for in bulk, its bulk form. One module a kind (kinds/*.ts),
// one registry of them (kinds/index.ts), and one of the bulk forms (bulk-plans.ts).
import type { z } from 'zod';
import type { AuditAction } from '../../store/audit.js';
import type { AccountRead, Planned } from '../bulk-items.js';
import type { ChangeIntent } from '../changes.js';
import type { OpsDeps } from '../deps.js';
import type { ProviderReads } from '../provider-reads.js';
import type { Result, Role } from '../types.js';
import type { Verified, Work } from '../work.js';

export type Kind = ChangeIntent['kind'];
export type ChangeOf<K extends Kind> = Extract<ChangeIntent, { kind: K }>;

export interface ChangeKind<K extends Kind> {
  /** The role that may ask for it, confirm it and approve it. */
  role: Role;
  /** What that role lets a person do, as a denial says it: "You need the operator role to buy numbers." */
  permits: string;
  /** What its audit rows name: a number, an agent (a new agent has none until the provider names it). */
  target: (change: ChangeOf<K>) => string | undefined;
  /**
   * What its outcome's audit row keeps of it beside the target, however it ended (its own answer, or the reconciler's
   * check), so that the log alone tells what it did: the agent a number was routed to, say.
   */
  auditParams: (change: ChangeOf<K>) => Record<string, unknown> | undefined;
  /** Whether it takes a number from the agent it routes to, which a plan marks. */
  takesFromAgent: (change: ChangeOf<K>) => boolean;
  /** Its provider work, once it may go ahead; `by` is whoever asked for it (a route names who asked). */
  work: (deps: OpsDeps, change: ChangeOf<K>, by: string) => Work;
  /**
   * What the provider shows became of it once its answer was lost or its process died. A provider that does not
   * answer throws: nothing is known yet.
   */
  verify: (deps: OpsDeps, change: ChangeOf<K>, reads: ProviderReads, by: string) => Promise<Verified>;
}

/** How a batch is audited as one request: `batch.map`, `batch.buy`… */
export type BatchAction = Extract<AuditAction, `batch.${string}`>;

/**
 * A kind's bulk form: one request for many changes of the kind, planned item by item, stored with its plan and
 * planned again when it is confirmed. `S` is the request's schema, a variant of the bulk request (bulk-plans.ts).
 */
export interface BulkForm<S extends z.ZodType<{ kind: Kind }>> {
  request: S;
  /** The batch's own audit rows; each item's are the single change's. */
  audit: BatchAction;
  /**
   * Its items as the provider and the app's records stand now (or as `read` just found them). A provider that does
   * not answer throws.
   */
  plan: (deps: OpsDeps, request: z.output<S>, read?: AccountRead) => Promise<Result<Planned>>;
  /** The same request, for the numbers named: what is left of a batch, or what failed in it. */
  again: (request: z.output<S>, numbers: string[]) => z.output<S>;
}
