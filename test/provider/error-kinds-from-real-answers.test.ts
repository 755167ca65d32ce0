// Each ProviderError kind, produced by a real HTTP exchange with the sandbox (or a refused connection), and
// each error-body shape the client understands.
import { describe, expect, it } from 'vitest';
import type { ProviderClient } from '../../src/provider/index.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { clientFor, closedPortUrl, counter, rejection, useSandboxAndClient } from './helpers.js';

let sandbox: Sandbox;
let client: ProviderClient;

useSandboxAndClient((started) => {
  ({ sandbox, client } = started);
});

describe('answers from the provider', () => {
  it('auth: a wrong API key is refused with 401', async () => {
    const stranger = clientFor({ url: sandbox.url, apiKey: 'not-the-key' });
    try {
      const error = await rejection(stranger.listAgents());
      expect(error).toMatchObject({ kind: 'auth', status: 401, code: 'unauthorized' });
      expect(error.message).toContain('VOICE_API_KEY');
      expect(error.message).not.toContain('not-the-key');
    } finally {
      await stranger.close();
    }
  });

  it('not_found: deleting an agent that does not exist', async () => {
    const error = await rejection(client.deleteAgent('agt_missing'));
    expect(error).toMatchObject({ kind: 'not_found', status: 404 });
    expect(error.providerMessage).toContain('agt_missing');
  });

  it('conflict: buying a number that is already purchased', async () => {
    const [available] = (await client.searchNumbers({ region: 'CA', limit: 1 })).data;
    if (!available) throw new Error('the sandbox offers no CA number');
    await client.buyNumber(available.number);
    const error = await rejection(client.buyNumber(available.number));
    expect(error).toMatchObject({ kind: 'conflict', status: 409 });
  });

  it('conflict: mapping a number that was never bought', async () => {
    const agent = await client.createAgent({ name: 'Unmapped', language: 'en-GB' });
    const error = await rejection(client.mapNumber({ phone_number: '+442079460999', agent_id: agent.id }));
    expect(error).toMatchObject({ kind: 'conflict', status: 409 });
  });

  it('validation: a 400 from the provider, with its code and message', async () => {
    sandbox.faults.inject('createAgent', {
      type: 'status',
      status: 400,
      body: { error: 'unsupported_language', info: 'language xx-XX is not offered' },
    });
    const error = await rejection(client.createAgent({ name: 'Babel', language: 'en-US' }));
    expect(error).toMatchObject({
      kind: 'validation',
      status: 400,
      code: 'unsupported_language',
      providerMessage: 'language xx-XX is not offered',
    });
    expect(error.message).toContain('language xx-XX is not offered');
  });

  it('rate_limited: a 429 carries its Retry-After in milliseconds', async () => {
    const once = clientFor(sandbox, { retry: { maxAttempts: 1 } });
    try {
      sandbox.faults.inject('listAgents', { type: 'rate_limit', retryAfterSeconds: 7 });
      const error = await rejection(once.listAgents());
      expect(error).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 7_000 });
    } finally {
      await once.close();
    }
  });

  it('unavailable: a 503', async () => {
    sandbox.faults.inject('createAgent', { type: 'status', status: 503 });
    const error = await rejection(client.createAgent({ name: 'Down', language: 'en-US' }));
    expect(error).toMatchObject({ kind: 'unavailable', status: 503 });
  });

  it('timeout: no answer within timeoutMs', async () => {
    const impatient = clientFor(sandbox, { timeoutMs: 150 });
    try {
      sandbox.faults.inject('createAgent', { type: 'delay', ms: 1_000 });
      const error = await rejection(impatient.createAgent({ name: 'Slow', language: 'en-US' }));
      expect(error.kind).toBe('timeout');
      expect(error.status).toBeUndefined();
      expect(error.message).toContain('150 ms');
    } finally {
      await impatient.close();
    }
  });

  it('network: the connection is dropped without an answer', async () => {
    sandbox.faults.inject('createAgent', { type: 'drop_connection' });
    const error = await rejection(client.createAgent({ name: 'Dropped', language: 'en-US' }));
    expect(error.kind).toBe('network');
    expect(error.status).toBeUndefined();
  });

  it('network: nothing listens on the port', async () => {
    const nowhere = clientFor({ url: await closedPortUrl(), apiKey: 'any' }, { retry: { maxAttempts: 1 } });
    try {
      const error = await rejection(nowhere.listAgents());
      expect(error.kind).toBe('network');
      expect(error.message).toContain('ECONNREFUSED');
    } finally {
      await nowhere.close();
    }
  });

  it('bad_response: a 2xx body that is not JSON', async () => {
    sandbox.faults.inject('createAgent', { type: 'malformed_json' });
    const error = await rejection(client.createAgent({ name: 'Garbled', language: 'en-US' }));
    expect(error.kind).toBe('bad_response');
    expect(error.message).toContain('not JSON');
  });

  it.each([
    ['listAgents', 'data.0.id', () => client.listAgents()],
    ['createAgent', 'agent_token', () => client.createAgent({ name: 'Tokenless', language: 'en-US' })],
    ['searchNumbers', 'next_cursor', () => client.searchNumbers()],
  ] as const)('bad_response: a %s answer breaking the contract names the field %s', async (route, field, call) => {
    const calls = counter(sandbox, route);
    sandbox.faults.inject(route, { type: 'contract_violation' });
    const error = await rejection(call());
    expect(error).toMatchObject({ kind: 'bad_response', field });
    expect(error.message).toContain(`Field ${field}:`);
    // An answer did arrive: a broken one is not retried. (A broken answer to a buy, a release or a deletion is settled
    // by the lists: buy-reconciliation, lost-answers-are-verified.)
    expect(calls()).toBe(1);
  });

  it('bad_response: a status outside the error and success ranges', async () => {
    sandbox.faults.inject('deleteAgent', { type: 'status', status: 302, body: {} });
    const error = await rejection(client.deleteAgent('agt_any'));
    expect(error).toMatchObject({ kind: 'bad_response', status: 302 });
  });
});

