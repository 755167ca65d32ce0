import type { z } from 'zod';
import { type Failure, fail } from './types.js';

/**
 * Checks user input against a wire schema; the failure names the first field at fault. A plain value has no field
 * name, so its message is the bare predicate ("must be …."), which the caller prefixes with what the value is.
 */
export function validate<T>(schema: z.ZodType<T>, input: unknown): { ok: true; value: T } | Failure {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const [issue] = parsed.error.issues;
  const field = issue?.path.join('.') || undefined;
  const predicate = `${issue?.message ?? 'is invalid'}.`;
  return fail('invalid', field ? `${field} ${predicate}` : predicate, { field });
}
