// The sandbox's eight endpoints, each with a curl line ready to paste, in an order that works top to bottom: create an
// agent, look around, buy a number, route it, then release it and delete the agent. Two shell variables carry ids
// from one answer to the next lines: AGENT_ID (from the create answer) and NUMBER_ID (from the buy answer).

import type { Endpoint } from '../provider/endpoints.js';
import * as endpoints from '../provider/endpoints.js';

interface Step {
  endpoint: Endpoint;
  what: string;
  /** A query to paste after the path. */
  query?: string;
  /** A JSON body, in a double-quoted shell word (so that variables expand). */
  body?: string;
}

/** `number` is one the sandbox still sells, for the buy and route lines. */
function steps(number: string): Step[] {
  return [
    {
      endpoint: endpoints.createAgent,
      what: 'create an agent (answers its id and its agent_token)',
      body: '{\\"name\\":\\"Front desk\\",\\"language\\":\\"en-US\\"}',
    },
    { endpoint: endpoints.listAgents, what: 'list agents' },
    {
      endpoint: endpoints.searchNumbers,
      query: '?region=US&limit=5',
      what: 'numbers for sale in a region, a page at a time',
    },
    {
      endpoint: endpoints.buyNumber,
      what: 'buy a number (answers its id)',
      body: `{\\"number\\":\\"${number}\\"}`,
    },
    { endpoint: endpoints.listPurchasedNumbers, what: 'numbers bought' },
    {
      endpoint: endpoints.mapNumber,
      what: 'route a number to an agent',
      body: `{\\"phone_number\\":\\"${number}\\",\\"route_type\\":\\"ai_agent\\",\\"agent_id\\":\\"$AGENT_ID\\"}`,
    },
    { endpoint: endpoints.releaseNumber, what: 'release a number' },
    { endpoint: endpoints.deleteAgent, what: 'delete an agent' },
  ];
}

/** A shell word in single quotes: nothing inside is expanded. */
function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The curl line for one endpoint. */
function curlLine(step: Step, baseUrl: string, apiKey: string): string {
  const parts = ['curl -sS'];
  if (step.endpoint.method !== 'GET') parts.push(`-X ${step.endpoint.method}`);
  // Ids as shell variables: {agent_id} is $AGENT_ID.
  const path = step.endpoint.path.replace(/\{(\w+)\}/g, (_, id: string) => `$${id.toUpperCase()}`);
  parts.push(`"${baseUrl}${path}${step.query ?? ''}"`, `-H ${quoted(`Authorization: Bearer ${apiKey}`)}`);
  if (step.body) parts.push(`-H 'Content-Type: application/json'`, `-d "${step.body}"`);
  return parts.join(' ');
}

/**
 * What `npm run sandbox` prints after its address: each endpoint, what it does, and its curl line; `forSale` is a
 * number the sandbox still sells, for the buy and route lines.
 */
export function endpointGuide(baseUrl: string, apiKey: string, forSale: string): string[] {
  return [
    'Endpoints, in an order that works top to bottom (paste each curl line into a shell):',
    ...steps(forSale).flatMap((step) => [
      // Every id is shown alike, whatever the declaration names it.
      `  ${step.endpoint.method.padEnd(6)} ${step.endpoint.path.replace(/\{\w+\}/g, '{id}').padEnd(28)} ${step.what}`,
      `    ${curlLine(step, baseUrl, apiKey)}`,
      ...(step.endpoint === endpoints.createAgent ? ['    then: AGENT_ID=<the "id" it answered>'] : []),
      ...(step.endpoint === endpoints.buyNumber ? ['    then: NUMBER_ID=<the "id" it answered>'] : []),
    ]),
  ];
}
