// What carrying out a change means, whatever its kind: the provider work it names, and what that work reports.
import type { ProviderClient } from '../provider/client.js';
import type { CreatedAgent } from '../provider/schemas.js';
import type { AuditAction } from '../store/audit.js';
import type { Change } from './announcements.js';
import type { ChangeIntent } from './changes.js';
import type { OpsDeps } from './deps.js';
import type { Failure, Result } from './types.js';

/** What a change's work reports: the announcement, and what only the requester may see. */
export interface Finished {
  change: Change;
  /** Something the requester should know, e.g. that a lost answer was verified. */
  note?: string;
  /** Only for agent creation: carries the agent token, shown once to the requester. */
  createdAgent?: CreatedAgent;
  /** The app's own records, written by whoever closes the intent, in that transaction. */
  keep?: (deps: OpsDeps) => Promise<unknown>;
  /** What its outcome row keeps beside the work's params, known only once it ran (the tags a label change found). */
  found?: Record<string, unknown>;
}

/** A change's provider work, as its kind makes it (see kinds/): carried out by carry-out.ts. */
export interface Work {
  action: AuditAction;
  /** What the change is about to do, recorded before the provider is called (see `openIntent`). */
  intent: ChangeIntent;
  target?: string;
  params?: Record<string, unknown>;
  /** Resources that no other change may touch meanwhile. */
  lockKeys: string[];
  /** Through the client its locks hand the change (see carryOutHeld); a ProviderError becomes a failure. */
  run: (provider: ProviderClient) => Promise<Result<Finished>>;
}

/**
 * What the provider shows became of a change: done (with what the requester should know, and the records its normal
 * path keeps, kept by whoever closes the intent), or not.
 */
export type Verified = ({ ok: true } & Pick<Finished, 'change' | 'note' | 'keep' | 'found'>) | Failure;
