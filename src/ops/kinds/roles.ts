// The role each kind of change needs, by name: filled by the registry (index.ts) as kinds are registered, and read
// by what cannot import the registry without running in a circle (a settings change's own checks, lockout.ts).
import type { Role } from '../types.js';

const roles = new Map<string, Role>();

/** Returns what removes it again. */
export function registerRole(kind: string, role: Role): () => void {
  roles.set(kind, role);
  return () => roles.delete(kind);
}

/** The role a kind of change needs; a name no kind has is a bug (the settings' schema names only kinds). */
export function roleOfKind(kind: string): Role {
  const role = roles.get(kind);
  if (!role) throw new Error(`No kind of change is named ${kind}.`);
  return role;
}
