// The one place that answers "may this change go ahead, and what must happen first", and which role a person holds:
// a request asks before any confirmation, its confirmation asks again before its claim, and the buy limit is checked
// a last time inside the claim's own transaction. Every refusal is audited and names the rule and who can change it.

import { counted } from '../counts.js';
import { type BuyLimit, buyLimitText, type Lock, type SettingName, type Settings } from '../settings-schema.js';
import type { Person, RoleLists } from './access.js';
import { type Attempt, deny, record } from './audit-rows.js';
import type { PendingChange } from './changes.js';
import { refuseOutsideScope } from './channel-scope.js';
import type { OpsDeps } from './deps.js';
import {
  changeKind,
  confirmWordsOf,
  isKind,
  type Kind,
  kindOf,
  neededRole,
  spendingKinds,
  targetOf,
} from './kinds/index.js';
import { refuseOutsideReach } from './ownership.js';
import { type Actor, type Failure, fail, type Role, roleIncludes } from './types.js';

/** Who can change a rule, as a refusal ends: whoever runs Voice Ops where it is locked, else the admins in Slack. */
export function whoChanges(deps: OpsDeps, name: SettingName): string {
  const lock = deps.settings.lockedBy(name);
  return lock
    ? `Whoever runs Voice Ops can change ${lock.key} in ${lock.where}.`
    : 'An admin can change it with /voice settings.';
}

/** The role a person holds now, through the settings' lists and their user groups. */
export async function roleOf(deps: OpsDeps, person: Person): Promise<Role> {
  return deps.access.roleOf(person, await deps.settings.current());
}

/** A denial is audited and says what an admin can do, and why a user group did not count (a guest, or unreadable). */
async function authorize(
  deps: OpsDeps,
  actor: Actor,
  needed: Role,
  attempt: Attempt,
  settings: RoleLists,
): Promise<Failure | undefined> {
  const grant = await deps.access.grantOf(actor, settings);
  if (roleIncludes(grant.role, needed)) return undefined;
  const list = grantingList(deps, needed);
  const words = `You need the ${needed} role to ${isKind(attempt.action) ? changeKind(attempt.action).permits : attempt.action}.`;
  const remedy = grant.cappedAsGuest
    ? `You are a guest in Slack, and guests get no role through a user group: ${list.who} can add your own user id ` +
      `(${actor.userId}) to ${list.where}.`
    : `${list.who} can add your user id (${actor.userId}) or one of your user groups to ${list.where}.`;
  const unreadable = grant.unreadable ? ` Your user groups could not be checked: ${grant.unreadable}` : '';
  const failure = fail('denied', `${words} ${remedy}${unreadable}`);
  return deny(deps, actor, attempt, failure, { needed, ...(grant.cappedAsGuest ? { reason: 'guest' } : {}) });
}

/** Where a role is granted, as a denial says it: the list a lock names, or the settings an admin changes in Slack. */
function grantingList(deps: OpsDeps, role: Role): { who: string; where: string } {
  const name = role === 'admin' ? 'admins' : 'operators';
  const lock = deps.settings.lockedBy(name);
  if (lock) return { who: 'Whoever runs Voice Ops', where: `${lock.key} in ${lock.where}` };
  return { who: 'An admin', where: `the ${name} in /voice settings` };
}

/** A rule's key where it is locked (`VOICE_CHANGE_CHANNELS`), to name it beside what it says; nothing in Slack. */
const lockKey = (deps: OpsDeps, name: SettingName): string | undefined => deps.settings.lockedBy(name)?.key;

/**
 * At the request: the role its kind needs, the owners of what it touches (its target unless told), the binding of the
 * channel it is asked in (for the numbers and agents told, a target as typed may be a provider id: a confirmation
 * checks the change as resolved), the change channels, and for a buy the spending limits.
 */
