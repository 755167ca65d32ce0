// Column codecs for rows read back from SQLite: the schema says what a column may hold, these make the types say so.
import { z } from 'zod';
import { wellFormed } from './audit-chain.js';

/** A nullable TEXT column, with NULL read as an absent (undefined) property. */
export const optionalText = z
  .string()
  .nullable()
  .transform((value) => value ?? undefined);

/** A TEXT column holding a JSON object. */
export const jsonObject = z
  .string()
  .transform((text, ctx): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.string(), z.unknown()));

/**
 * A value as JSON text both engines keep: each string well-formed first, since Postgres's jsonb refuses a lone
 * surrogate and U+0000 even written as escapes, which is how JSON.stringify writes them.
 */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'string' ? wellFormed(item) : item));
}
