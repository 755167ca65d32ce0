// The sandbox's eight endpoints, each with a curl line ready to paste, in an order that works top to bottom: create an
// agent, look around, buy a number, route it, then release it and delete the agent. Two shell variables carry ids
// from one answer to the next lines: AGENT_ID (from the create answer) and NUMBER_ID (from the buy answer).
import type { RouteName } from './faults.js';

interface Endpoint {
  route: RouteName;
  method: 'GET' | 'POST' | 'DELETE';
  /** Path after the base URL, as the API documents it. */
  path: string;
  what: string;
  /** Path as pasted: ids as shell variables. */
  pasted: string;
  /** A JSON body, in a double-quoted shell word (so that variables expand). */
  body?: string;
}

/** `number` is one the sandbox still sells, for the buy and route lines. */
function endpoints(number: string): Endpoint[] {
  return [
    {
      route: 'createAgent',
      method: 'POST',
      path: '/ai-agents',
      pasted: '/ai-agents',
      what: 'create an agent (answers its id and its agent_token)',
      body: '{\\"name\\":\\"Front desk\\",\\"language\\":\\"en-US\\"}',
    },
    { route: 'listAgents', method: 'GET', path: '/ai-agents', pasted: '/ai-agents', what: 'list agents' },
    {
      route: 'searchNumbers',
      method: 'GET',
      path: '/list-available-numbers',
      pasted: '/list-available-numbers?region=US&limit=5',
      what: 'numbers for sale in a region, a page at a time',
    },
    {
      route: 'buyNumber',
      method: 'POST',
      path: '/buy-phone-number',
      pasted: '/buy-phone-number',
      what: 'buy a number (answers its id)',
      body: `{\\"number\\":\\"${number}\\"}`,
    },
    {
      route: 'listPurchasedNumbers',
      method: 'GET',
      path: '/purchased-phone-numbers',
      pasted: '/purchased-phone-numbers',
      what: 'numbers bought',
    },
    {
      route: 'mapNumber',
      method: 'POST',
      path: '/phone-number-routing',
      pasted: '/phone-number-routing',
      what: 'route a number to an agent',
      body: `{\\"phone_number\\":\\"${number}\\",\\"route_type\\":\\"ai_agent\\",\\"agent_id\\":\\"$AGENT_ID\\"}`,
    },
    {
      route: 'releaseNumber',
      method: 'DELETE',
      path: '/release-phone-number/{id}',
      pasted: '/release-phone-number/$NUMBER_ID',
      what: 'release a number',
    },
    {
      route: 'deleteAgent',
      method: 'DELETE',
      path: '/ai-agents/{id}',
      pasted: '/ai-agents/$AGENT_ID',
      what: 'delete an agent',
    },
  ];
}

/** A shell word in single quotes: nothing inside is expanded. */
function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The curl line for one endpoint. */
function curlLine(endpoint: Endpoint, baseUrl: string, apiKey: string): string {
  const parts = ['curl -sS'];
  if (endpoint.method !== 'GET') parts.push(`-X ${endpoint.method}`);
  parts.push(`"${baseUrl}${endpoint.pasted}"`, `-H ${quoted(`Authorization: Bearer ${apiKey}`)}`);
  if (endpoint.body) parts.push(`-H 'Content-Type: application/json'`, `-d "${endpoint.body}"`);
  return parts.join(' ');
}

/**
 * What `npm run sandbox` prints after its address: each endpoint, what it does, and its curl line; `forSale` is a
 * number the sandbox still sells, for the buy and route lines.
 */
export function endpointGuide(baseUrl: string, apiKey: string, forSale: string): string[] {
  return [
    'Endpoints, in an order that works top to bottom (paste each curl line into a shell):',
    ...endpoints(forSale).flatMap((endpoint) => [
      `  ${endpoint.method.padEnd(6)} ${endpoint.path.padEnd(28)} ${endpoint.what}`,
      `    ${curlLine(endpoint, baseUrl, apiKey)}`,
      ...(endpoint.route === 'createAgent' ? ['    then: AGENT_ID=<the "id" it answered>'] : []),
      ...(endpoint.route === 'buyNumber' ? ['    then: NUMBER_ID=<the "id" it answered>'] : []),
    ]),
  ];
}
