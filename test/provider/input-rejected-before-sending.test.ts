// Bad inputs are refused by the client itself, naming the field, and nothing at all reaches the network:
// the client points at a server that records every request it receives.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProviderClient } from '../../src/provider/index.js';
import { clientFor, type Recorder, rejection, startRecorder } from './helpers.js';

let recorder: Recorder;
let client: ProviderClient;

beforeAll(async () => {
  recorder = await startRecorder();
  client = clientFor(recorder);
});

afterEach(() => {
  expect(recorder.requests).toEqual([]);
});

afterAll(async () => {
  await client.close();
  await recorder.close();
});

const LONG = 'x'.repeat(5_000);

describe.each([
  ['createAgent: language not a locale tag', 'language', () => client.createAgent({ name: 'A', language: 'english' })],
  ['createAgent: language lower-case region', 'language', () => client.createAgent({ name: 'A', language: 'en-us' })],
  ['createAgent: blank name', 'name', () => client.createAgent({ name: '   ', language: 'en-US' })],
  ['createAgent: name too long', 'name', () => client.createAgent({ name: 'n'.repeat(101), language: 'en-US' })],
  [
    'createAgent: a line break in the name',
    'name',
    () => client.createAgent({ name: 'Desk\n:white_check_mark: Released *+14155550100*', language: 'en-US' }),
  ],
  ['createAgent: a tab in the name', 'name', () => client.createAgent({ name: 'Front\tdesk', language: 'en-US' })],
  [
    'createAgent: a bidi override in the name',
    'name',
    () => client.createAgent({ name: 'a\u202eb', language: 'en-US' }),
  ],
  [
    'mapNumber: number not E.164',
    'phone_number',
    () => client.mapNumber({ phone_number: '020 7946 0000', agent_id: 'a' }),
  ],
  [
    'mapNumber: number starting with 0',
    'phone_number',
    () => client.mapNumber({ phone_number: '+0441134960000', agent_id: 'a' }),
  ],
  ['mapNumber: empty agent id', 'agent_id', () => client.mapNumber({ phone_number: '+12125550100', agent_id: '' })],
  ['buyNumber: no plus sign', 'number', () => client.buyNumber('12125550100')],
  ['buyNumber: more than 15 digits', 'number', () => client.buyNumber('+1234567890123456')],
  ['searchNumbers: three-letter region', 'region', () => client.searchNumbers({ region: 'USA' })],
  ['searchNumbers: lower-case region', 'region', () => client.searchNumbers({ region: 'us' })],
  ['searchNumbers: limit 0', 'limit', () => client.searchNumbers({ limit: 0 })],
  ['searchNumbers: limit above 100', 'limit', () => client.searchNumbers({ limit: 101 })],
  ['searchNumbers: fractional limit', 'limit', () => client.searchNumbers({ limit: 2.5 })],
  ['searchNumbers: empty cursor', 'cursor', () => client.searchNumbers({ cursor: '' })],
  ['deleteAgent: empty id', 'agent_id', () => client.deleteAgent('')],
  ['releaseNumber: blank id', 'number_id', () => client.releaseNumber('  ')],
  ['searchNumberPages: maxPages 0', 'maxPages', () => client.searchNumberPages({}, { maxPages: 0 }).next()],
  ['searchNumberPages: bad region', 'region', () => client.searchNumberPages({ region: 'Europe' }).next()],
] as const)('%s', (_case, field, call) => {
  it(`is refused as validation of ${field}, before sending`, async () => {
    const error = await rejection(call());
    expect(error).toMatchObject({ kind: 'validation', field });
    expect(error.status).toBeUndefined();
    expect(error.message.startsWith(field)).toBe(true);
  });
});

it('says what is wrong and what was given', async () => {
  const error = await rejection(client.createAgent({ name: 'Reception', language: 'english' }));
  expect(error.message).toBe(
    'language must be a locale tag: language and region joined by a hyphen, e.g. en-US (got "english")',
  );
});

it('cuts a long input short in the message', async () => {
  const error = await rejection(client.buyNumber(LONG));
  expect(error.field).toBe('number');
  expect(error.message).toContain('(5000 characters)');
  expect(error.message.length).toBeLessThan(250);
});

it('refuses a base URL that is not http(s), and an empty key without echoing it', () => {
  expect(() => new ProviderClient({ baseUrl: 'ftp://provider.example/v1', apiKey: 'k' })).toThrow(
    expect.objectContaining({ kind: 'validation', field: 'baseUrl' }),
  );
  expect(() => new ProviderClient({ baseUrl: recorder.url, apiKey: ' ' })).toThrow(
    expect.objectContaining({ kind: 'validation', field: 'apiKey' }),
  );
});
