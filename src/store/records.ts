// The records the store keeps as JSON. The store does not know the kinds of change: each registers its shapes here
// (ops/kinds/), and a record is parsed with its kind's shape where it is read, so that all above gets it checked.
import { z } from 'zod';
import { AUDIT_SOURCES } from './audit.js';

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
const bulkRequests = new Map<string, z.ZodType<StoredChange>>();

/** A second shape for one kind is a mistake. Returns what removes them again. */
export function registerRecord(kind: string, shape: Shape, bulkRequest?: z.ZodType<StoredChange>): () => void {
  if (shapes.has(kind)) throw new Error(`A record shape for ${kind} is registered already.`);
  shapes.set(kind, shape);
  if (bulkRequest) bulkRequests.set(kind, bulkRequest);
  return () => {
    shapes.delete(kind);
    bulkRequests.delete(kind);
  };
}

/** Parsed with the shape its kind registered; `what` names the record in the error. */
function byKind(what: string, shapeOf: (kind: string) => z.ZodType<StoredChange> | undefined) {
  return z.looseObject({ kind: z.string() }).transform((value, context): StoredChange => {
    const shape = shapeOf(value.kind);
    if (!shape) {
      context.addIssue({ code: 'custom', message: `no kind of change has ${what} ${value.kind}` });
      return z.NEVER;
    }
    const parsed = shape.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) context.addIssue({ ...issue, code: 'custom' });
    return z.NEVER;
  });
}

/** A change waiting for confirmation. */
export const pendingChange = byKind('a confirmation of kind', (kind) => {
  const shape = shapes.get(kind);
  return shape?.waits ? shape.schema : undefined;
});
export type PendingChange = StoredChange;

/** A change about to reach the provider: confirmed, or needing no confirmation (creating an agent, say). */
export const changeIntent = byKind('the kind', (kind) => shapes.get(kind)?.schema);
export type ChangeIntent = StoredChange;

/** A bulk change as it was asked for (its kind's bulk request): stored with its plan, to be planned again. */
export const storedBulkRequest = byKind('a bulk request of kind', (kind) => bulkRequests.get(kind));

/** A bulk plan, as stored with its batch. */
export const storedPlan = z.object({
  request: storedBulkRequest,
  agent: z.object({ id: z.string(), name: z.string() }).optional(),
  /** Items that change something; re-routes among them (a map), or numbers routed to an agent (a release). */
  totals: z.object({ change: z.number(), taken: z.number(), unchanged: z.number() }),
  /** Numbers left out because another team owns them, or the agent they would route to. */
  leftOut: z.array(z.object({ number: z.string(), owner: z.string() })).optional(),
  /** Numbers left out because they, or the agent they would route to, are outside the binding of its channel. */
  outsideScope: z.array(z.string()).optional(),
});
export type StoredPlan = z.infer<typeof storedPlan>;

/** A bulk plan waiting for approval as one request: its batch, and what the request for approval says of it. */
export const batchApproval = z.object({
  kind: z.literal('batch'),
  batchId: z.string(),
  bulk: z.string().refine((kind) => bulkRequests.has(kind), 'not a kind of change asked for in bulk'),
  /** Items it changes, and of those the ones taken from an agent (a re-route, a release of a routed number). */
  total: z.number(),
  taken: z.number(),
  agent: z.object({ id: z.string(), name: z.string() }).optional(),
});
export type BatchApproval = z.infer<typeof batchApproval>;

/** What waits for approval: one change, or a bulk plan as a whole. */
export const approvableChange = z.union([pendingChange, batchApproval]);
export type ApprovableChange = z.infer<typeof approvableChange>;

/**
 * The Workflow Builder step a change was asked for by: who Slack says ran it, the channel the builder named (for
 * private answers), and who confirmed with their own click where Slack did not vouch for the person named.
 */
export const stepOrigin = z.object({
  workflowExecutionId: z.string(),
  executionId: z.string(),
  ranBy: z.string().optional(),
  namedChannelId: z.string().optional(),
  confirmedBy: z.string().optional(),
});
export type StepOrigin = z.infer<typeof stepOrigin>;

/** Who asked for a change that outlives its request (an intent, an approval, a batch): no reply address. */
export const storedActor = z.object({
  userId: z.string(),
  userName: z.string().optional(),
  teamId: z.string().optional(),
  enterpriseId: z.string().optional(),
  channelId: z.string().optional(),
  source: z.enum(AUDIT_SOURCES),
  /** The Workflow Builder step the change was asked for by, when it was. */
  step: stepOrigin.optional(),
});
export type StoredActor = z.infer<typeof storedActor>;