export async function mayRequest(
  deps: OpsDeps,
  actor: Actor,
  attempt: Attempt & { action: Kind },
  touched?: readonly string[],
): Promise<Failure | undefined> {
  const settings = await deps.settings.current();
  const owned = touched ?? (attempt.target === undefined ? [] : [attempt.target]);
  return (
    (await authorize(deps, actor, neededRole(attempt.action), attempt, settings)) ??
    (await refuseOutsideReach(deps, settings, actor, owned, attempt)) ??
    (touched ? await refuseOutsideScope(deps, settings, actor, touched, attempt) : undefined) ??
    (await refuseOutsideChangeChannels(deps, settings, actor, attempt)) ??
    (changeKind(attempt.action).spends ? await refuseOverBuyLimit(deps, settings, actor, attempt) : undefined)
  );
}

/**
 * At the confirmation, before the claim: the role may be gone since, an owner changed, and the click may come from
 * elsewhere (a bound channel, whose binding it must be within).
 */
export async function mayConfirm(
  deps: OpsDeps,
  settings: Settings,
  confirmer: Actor,
  kind: string,
  attempt: Attempt,
  touched: readonly string[] = [],
): Promise<Failure | undefined> {
  return (
    (await authorize(deps, confirmer, neededRole(kind), attempt, settings)) ??
    (await refuseOutsideReach(deps, settings, confirmer, touched, attempt)) ??
    (await refuseOutsideScope(deps, settings, confirmer, touched, attempt)) ??
    (await refuseOutsideChangeChannels(deps, settings, confirmer, attempt))
  );
}

/**
 * Run inside the claim's transaction, which opens the intent that takes the slot: two confirmations of the last slot
 * cannot both pass. Claims take turns under a lock, so that replicas count what each other took.
 */
export async function refuseOverBuyLimitAtClaim(
  deps: OpsDeps,
  settings: Settings,
  actor: Actor,
  change: PendingChange,
  attempt: Attempt,
): Promise<Failure | undefined> {
  if (!buyLimitsApply(settings, change)) return undefined;
  await deps.store.lock('buy-limits');
  return refuseOverBuyLimit(deps, settings, actor, attempt);
}

/** Whether a buy limit counts the change: it spends money, and a limit is set. */
export const buyLimitsApply = (settings: Settings, change: PendingChange): boolean =>
  kindOf(change).spends && (settings.buyLimit !== undefined || settings.buyLimitPerUser !== undefined);

/** Whether a confirmed change waits for another person's approval (the settings' requireApproval). */
export function needsApproval(settings: Settings, kind: string): boolean {
  return settings.requireApproval.some((action) => action === kind);
}

/**
 * Never the requester, and only with the role the change needs and within the owners of what it touches, checked at
 * the click; each refusal is audited.
 */
export async function mayApprove(
  deps: OpsDeps,
  settings: Settings,
  approver: Actor,
  requesterId: string,
  kind: string,
  attempt: Attempt,
  touched: readonly string[],
): Promise<Failure | undefined> {
  const needed = neededRole(kind);
  const rule = lockKey(deps, 'requireApproval');
  if (approver.userId === requesterId) {
    const failure = fail(
      'denied',
      `You asked for this change: another person with the ${needed} role must approve it` +
        `${rule ? ` (${rule})` : ''}. ${whoChanges(deps, 'requireApproval')}`,
      { code: 'own_change' },
    );
    return deny(deps, approver, attempt, failure, { rule: 'requireApproval', reason: 'own change' });
  }
  const denied =
    (await authorize(deps, approver, needed, attempt, settings)) ??
    (await refuseOutsideReach(deps, settings, approver, touched, attempt));
  if (denied || settings.approvers.length === 0) return denied;
  if (await deps.access.lists(approver, settings.approvers)) return undefined;
  const failure = fail(
    'denied',
    `Only the approvers named in the settings may approve changes, and you are not one of them. ` +
      whoChanges(deps, 'approvers'),
    { code: 'not_approver' },
  );
  return deny(deps, approver, attempt, failure, { rule: 'approvers', reason: 'not an approver' });
}

/** Releasing a live line asks for the number's last four digits, typed, as a repository's name is to delete it. */
export function typedConfirmation(
  settings: Settings,
  change: PendingChange,
): { expected: string; prompt: string } | undefined {
  return settings.typedRelease ? confirmWordsOf(change.kind).typed?.(change) : undefined;
}