describe('error-body shapes', () => {
  it('{error, info}: the sandbox’s own shape', async () => {
    const error = await rejection(client.releaseNumber('pn_missing'));
    expect(error.code).toBe('number_not_found');
    expect(error.providerMessage).toContain('pn_missing');
  });

  it('{errors: [{code, title, detail}]}', async () => {
    sandbox.faults.inject('mapNumber', {
      type: 'status',
      status: 422,
      body: { errors: [{ code: 'route_invalid', title: 'Invalid route', detail: 'agent cannot take calls' }] },
    });
    const error = await rejection(client.mapNumber({ phone_number: '+12125550100', agent_id: 'agt_1' }));
    expect(error).toMatchObject({
      kind: 'validation',
      status: 422,
      code: 'route_invalid',
      providerMessage: 'agent cannot take calls',
    });
  });

  it('{message}', async () => {
    sandbox.faults.inject('createAgent', { type: 'status', status: 500, body: { message: 'database unreachable' } });
    const error = await rejection(client.createAgent({ name: 'Plain', language: 'en-US' }));
    expect(error).toMatchObject({ kind: 'unavailable', status: 500, providerMessage: 'database unreachable' });
  });

  it('RFC 7807 problem details', async () => {
    sandbox.faults.inject('deleteAgent', {
      type: 'status',
      status: 403,
      body: {
        type: 'https://provider.example/problems/scope',
        title: 'Forbidden',
        detail: 'the key lacks the agents scope',
        status: 403,
      },
    });
    const error = await rejection(client.deleteAgent('agt_1'));
    expect(error).toMatchObject({
      kind: 'auth',
      status: 403,
      code: 'https://provider.example/problems/scope',
      providerMessage: 'the key lacks the agents scope',
    });
  });

  it('anything else: the status is kept with a short one-line excerpt of the body', async () => {
    const page = `<html>\n<head><title>502 Bad Gateway</title></head>\n<body>${'<p>upstream failed</p>\n'.repeat(40)}</body></html>`;
    sandbox.faults.inject('createAgent', { type: 'status', status: 502, rawBody: page });
    const error = await rejection(client.createAgent({ name: 'Proxied', language: 'en-US' }));
    expect(error).toMatchObject({ kind: 'unavailable', status: 502 });
    expect(error.providerMessage).toMatch(/^<html> <head><title>502 Bad Gateway<\/title>/);
    expect(error.providerMessage).not.toContain('\n');
    expect(error.providerMessage?.length).toBeLessThanOrEqual(201);
  });
});
