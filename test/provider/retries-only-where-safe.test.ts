// Retries happen only where nothing can happen twice: reads, and 429s, which were not processed. Counted at
// the sandbox, so "not retried" means the provider saw exactly one request.
import { describe, expect, it, vi } from 'vitest';
import type { ProviderClient } from '../../src/provider/index.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { clientFor, counter, rejection, useSandboxAndClient } from './helpers.js';

let sandbox: Sandbox;
let client: ProviderClient;

useSandboxAndClient((started) => {
  ({ sandbox, client } = started);
});

async function agentNames(): Promise<string[]> {
  return (await client.listAgents()).map((agent) => agent.name);
}

describe('reads (GET)', () => {
  it('are retried after 503s and succeed', async () => {
    const lists = counter(sandbox, 'listAgents');
    sandbox.faults.inject('listAgents', { type: 'status', status: 503 }, { times: 2 });
    await expect(client.listAgents()).resolves.toEqual(expect.any(Array));
    expect(lists()).toBe(3);
  });

  it('are retried after a dropped connection and after a timeout', async () => {
    // The second attempt is held until the test ends, so it can only end by the client's own timeout; the timeout
    // need only be long enough for the third attempt's answer.
    const impatient = clientFor(sandbox, { timeoutMs: 500 });
    try {
      const searches = counter(sandbox, 'searchNumbers');
      sandbox.faults.inject('searchNumbers', { type: 'drop_connection' }, { times: 1 });
      sandbox.faults.inject('searchNumbers', { type: 'hold' }, { times: 1 });
      const page = await impatient.searchNumbers({ region: 'NL', limit: 3 });
      expect(page.data).toHaveLength(3);
      expect(searches()).toBe(3);
    } finally {
      await impatient.close();
    }
  });

  it('give up after maxAttempts and report the last failure', async () => {
    const purchases = counter(sandbox, 'listPurchasedNumbers');
    sandbox.faults.inject('listPurchasedNumbers', { type: 'status', status: 503 });
    const error = await rejection(client.listPurchasedNumbers());
    expect(error).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(purchases()).toBe(3);
  });

  it('are not retried after answers that would not change: 404, 401, a broken body', async () => {
    const deletes = counter(sandbox, 'listAgents');
    sandbox.faults.inject('listAgents', { type: 'status', status: 404 }, { times: 1 });
    sandbox.faults.inject('listAgents', { type: 'malformed_json' }, { times: 1 });
    expect((await rejection(client.listAgents())).kind).toBe('not_found');
    expect((await rejection(client.listAgents())).kind).toBe('bad_response');
    expect(deletes()).toBe(2);
  });
});

describe('changes (POST, DELETE)', () => {
  it('a POST is not retried after a 503', async () => {
    const creates = counter(sandbox, 'createAgent');
    sandbox.faults.inject('createAgent', { type: 'status', status: 503 }, { times: 1 });
    const error = await rejection(client.createAgent({ name: 'Once only', language: 'en-US' }));
    expect(error.kind).toBe('unavailable');
    expect(creates()).toBe(1);
    expect(await agentNames()).not.toContain('Once only');
  });

  it('a POST is not retried after a timeout, although the provider went on to make the change', async () => {
    const impatient = clientFor(sandbox, { timeoutMs: 500 });
    try {
      const creates = counter(sandbox, 'createAgent');
      // Held until the client has given up, then let through: the provider makes the change after the timeout.
      sandbox.faults.inject('createAgent', { type: 'hold' }, { times: 1 });
      const error = await rejection(impatient.createAgent({ name: 'Slow create', language: 'en-US' }));
      expect(error.kind).toBe('timeout');
      sandbox.faults.clear();
      await vi.waitFor(async () => expect(await agentNames()).toContain('Slow create'), { timeout: 15_000 });
      expect(creates()).toBe(1);
      // The sandbox finished the create after the client gave up: a retry would have made a twin.
      expect((await agentNames()).filter((name) => name === 'Slow create')).toHaveLength(1);
    } finally {
      await impatient.close();
    }
  });

  it('a DELETE is not retried after a dropped connection', async () => {
    const agent = await client.createAgent({ name: 'Kept', language: 'en-US' });
    const deletes = counter(sandbox, 'deleteAgent');
    sandbox.faults.inject('deleteAgent', { type: 'drop_connection' }, { times: 1 });
    expect((await rejection(client.deleteAgent(agent.id))).kind).toBe('network');
    expect(deletes()).toBe(1);
  });
});

describe('429 with Retry-After', () => {
  it('retries a POST, after waiting at least the Retry-After', async () => {
    const creates = counter(sandbox, 'createAgent');
    sandbox.faults.inject('createAgent', { type: 'rate_limit', retryAfterSeconds: 1 }, { times: 1 });
    const started = performance.now();
    const agent = await client.createAgent({ name: 'Patient', language: 'en-US' });
    const waited = performance.now() - started;
    expect(agent.status).toBe('active');
    expect(creates()).toBe(2);
    expect(waited).toBeGreaterThanOrEqual(990);
    expect((await agentNames()).filter((name) => name === 'Patient')).toHaveLength(1);
  });

  it('gives up at once when Retry-After exceeds the time budget', async () => {
    const budgeted = clientFor(sandbox, { retry: { maxTotalMs: 5_000 } });
    try {
      const creates = counter(sandbox, 'createAgent');
      sandbox.faults.inject('createAgent', { type: 'rate_limit', retryAfterSeconds: 30 });
      // Waiting 30 s would outlast the test itself: giving up is the only way to pass.
      const error = await rejection(budgeted.createAgent({ name: 'Too busy', language: 'en-US' }));
      expect(error).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 30_000 });
      expect(creates()).toBe(1);
    } finally {
      await budgeted.close();
    }
  });
});