/** A typed confirmation that is missing or wrong: an error for the input, and nothing happens. */
export function refuseMistyped(
  settings: Settings,
  change: PendingChange,
  typed: string | undefined,
): Failure | undefined {
  const needed = typedConfirmation(settings, change);
  if (!needed || typed?.trim() === needed.expected) return undefined;
  const message = typed?.trim()
    ? `Those are not the last four digits of ${targetOf(change)}: nothing was changed.`
    : 'Type the last four digits of the number to confirm.';
  return fail('invalid', message, { field: 'typed_confirmation' });
}

/**
 * With change channels set, changes go only where colleagues see them: one with no channel (Home) is refused, and so
 * is a workflow step's, whose channel input may name any channel while the workflow runs anywhere.
 */
async function refuseOutsideChangeChannels(
  deps: OpsDeps,
  settings: Settings,
  actor: Actor,
  attempt: Attempt,
): Promise<Failure | undefined> {
  const allowed = settings.changeChannels;
  if (allowed.length === 0 || (actor.channelId !== undefined && allowed.includes(actor.channelId))) return undefined;
  const where = allowed.length === 1 ? `channel ${allowed[0]}` : `channels ${allowed.join(', ')}`;
  const nowhere =
    actor.source === 'workflow'
      ? 'from a workflow step, since Slack does not say which channel a workflow runs in'
      : 'outside a channel (the Home tab)';
  const from = actor.channelId === undefined ? nowhere : `in ${actor.channelId}`;
  const rule = lockKey(deps, 'changeChannels');
  const failure = fail(
    'denied',
    `Changes are made only in ${where}${rule ? ` (${rule})` : ''}, not ${from}: run the command there. ` +
      whoChanges(deps, 'changeChannels'),
    { code: 'change_channel' },
  );
  return deny(deps, actor, attempt, failure, { rule: 'changeChannels', allowed });
}

export interface BuyUsage {
  rule: 'buyLimit' | 'buyLimitPerUser';
  limit: BuyLimit;
  used: number;
  window: { from: Date; until: Date };
}

/** The guardrails in force for one person, with how much of each buy limit is used. */
export interface PoliciesInForce {
  policy: Settings;
  /** The settings locked by the environment or the policy file, and where each is given. */
  locks: Partial<Record<SettingName, Lock>>;
  buying: BuyUsage[];
}

export async function policiesInForce(deps: OpsDeps, userId: string): Promise<PoliciesInForce> {
  const settings = await deps.settings.current();
  return { policy: settings, locks: deps.settings.given.lockedBy, buying: await buyUsage(deps, settings, userId) };
}

/** The buy limits in force and how much of each is used now: the workspace's, then the person's. */
async function buyUsage(deps: OpsDeps, settings: Settings, userId: string): Promise<BuyUsage[]> {
  const { buyLimit, buyLimitPerUser } = settings;
  const usage: BuyUsage[] = [];
  if (buyLimit) usage.push(await usageOf(deps, 'buyLimit', buyLimit));
  if (buyLimitPerUser) usage.push(await usageOf(deps, 'buyLimitPerUser', buyLimitPerUser, userId));
  return usage;
}

/** Buys that succeeded in the window, and buys under way (open intents, and a started batch's items). */
async function usageOf(deps: OpsDeps, rule: BuyUsage['rule'], limit: BuyLimit, userId?: string): Promise<BuyUsage> {
  const window = windowAround(limit.window, deps.now());
  let used = 0;
  for (const kind of spendingKinds()) {
    used +=
      (await deps.store.audit.succeededCount(kind, window, userId)) +
      (await deps.store.intents.openCount(kind, userId)) +
      (await deps.store.batches.openItems(kind, userId));
  }
  return { rule, limit, used, window };
}

