// The eight v1 endpoints of provider-api.md: request checks with the shared wire schemas, then the store.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  buyNumberRequest,
  createAgentRequest,
  MAX_PAGE_SIZE,
  mapNumberRequest,
  searchNumbersQuery,
} from '../provider/schemas.js';
import type { RouteName } from './faults.js';
import { ApiError, validate } from './http.js';
import type { SandboxStore } from './store.js';

const DEFAULT_PAGE_SIZE = 20;

// Query values arrive as text; the shared schema describes numbers.
const searchQuery = searchNumbersQuery.extend({ limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).optional() });

export interface RouteRequest {
  /** Path segments captured by the route's pattern. */
  params: string[];
  query: URLSearchParams;
  /** The parsed JSON body of a POST, unvalidated. */
  body: unknown;
  /** Whether the purchased list shows released numbers too (a fault switch). */
  releasedListed: boolean;
  /** Numbers sold to another account (a fault switch): no longer for sale here. */
  soldElsewhere: ReadonlySet<string>;
}

export interface Reply {
  status: number;
  body: unknown;
}

export interface Route {
  name: RouteName;
  method: 'GET' | 'POST' | 'DELETE';
  pattern: RegExp;
  handle(store: SandboxStore, request: RouteRequest): Reply;
}

const ok = (body: unknown): Reply => ({ status: 200, body });

function param(request: RouteRequest): string {
  return request.params[0] ?? '';
}

export const ROUTES: readonly Route[] = [
  {
    name: 'createAgent',
    method: 'POST',
    pattern: /^\/v1\/ai-agents$/,
    handle(store, request) {
      const { name, language } = validate(createAgentRequest, request.body);
      // Generated here and handed to the caller only: the store never sees it.
      const agentToken = `atk_${randomBytes(16).toString('hex')}`;
      return { status: 201, body: { ...store.createAgent(name, language), agent_token: agentToken } };
    },
  },
  {
    name: 'listAgents',
    method: 'GET',
    pattern: /^\/v1\/ai-agents$/,
    handle: (store) => ok({ data: store.listAgents() }),
  },
  {
    name: 'deleteAgent',
    method: 'DELETE',
    pattern: /^\/v1\/ai-agents\/([^/]+)$/,
    handle: (store, request) => ok(store.deleteAgent(param(request))),
  },
  {
    name: 'mapNumber',
    method: 'POST',
    pattern: /^\/v1\/phone-number-routing$/,
    handle(store, request) {
      const { phone_number, agent_id } = validate(mapNumberRequest, request.body);
      return ok(store.mapNumber(phone_number, agent_id));
    },
  },
  {
    name: 'searchNumbers',
    method: 'GET',
    pattern: /^\/v1\/list-available-numbers$/,
    handle(store, { query, soldElsewhere }) {
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
  },
  {
    name: 'buyNumber',
    method: 'POST',
    pattern: /^\/v1\/buy-phone-number$/,
    handle(store, request) {
      const { number } = validate(buyNumberRequest, request.body);
      if (request.soldElsewhere.has(number)) {
        throw new ApiError(409, 'number_unavailable', `${number} has been sold to another account`);
      }
      // 201 like agent creation: a purchase creates a resource with a new id.
      return { status: 201, body: store.buyNumber(number) };
    },
  },
  {
    name: 'listPurchasedNumbers',
    method: 'GET',
    pattern: /^\/v1\/purchased-phone-numbers$/,
    handle: (store, request) => ok({ data: store.listPurchasedNumbers({ released: request.releasedListed }) }),
  },
  {
    name: 'releaseNumber',
    method: 'DELETE',
    pattern: /^\/v1\/release-phone-number\/([^/]+)$/,
    handle: (store, request) => ok(store.releaseNumber(param(request))),
  },
];
