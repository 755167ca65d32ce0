// How the views speak about roles: which buttons a role sees, and what a viewer must ask for.
import { type PoliciesInForce, type Role, roleIncludes } from '../../ops/api.js';
import { mentionMember } from '../mrkdwn.js';
import { policyLines } from './policies.js';

/** Whether `role` may use a button that leads to a change needing `needed`; others never see the button. */
export function can(role: Role, needed: Role): boolean {
  return roleIncludes(role, needed);
}

export const SANDBOX_WARNING = ':test_tube: *Sandbox provider: nothing real is bought or routed.*';

/** Your role, and a viewer whom to ask for more: whoever runs Voice Ops where the role is locked, else the admins. */
export function roleLine(role: Role, inForce?: Pick<PoliciesInForce, 'policy' | 'locks'>): string {
  if (role !== 'viewer') return `Your role: *${role}*.`;
  const lock = inForce?.locks.operators;
  const admins = inForce?.policy.admins ?? [];
  const ask = lock
    ? `ask whoever runs Voice Ops to add your Slack user id (or a user group you are in) to \`${lock.key}\``
    : `ask an admin${admins.length ? ` (${admins.map(mentionMember).join(', ')})` : ''} for the operator role`;
  return `Your role: *viewer*: you can look but not change anything. To make changes, ${ask}.`;
}

/** Your role, then the guardrails in force, one line each: what help and the Home tab say under their lists. */
export function ruleLines(role: Role, inForce?: PoliciesInForce): string[] {
  return [roleLine(role, inForce), ...(inForce ? policyLines(inForce) : [])];
}