/** A bulk buy counts as a whole, before confirmation and again at its start; refused, it says how many would fit. */
export async function refuseBulkOverBuyLimit(
  deps: OpsDeps,
  actor: Actor,
  count: number,
  attempt: Attempt,
): Promise<Failure | undefined> {
  const settings = await deps.settings.current();
  const over = (await buyUsage(deps, settings, actor.userId)).find((usage) => usage.used + count > usage.limit.count);
  if (!over) return undefined;
  const fits = Math.max(0, over.limit.count - over.used);
  const { limit, rule, used, window } = over;
  const whose = rule === 'buyLimit' ? 'The workspace may buy' : 'Each person may buy';
  const failure = fail(
    'limit',
    `That would buy ${counted(count, 'number')}, and only ${fits} ${fits === 1 ? 'fits' : 'fit'}: ${whose} ` +
      `${limit.count} a ${limit.window} (${limitTag(deps, rule, limit)}), and ${used} ${used === 1 ? 'is' : 'are'} ` +
      `bought or under way ${PERIOD[limit.window]}. ` +
      `${fits ? `Ask for ${fits} or fewer, or wait` : 'Wait'} until ${utcText(window.until)}. ` +
      whoChanges(deps, rule),
    { code: 'buy_limit' },
  );
  return refuseAtLimit(deps, actor, { ...attempt, target: counted(count, 'number') }, over, failure, { fits });
}

async function refuseOverBuyLimit(
  deps: OpsDeps,
  settings: Settings,
  actor: Actor,
  attempt: Attempt,
): Promise<Failure | undefined> {
  const reached = (await buyUsage(deps, settings, actor.userId)).find((usage) => usage.used >= usage.limit.count);
  if (!reached) return undefined;
  const failure = fail('limit', limitMessage(deps, reached), { code: 'buy_limit' });
  return refuseAtLimit(deps, actor, attempt, reached, failure);
}

/** A buy refused at a limit, audited with the limit, its use and when it frees up. */
async function refuseAtLimit(
  deps: OpsDeps,
  actor: Actor,
  attempt: Attempt,
  { rule, limit, used, window }: BuyUsage,
  failure: Failure,
  more: { fits?: number } = {},
): Promise<Failure> {
  await record(deps, actor, attempt.correlationId, {
    action: attempt.action,
    outcome: 'rejected',
    target: attempt.target,
    params: { rule, limit: buyLimitText(limit), used, ...more, freesAt: window.until.toISOString() },
    error: failure,
  });
  return failure;
}

const PERIOD = { day: 'today', week: 'this week' } as const;

/** A limit as a refusal names it: `VOICE_BUY_LIMIT=5/day` where it is locked, else `5/day`. */
function limitTag(deps: OpsDeps, rule: BuyUsage['rule'], limit: BuyLimit): string {
  const key = lockKey(deps, rule);
  return key ? `${key}=${buyLimitText(limit)}` : buyLimitText(limit);
}

function limitMessage(deps: OpsDeps, usage: BuyUsage): string {
  const { limit, used, window, rule } = usage;
  const whose = rule === 'buyLimit' ? 'The workspace may buy' : 'Each person may buy';
  const who = rule === 'buyLimit' ? `${used} ${used === 1 ? 'was' : 'were'} bought` : `you bought ${used}`;
  return (
    `Buying limit reached: ${whose} ${counted(limit.count, 'number')} a ${limit.window} ` +
    `(${limitTag(deps, rule, limit)}), and ${who} ${PERIOD[limit.window]}. It frees up at ${utcText(window.until)}. ` +
    whoChanges(deps, rule)
  );
}

/** 2026-11-24 00:00 UTC */
const utcText = (time: Date): string => `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC day, or the ISO week (from Monday 00:00 UTC), that holds `now`. */
export function windowAround(window: BuyLimit['window'], now: Date): { from: Date; until: Date } {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const daysSinceMonday = (now.getUTCDay() + 6) % 7;
  const from = window === 'day' ? midnight : midnight - daysSinceMonday * DAY_MS;
  const length = window === 'day' ? DAY_MS : 7 * DAY_MS;
  return { from: new Date(from), until: new Date(from + length) };
}
