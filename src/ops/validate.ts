import type { z } from 'zod';
import { type Failure, fail } from './types.js';

/** Names the first field at fault; a plain value's message is the bare predicate, for the caller to prefix. */
export function validate<T>(schema: z.ZodType<T>, input: unknown): { ok: true; value: T } | Failure {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const [issue] = parsed.error.issues;
  const field = issue?.path.join('.') || undefined;
  const predicate = `${issue?.message ?? 'is invalid'}.`;
  return fail('invalid', field ? `${field} ${predicate}` : predicate, { field });
}
