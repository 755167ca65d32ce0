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

/** `created_at` as `createdAt`. */
type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
/** The record a row reads as: a column that may be NULL (read as undefined) an optional property. */
type CamelCased<T> = {
  [K in keyof T as undefined extends T[K] ? never : Camel<K & string>]: T[K];
} & { [K in keyof T as undefined extends T[K] ? Camel<K & string> : never]?: T[K] } extends infer R
  ? { [K in keyof R]: R[K] }
  : never;

/** A row read as a record: each column, checked by `columns`, becomes the property its name says in camelCase. */
export function camelCased<T extends z.ZodRawShape>(columns: z.ZodObject<T>) {
  // The names are worked out once per table, not per row: a walk of the audit log reads a million rows.
  const names = Object.keys(columns.shape).map(
    (column) => [column, column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())] as const,
  );
  return columns.transform((row) => {
    const record: Record<string, unknown> = {};
    for (const [column, property] of names) record[property] = (row as Record<string, unknown>)[column];
    return record as CamelCased<z.output<z.ZodObject<T>>>;
  });
}

/**
 * A value as JSON text both engines keep: each string well-formed first, since Postgres's jsonb refuses a lone
 * surrogate and U+0000 even written as escapes, which is how JSON.stringify writes them.
 */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'string' ? wellFormed(item) : item));
}
