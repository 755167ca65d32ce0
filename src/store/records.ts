// The changes the store keeps, as records: a change waiting for confirmation (with its confirmation, or as a batch's
// item) and a change about to reach the provider (its intent). The store does not know the kinds of change: each kind
// registers the shape of its record here (ops/kinds/), and a record is parsed with its kind's shape once, where it is
// read, so that everything above works on records its kind has checked, and a confirmation carries what it promised.
import { z } from 'zod';

/** A change as the store keeps it: its kind, and the fields its kind's shape gives it. */
export interface StoredChange {
  readonly kind: string;
  readonly [field: string]: unknown;
}

interface Shape {
  schema: z.ZodType<StoredChange>;
  /** Whether a change of the kind ever waits for a confirmation (an agent's creation never does). */
  waits: boolean;
}

const shapes = new Map<string, Shape>();

/** Called by each kind of change as it is registered; a second shape for one kind is a mistake. */
export function registerRecord(kind: string, shape: Shape): void {
  if (shapes.has(kind)) throw new Error(`A record shape for ${kind} is registered already.`);
  shapes.set(kind, shape);
}

function recordOf(waiting: boolean): z.ZodType<StoredChange, Record<string, unknown>> {
  return z.looseObject({ kind: z.string() }).transform((value, context): StoredChange => {
    const shape = shapes.get(value.kind);
    if (!shape || (waiting && !shape.waits)) {
      context.addIssue({
        code: 'custom',
        message: `no kind of change ${waiting ? 'that waits ' : ''}is ${value.kind}`,
      });
      return z.NEVER;
    }
    const parsed = shape.schema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) context.addIssue({ ...issue, code: 'custom' });
    return z.NEVER;
  });
}

/** A change waiting for confirmation. */
export const pendingChange = recordOf(true);
export type PendingChange = StoredChange;

/**
 * A change about to reach the provider, as its intent records it: a confirmed change, or one that needs no
 * confirmation (creating an agent, mapping a number that routes nowhere).
 */
export const changeIntent = recordOf(false);
export type ChangeIntent = StoredChange;
