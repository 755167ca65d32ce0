import type { ProviderErrorKind } from '../provider/errors.js';
import type { AuditSource } from '../store/audit.js';
import type { ItemCounts } from '../store/batches.js';
import type { StepOrigin } from '../store/records.js';
import type { FailureCode } from './failure-codes.js';
import type { Phrase } from './phrase.js';

export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export function roleIncludes(held: Role, needed: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(needed);
}

/** Who asked, from where: everything the audit log records about the request. */
export interface Actor {
  userId: string;
  userName?: string;
  /** The requester's own workspace (an interaction's `user.team_id`, a command's `team_id`). */
  teamId?: string;
  /** Their Enterprise Grid org, when the app is installed across one: who they are is then the org and the user. */
  enterpriseId?: string;
  channelId?: string;
  source: AuditSource;
  /** The Workflow Builder step that asked, as Slack names it: every audit row of its change names it too. */
  step?: StepOrigin;
  /** Where to tell the requester later how a change ended; opaque, kept only while the change is under way. */
  replyAddress?: string;
}

export type FailureReason =
  | 'denied'
  | 'limit'
  | 'invalid'
  | 'not_found'
  | 'conflict'
  | 'busy'
  | 'provider'
  | 'expired'
  | 'already_used'
  | 'cancelled'
  | 'wrong_user'
  | 'wrong_team'
  | 'undelivered';

export interface Failure {
  ok: false;
  reason: FailureReason;
  /** A sentence the user can act on, in plain text: it may quote user or provider text, so views show it escaped. */
  message: string;
  /** The same sentence with the people it names as mentions, for the views that can draw them. */
  said?: Phrase;
  /** The form field at fault, for inline modal errors. */
  field?: string;
  providerKind?: ProviderErrorKind;
  /** Why, in the app's own codes, for the audit. */
  code?: FailureCode;
  /** A dependency's own error code (Slack's `not_in_channel`, say), for the audit. */
  dependencyCode?: string;
  /** Numbers for sale offered in place of one that is not, nearest first: each can be bought with a click. */
  instead?: string[];
  /**
   * The provider may still carry the change out (its answer did not come in time): not settled yet. The change's
   * intent stays open, and the reconciler settles it once the provider cannot still be working on it.
   */
  unsettled?: true;
}

export type Result<T> = ({ ok: true } & T) | Failure;

export function fail(reason: FailureReason, message: string, extra: Partial<Failure> = {}): Failure {
  return { ok: false, reason, message, ...extra };
}

/** Told after each item of a running batch, to show its progress. */
export type OnProgress = (counts: ItemCounts) => void;
