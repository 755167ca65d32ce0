// An endpoint the provider's eight do not include, declared and registered here alone: the client sends it by its
// declaration, the sandbox serves it with its handler and keeps its state per sandbox, and its fault switch is its name.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { endpoint } from '../../src/provider/endpoints.js';
import type { ProviderClient } from '../../src/provider/index.js';
import { ApiError, registerEndpoint, type SandboxRequest } from '../../src/sandbox/routes.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { clientFor, counter, rejection, useSandboxAndClient } from './helpers.js';

const tagged = z.object({ number_id: z.string(), tag: z.string() });
const tagNumber = endpoint({
  name: 'tagNumber',
  method: 'POST',
  path: '/number-tags/{number_id}',
  body: z.object({ tag: z.string().min(1, 'must not be empty') }),
  response: tagged,
});
const readTag = endpoint({ name: 'readTag', method: 'GET', path: '/number-tags/{number_id}', response: tagged });

const tagsIn = (request: SandboxRequest<string, unknown>) =>
  request.kept('number-tags', () => new Map<string, string>());
const forgetTagNumber = registerEndpoint(tagNumber, (request) => {
  tagsIn(request).set(request.ids.number_id, request.body.tag);
  return { status: 201, body: { number_id: request.ids.number_id, tag: request.body.tag } };
});
const forgetReadTag = registerEndpoint(readTag, (request) => {
  const tag = tagsIn(request).get(request.ids.number_id);
  if (tag === undefined) throw new ApiError(404, 'tag_not_found', `${request.ids.number_id} has no tag`);
  return { status: 200, body: { number_id: request.ids.number_id, tag } };
});
afterAll(() => {
  forgetTagNumber();
  forgetReadTag();
});

let sandbox: Sandbox;
let client: ProviderClient;
useSandboxAndClient((started) => {
  ({ sandbox, client } = started);
});

let other: Sandbox;
beforeAll(async () => {
  other = await startSandbox({ port: 0 });
});
afterAll(() => other.close());

it('is sent by the client, checked both ways, and served and kept by the sandbox it reached alone', async () => {
  expect(await client.call(tagNumber, { ids: { number_id: 'pn_1' }, body: { tag: 'front desk' } })).toEqual({
    number_id: 'pn_1',
    tag: 'front desk',
  });
  expect(await client.call(readTag, { ids: { number_id: 'pn_1' } })).toEqual({ number_id: 'pn_1', tag: 'front desk' });
  expect(sandbox.requestCount('tagNumber')).toBe(1);

  const elsewhere = clientFor(other);
  try {
    expect(await rejection(elsewhere.call(readTag, { ids: { number_id: 'pn_1' } }))).toMatchObject({
      kind: 'not_found',
      code: 'tag_not_found',
    });
  } finally {
    await elsewhere.close();
  }
});

it('refuses its input before anything is sent', async () => {
  const sent = counter(sandbox, 'tagNumber');
  const emptyId = await rejection(client.call(tagNumber, { ids: { number_id: ' ' }, body: { tag: 'x' } }));
  expect(emptyId).toMatchObject({ kind: 'validation', field: 'number_id' });
  const emptyTag = await rejection(client.call(tagNumber, { ids: { number_id: 'pn_1' }, body: { tag: '' } }));
  expect(emptyTag).toMatchObject({ kind: 'validation', field: 'tag' });
  expect(sent()).toBe(0);
});

it('is faulted by its name like the eight, its broken answer outside the contract', async () => {
  sandbox.faults.inject('tagNumber', { type: 'status', status: 503 }, { times: 1 });
  sandbox.faults.inject('readTag', { type: 'contract_violation' }, { times: 1 });
  const refused = await rejection(client.call(tagNumber, { ids: { number_id: 'pn_2' }, body: { tag: 'x' } }));
  expect(refused).toMatchObject({ kind: 'unavailable', status: 503 });
  expect(await rejection(client.call(readTag, { ids: { number_id: 'pn_1' } }))).toMatchObject({
    kind: 'bad_response',
  });
});

it('cannot be served twice, under its name or its method and path, and is gone once removed', async () => {
  expect(() =>
    registerEndpoint({ ...readTag, name: 'readTagAgain' }, () => ({ status: 200, body: { number_id: '', tag: '' } })),
  ).toThrow(/serves readTagAgain or GET \/number-tags\/\{number_id\} already/);
  const passing = endpoint({ name: 'passing', method: 'GET', path: '/passing', response: z.object({}) });
  const forget = registerEndpoint(passing, () => ({ status: 200, body: {} }));
  expect(() => registerEndpoint(passing, () => ({ status: 200, body: {} }))).toThrow(/already/);
  expect(await client.call(passing, {})).toEqual({});
  forget();
  expect(await rejection(client.call(passing, {}))).toMatchObject({ kind: 'not_found', status: 404 });
  expect(() => sandbox.faults.inject('passing', { type: 'drop_connection' })).toThrow(/endpoint the sandbox serves/);
});
