import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { MAX_BODY_BYTES } from '../../src/sandbox/http.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { expectError, provider, useSandbox } from './helpers.js';

const api = useSandbox({ apiKey: 'the-right-key' });

describe('sandbox authentication', () => {
  it('answers 401 without a key, with a wrong key or with another scheme, and changes nothing', async () => {
    const body = { name: 'Intruder', language: 'en-US' };
    for (const key of [null, 'the-wrong-key', '']) {
      const answer = await api().call('POST', '/v1/ai-agents', { body, key });
      expectError(answer, 401, 'unauthorized');
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    }
    const basic = await fetch(`${api().sandbox.url}/ai-agents`, { headers: { authorization: 'Basic the-right-key' } });
    expect(basic.status).toBe(401);
    expect(await api().listAgents()).toEqual([]);
  });

  it('checks the key on every endpoint and the control endpoint, and never echoes it', async () => {
    const paths: [string, string][] = [
      ['GET', '/v1/ai-agents'],
      ['DELETE', '/v1/ai-agents/agt_x'],
      ['POST', '/v1/phone-number-routing'],
      ['GET', '/v1/list-available-numbers'],
      ['POST', '/v1/buy-phone-number'],
      ['GET', '/v1/purchased-phone-numbers'],
      ['DELETE', '/v1/release-phone-number/pn_x'],
      ['DELETE', '/_control/faults'],
      ['GET', '/v1/no-such-endpoint'],
    ];
    for (const [method, path] of paths) {
      const answer = await api().call(method, path, { key: 'guess-key' });
      expectError(answer, 401, 'unauthorized');
      expect(answer.text).not.toContain('guess-key');
    }
  });
});

describe('sandbox protocol errors', () => {
  it('answers 404 not_found for an unknown path and 405 with Allow for a wrong method', async () => {
    expectError(await api().call('GET', '/v1/numbers'), 404, 'not_found');
    expectError(await api().call('GET', '/v2/ai-agents'), 404, 'not_found');
    const wrongMethod = await api().call('PUT', '/v1/ai-agents', { body: {} });
    expectError(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.headers.get('allow')).toBe('POST, GET');
    expect((await api().call('GET', '/v1/release-phone-number/pn_x')).headers.get('allow')).toBe('DELETE');
  });

  it('answers 415 for a body not declared as JSON and 400 for a body that is not JSON', async () => {
    const body = JSON.stringify({ name: 'Plain', language: 'en-US' });
    const noType = await api().call('POST', '/v1/ai-agents', { rawBody: body, contentType: null });
    expectError(noType, 415, 'unsupported_media_type');
    const textType = await api().call('POST', '/v1/ai-agents', { rawBody: body, contentType: 'text/plain' });
    expectError(textType, 415, 'unsupported_media_type');
    const withCharset = await api().call('POST', '/v1/ai-agents', {
      rawBody: body,
      contentType: 'application/json; charset=utf-8',
    });
    expect(withCharset.status).toBe(201);
    const broken = await api().call('POST', '/v1/ai-agents', {
      rawBody: '{"name": "Half',
      contentType: 'application/json',
    });
    expectError(broken, 400, 'invalid_json');
    expect(await api().listAgents()).toHaveLength(1);
  });

  it('answers 413 for a body over the size limit', async () => {
    const name = 'x'.repeat(MAX_BODY_BYTES);
    expectError(
      await api().call('POST', '/v1/ai-agents', { body: { name, language: 'en-US' } }),
      413,
      'payload_too_large',
    );
    expect((await api().listAgents()).length).toBe(0);
  });

  it('counts requests per route, whatever their outcome', async () => {
    await api().createAgent();
    await api().call('POST', '/v1/ai-agents', { body: {} });
    await api().call('GET', '/v1/ai-agents', { key: null });
    await api().search();
    expect(api().sandbox.requestCount('createAgent')).toBe(2);
    expect(api().sandbox.requestCount('listAgents')).toBe(1);
    expect(api().sandbox.requestCount('searchNumbers')).toBe(1);
    expect(api().sandbox.requestCount('buyNumber')).toBe(0);
  });
});

describe('sandbox logging', () => {
  let sandbox: Sandbox | undefined;
  afterEach(async () => sandbox?.close());

  it('logs method, path and status at debug level, never bodies, keys or tokens', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    sandbox = await startSandbox({ apiKey: 'secret-api-key', logger: createLogger('debug', sink) });
    const agent = await provider(sandbox).createAgent('Logged agent');
    await provider(sandbox).call('GET', '/v1/list-available-numbers?region=US');
    const entries = lines.map((line) => JSON.parse(line));
    expect(entries).toEqual([
      expect.objectContaining({ level: 20, method: 'POST', path: '/v1/ai-agents', status: 201 }),
      expect.objectContaining({ level: 20, method: 'GET', path: '/v1/list-available-numbers', status: 200 }),
    ]);
    const log = lines.join('');
    for (const secret of ['secret-api-key', agent.agent_token, 'Logged agent', 'en-US', 'region=US']) {
      expect(log).not.toContain(secret);
    }
  });
});
