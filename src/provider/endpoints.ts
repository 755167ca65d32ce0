// The provider's endpoints, each declared once: its name, method, path and the schemas of what goes and what comes
// back. The client sends by these declarations and the sandbox routes by them, so the two cannot drift apart; an
// endpoint declared elsewhere (and served by the sandbox through its registry) is sent the same way.
import type { z } from 'zod';
import * as schemas from './schemas.js';

/** The ids a path takes, by the names in its braces: `/ai-agents/{agent_id}` takes `agent_id`. */
export type PathIds<Path extends string> = Path extends `${string}{${infer Id}}${infer Rest}`
  ? { [K in Id]: string } & PathIds<Rest>
  : unknown;

export interface Endpoint<
  Name extends string = string,
  Path extends string = string,
  Body = unknown,
  Query = unknown,
  Response = unknown,
> {
  /** What fault switches and request counts call it. */
  readonly name: Name;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** After the base URL; each `{id}` is one path segment. */
  readonly path: Path;
  /** The JSON body sent; absent when none is. */
  readonly body?: z.ZodType<Body>;
  /** The query sent; absent when none is. */
  readonly query?: z.ZodType<Query>;
  readonly response: z.ZodType<Response>;
  /** The items of a `{ data: [...] }` answer that may be long: read a slice at a time (see sliced-list.ts). */
  readonly items?: z.ZodType;
}

/** Declares an endpoint; whatever it leaves out (a body, a query) is typed as never sent. */
export const endpoint = <
  const Name extends string,
  const Path extends string,
  Body = undefined,
  Query = undefined,
  Response = unknown,
>(
  declared: Endpoint<Name, Path, Body, Query, Response>,
): Endpoint<Name, Path, Body, Query, Response> => declared;

export const createAgent = endpoint({
  name: 'createAgent',
  method: 'POST',
  path: '/ai-agents',
  body: schemas.createAgentRequest,
  response: schemas.createdAgent,
});
export const listAgents = endpoint({
  name: 'listAgents',
  method: 'GET',
  path: '/ai-agents',
  response: schemas.agentList,
  items: schemas.agent,
});
export const deleteAgent = endpoint({
  name: 'deleteAgent',
  method: 'DELETE',
  path: '/ai-agents/{agent_id}',
  response: schemas.deletedAgent,
});
export const mapNumber = endpoint({
  name: 'mapNumber',
  method: 'POST',
  path: '/phone-number-routing',
  body: schemas.mapNumberRequest,
  response: schemas.routing,
});
export const searchNumbers = endpoint({
  name: 'searchNumbers',
  method: 'GET',
  path: '/list-available-numbers',
  query: schemas.searchNumbersQuery,
  response: schemas.availableNumberPage,
});
export const buyNumber = endpoint({
  name: 'buyNumber',
  method: 'POST',
  path: '/buy-phone-number',
  body: schemas.buyNumberRequest,
  response: schemas.purchasedNumber,
});
export const listPurchasedNumbers = endpoint({
  name: 'listPurchasedNumbers',
  method: 'GET',
  path: '/purchased-phone-numbers',
  response: schemas.purchasedNumberList,
  items: schemas.purchasedNumber,
});
export const releaseNumber = endpoint({
  name: 'releaseNumber',
  method: 'DELETE',
  path: '/release-phone-number/{number_id}',
  response: schemas.releasedNumber,
});

/** The eight endpoints of provider-api.md. */
export const PROVIDER_ENDPOINTS = [
  createAgent,
  listAgents,
  deleteAgent,
  mapNumber,
  searchNumbers,
  buyNumber,
  listPurchasedNumbers,
  releaseNumber,
] as const;
export type ProviderEndpointName = (typeof PROVIDER_ENDPOINTS)[number]['name'];
