import type { z } from 'zod';
import { type Failure, fail } from './types.js';

/** Checks user input against a wire schema; the failure names the first field at fault. */
export function validate<T>(schema: z.ZodType<T>, input: unknown): { ok: true; value: T } | Failure {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const [issue] = parsed.error.issues;
  const field = issue?.path.join('.') || undefined;
  return fail('invalid', `${field ?? 'Input'} ${issue?.message ?? 'is invalid'}.`, { field });
}
