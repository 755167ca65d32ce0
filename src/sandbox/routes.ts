// What the sandbox serves: each endpoint declared in provider/endpoints.ts with the handler that answers it. The eight
// of provider-api.md are registered here, beside the store they act on; an endpoint declared elsewhere is registered
// the same way, with its handler, and its state kept by the sandbox under a key of its own.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Endpoint, PathIds } from '../provider/endpoints.js';
import * as endpoints from '../provider/endpoints.js';
import { MAX_PAGE_SIZE, searchNumbersQuery } from '../provider/schemas.js';
import { ApiError, validate } from './http.js';
import type { SandboxStore } from './store.js';

export { ApiError } from './http.js';

const DEFAULT_PAGE_SIZE = 20;

// Query values arrive as text; the shared schema describes numbers.
const searchQuery = searchNumbersQuery.extend({ limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).optional() });

export interface SandboxRequest<Path extends string, Body> {
  /** The path's ids, by the names in the declaration's braces, as sent. */
  ids: PathIds<Path>;
  query: URLSearchParams;
  /** The JSON body, checked against the declaration's schema. */
  body: Body;
  store: SandboxStore;
  /** Whether the purchased list shows released numbers too (a fault switch). */
  releasedListed: boolean;
  /** Numbers sold to another account (a fault switch): no longer for sale here. */
  soldElsewhere: ReadonlySet<string>;
  /** This sandbox's state under `key`, made by `create` when first asked for: what an added endpoint keeps. */
  kept<T>(key: string, create: () => T): T;
}

/** A success; a refusal is thrown as an ApiError. */
export type Reply<Response> = { status: number; body: Response };

type Handler<Path extends string, Body, Response> = (request: SandboxRequest<Path, Body>) => Reply<Response>;

export interface Route {
  endpoint: Endpoint;
  /** The endpoint's, matched as a control route's is. */
  method: Endpoint['method'];
  /** Matches the endpoint's path under /v1, capturing its ids by name. */
  pattern: RegExp;
  handle: Handler<string, unknown, unknown>;
  /** A plausible answer that breaks the response's contract, for the `contract_violation` fault. */
  violation: unknown;
}

const routes = new Map<string, Route>();

function patternOf(path: string): RegExp {
  const segments = path.split('/').map((segment) => {
    const id = /^\{(\w+)\}$/.exec(segment)?.[1];
    return id ? `(?<${id}>[^/]+)` : segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  });
  return new RegExp(`^/v1${segments.join('/')}$`);
}

/**
 * Serves an endpoint with `handle`; a name, or a method and path, served twice is a mistake. `violation` defaults to an
 * array, which no answer of this API is. Returns what stops serving it, so that a test that adds an endpoint leaves the
 * sandbox as it found it for the files after it in its worker.
 */
export function registerEndpoint<Path extends string, Body, Query, Response>(
  endpoint: Endpoint<string, Path, Body, Query, Response>,
  handle: Handler<Path, Body, Response>,
  violation: unknown = [],
): () => void {
  const { name, method, path } = endpoint;
  const taken = [...routes.values()].some((route) => route.method === method && route.endpoint.path === path);
  if (routes.has(name) || taken) throw new Error(`The sandbox serves ${name} or ${method} ${path} already.`);
  // The router hands each handler only its own endpoint's request, its body checked against the declared schema.
  routes.set(name, {
    endpoint,
    method,
    pattern: patternOf(path),
    handle: handle as Handler<string, unknown, unknown>,
    violation,
  });
  return () => routes.delete(name);
}

/** The endpoints served, in the order they were registered. */
export const servedRoutes = (): Route[] => [...routes.values()];
export const isServed = (name: string): boolean => routes.has(name);

const ok = <T>(body: T): Reply<T> => ({ status: 200, body });

registerEndpoint(
  endpoints.createAgent,
  ({ body, store }) => {
    // Generated here and handed to the caller only: the store never sees it.
    const agentToken = `atk_${randomBytes(16).toString('hex')}`;
    return { status: 201, body: { ...store.createAgent(body.name, body.language), agent_token: agentToken } };
  },
  { id: 'agt_violation', name: 'Missing token', status: 'active' },
);
registerEndpoint(endpoints.listAgents, ({ store }) => ok({ data: store.listAgents() }), {
  data: [{ id: 42, name: 'Numeric id', status: 'active' }],
});
registerEndpoint(endpoints.deleteAgent, ({ ids, store }) => ok(store.deleteAgent(ids.agent_id)), {
  status: 'deleted',
});
registerEndpoint(endpoints.mapNumber, ({ body, store }) => ok(store.mapNumber(body.phone_number, body.agent_id)), {
  phone_number: '+12125550100',
  route_type: 'ai_agent',
  status: 'connected',
});
registerEndpoint(
  endpoints.searchNumbers,
  ({ query, store, soldElsewhere }) => {
    const { region, cursor, limit } = validate(searchQuery, {
      region: query.get('region') ?? undefined,
      cursor: query.get('cursor') ?? undefined,
      limit: query.get('limit') ?? undefined,
    });
    const taken = store.purchasedNumberSet();
    const page = store.inventory.search(
      { region, cursor, limit: limit ?? DEFAULT_PAGE_SIZE },
      (number) => taken.has(number) || soldElsewhere.has(number),
    );
    if (page === 'bad_cursor') throw new ApiError(400, 'invalid_cursor', 'cursor: not a next_cursor this API issued');
    return ok(page);
  },
  { data: [] },
);
registerEndpoint(
  endpoints.buyNumber,
  ({ body: { number }, store, soldElsewhere }) => {
    if (soldElsewhere.has(number)) {
      throw new ApiError(409, 'number_unavailable', `${number} has been sold to another account`);
    }
    // 201 like agent creation: a purchase creates a resource with a new id.
    return { status: 201, body: store.buyNumber(number) };
  },
  { id: 'pn_violation', number: 12125550100, status: 'active' },
);
registerEndpoint(
  endpoints.listPurchasedNumbers,
  ({ store, releasedListed }) => ok({ data: store.listPurchasedNumbers({ released: releasedListed }) }),
  { items: [] },
);
registerEndpoint(endpoints.releaseNumber, ({ ids, store }) => ok(store.releaseNumber(ids.number_id)), {
  id: null,
  status: 'released',
});
