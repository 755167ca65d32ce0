// Switches that make the sandbox slow or failing, so tests can rehearse what a real provider does on a bad day.
// The in-process API and the /_control endpoint share one switchboard and one set of schemas.
import { z } from 'zod';
import { PROVIDER_ENDPOINTS, type ProviderEndpointName } from '../provider/endpoints.js';
import { isServed } from './routes.js';

/** The eight endpoints of provider-api.md, by name. */
export const ROUTE_NAMES: readonly ProviderEndpointName[] = PROVIDER_ENDPOINTS.map((endpoint) => endpoint.name);
export type RouteName = ProviderEndpointName;
/** An endpoint the sandbox serves, by name: one of the eight, or one registered beside them. */
export type ServedName = RouteName | (string & {});

const MAX_WAIT_MS = 600_000;
const waitMs = z.number().int().min(0).max(MAX_WAIT_MS);

const faultSchema = z.discriminatedUnion('type', [
  // Answer with this status and JSON body (or raw text); nothing happens.
  z.object({
    type: z.literal('status'),
    status: z.number().int().min(200).max(599),
    body: z.unknown().optional(),
    rawBody: z.string().optional(),
  }),
  // 429 with Retry-After; nothing happens.
  z.object({ type: z.literal('rate_limit'), retryAfterSeconds: z.number().int().min(0).max(86_400) }),
  // 200 with a body that is not JSON; nothing happens.
  z.object({ type: z.literal('malformed_json') }),
  // 200 with JSON that breaks the route's response contract; nothing happens.
  z.object({ type: z.literal('contract_violation') }),
  // Socket destroyed without an answer; nothing happens.
  z.object({ type: z.literal('drop_connection') }),
  // Wait, then handle normally: long enough and the client gives up although the change is made.
  z.object({ type: z.literal('delay'), ms: waitMs }),
  // The change is made, then the socket is destroyed: the client cannot know whether it happened.
  z.object({ type: z.literal('lose_answer') }),
  // Wait until the faults are cleared, then handle normally: a provider that hangs for exactly as long as a test
  // needs, so that what happens meanwhile is proven by order rather than by a race against a clock.
  z.object({ type: z.literal('hold') }),
]);
export type Fault = z.infer<typeof faultSchema>;

export const faultInjection = z.object({
  route: z.string().refine(isServed, 'must name an endpoint the sandbox serves'),
  fault: faultSchema,
  times: z.number().int().min(1).optional(),
});
export const latencySetting = z.object({ ms: waitMs });
export const releasedListing = z.object({ on: z.boolean() });
export const soldElsewhere = z.object({ number: z.string() });

interface Pending {
  fault: Fault;
  /** Requests left to fault; undefined means until cleared. */
  remaining?: number;
}

export class FaultSwitchboard {
  latencyMs: number;
  releasedListed = false;
  readonly soldElsewhere = new Set<string>();
  private readonly pending = new Map<ServedName, Pending[]>();
  private releaseHeld = new AbortController();

  constructor(latencyMs = 0) {
    this.latencyMs = waitMs.parse(latencyMs);
  }

  setLatency(ms: number): void {
    this.latencyMs = waitMs.parse(ms);
  }

  /** Next `times` (default: unlimited until cleared) requests to `route` get this fault, in order of injection. */
  inject(route: ServedName, fault: Fault, options: { times?: number } = {}): void {
    const { fault: checked, times } = faultInjection.parse({ route, fault, times: options.times });
    const queue = this.pending.get(route) ?? [];
    queue.push({ fault: checked, remaining: times });
    this.pending.set(route, queue);
  }

  /**
   * Lists released numbers in the purchased list, with status `released`, as a real provider may, until cleared (the
   * spec does not say that a released number leaves the list).
   */
  listReleased(on: boolean): void {
    this.releasedListed = on;
  }

  /** Sells a number to another account, as other customers may at any moment, until cleared. */
  sellElsewhere(number: string): void {
    this.soldElsewhere.add(soldElsewhere.parse({ number }).number);
  }

  /** Removes every switch, and lets every held request go on. */
  clear(): void {
    this.pending.clear();
    this.soldElsewhere.clear();
    this.latencyMs = 0;
    this.releasedListed = false;
    this.releaseHeld.abort();
    this.releaseHeld = new AbortController();
  }

  /** Aborted when the faults are next cleared: what a held request waits for. */
  get released(): AbortSignal {
    return this.releaseHeld.signal;
  }

  /** The fault for the request now arriving at `route`, if any; uses up one of its `times`. */
  take(route: ServedName): Fault | undefined {
    const queue = this.pending.get(route);
    const head = queue?.[0];
    if (!queue || !head) return undefined;
    if (head.remaining !== undefined) {
      head.remaining -= 1;
      if (head.remaining === 0) queue.shift();
    }
    return head.fault;
  }
}

/** The switches a test or the control routes throw. */
export type SandboxFaults = Pick<
  FaultSwitchboard,
  'setLatency' | 'inject' | 'listReleased' | 'sellElsewhere' | 'clear'
>;

/** Not JSON, though labelled so: a truncated document, as a proxy cutting a response short would leave it. */
export const MALFORMED_BODY = '{"data": [{"id": "trunc';
