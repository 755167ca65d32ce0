// How the views speak about roles: which buttons a role sees, and what a viewer must ask for.
import { type Role, roleIncludes } from '../../ops/api.js';

/** Whether `role` may use a button that leads to a change needing `needed`; others never see the button. */
export function can(role: Role, needed: Role): boolean {
  return roleIncludes(role, needed);
}

export const SANDBOX_WARNING = ':test_tube: *Sandbox provider: nothing real is bought or routed.*';

export function roleLine(role: Role): string {
  if (role !== 'viewer') return `Your role: *${role}*.`;
  return (
    'Your role: *viewer*: you can look but not change anything. To make changes, ask an admin to add your ' +
    'Slack user id (or a user group you are in) to `VOICE_OPERATORS` or `VOICE_ADMINS`.'
  );
}
