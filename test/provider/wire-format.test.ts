// What goes over the wire, seen from a server that records raw requests: base path, headers, encoded ids,
// the configurable cursor parameter, connection reuse, the deadline over a stalled body, the bound on an answer's
// size, and the log lines.
import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ANSWER_BYTES } from '../../src/http-exchange.js';
import { REDACT_PATHS } from '../../src/log.js';
import { clientFor, type RecordedRequest, type Recorder, rejection, startRecorder } from './helpers.js';

const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function recorderWith(answer?: Parameters<typeof startRecorder>[0]): Promise<Recorder> {
  const recorder = await startRecorder(answer);
  closers.push(recorder.close);
  return recorder;
}

function clientOn(recorder: Recorder, options: Parameters<typeof clientFor>[1] = {}) {
  const client = clientFor(recorder, options);
  closers.unshift(() => client.close());
  return client;
}

const AGENT = { id: 'agt_1', name: 'Desk', status: 'active', agent_token: 'atk_secret_token' };

describe('requests', () => {
  it('keep the /v1 prefix of the base URL, with or without a trailing slash', async () => {
    const recorder = await recorderWith();
    await clientOn(recorder).listAgents();
    await clientOn(recorder, { baseUrl: `${recorder.url}/` }).listPurchasedNumbers();
    expect(recorder.requests.map((request) => request.url)).toEqual(['/v1/ai-agents', '/v1/purchased-phone-numbers']);
  });

  it('carry the key, accept JSON, and declare a JSON content type only when they have a body', async () => {
    const recorder = await recorderWith((request) => ({ body: request.method === 'POST' ? AGENT : { data: [] } }));
    const client = clientOn(recorder);
    await client.createAgent({ name: 'Desk', language: 'en-US' });
    await client.listAgents();

    const [post, get] = recorder.requests as [RecordedRequest, RecordedRequest];
    expect(post.headers).toMatchObject({
      authorization: 'Bearer recorder-key',
      accept: 'application/json',
      'content-type': 'application/json',
    });
    expect(JSON.parse(post.body)).toEqual({ name: 'Desk', language: 'en-US' });
    expect(get.headers).toMatchObject({ authorization: 'Bearer recorder-key', accept: 'application/json' });
    expect(get.headers['content-type']).toBeUndefined();
    expect(get.body).toBe('');
  });

  it('send route_type ai_agent when mapping a number', async () => {
    const recorder = await recorderWith(() => ({
      body: { phone_number: '+12125550100', route_type: 'ai_agent', agent_id: 'agt_1', status: 'connected' },
    }));
    await clientOn(recorder).mapNumber({ phone_number: '+12125550100', agent_id: 'agt_1' });
    expect(JSON.parse(recorder.requests[0]?.body ?? '')).toEqual({
      phone_number: '+12125550100',
      route_type: 'ai_agent',
      agent_id: 'agt_1',
    });
  });

  it('encode ids so "/", "?", "#" and ".." stay inside their path segment', async () => {
    const recorder = await recorderWith(() => ({ body: { id: 'x', status: 'deleted' } }));
    const client = clientOn(recorder);
    await client.deleteAgent('a/b?c=d#e');
    await client.releaseNumber('../ai-agents');
    expect(recorder.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'DELETE /v1/ai-agents/a%2Fb%3Fc%3Dd%23e',
      'DELETE /v1/release-phone-number/..%2Fai-agents',
    ]);
  });

  it('reuse pooled connections instead of opening one per request', async () => {
    const recorder = await recorderWith();
    const client = clientOn(recorder);
    for (let i = 0; i < 10; i++) await client.listAgents();
    // undici's pool may alternate between two sockets for back-to-back requests, but never opens ten.
    expect(new Set(recorder.requests.map((request) => request.remotePort)).size).toBeLessThanOrEqual(2);
  });
});

describe('pagination with a custom cursor parameter', () => {
  it('sends next_cursor back under the configured name, with the query kept on every page', async () => {
    const pages: Record<string, { data: unknown[]; next_cursor: string | null }> = {
      first: {
        data: [{ id: 'n1', number: '+12125550101', region: 'US', capabilities: ['voice'] }],
        next_cursor: 'p/2',
      },
      'p/2': { data: [{ id: 'n2', number: '+12125550102', region: 'US', capabilities: [] }], next_cursor: null },
    };
    const recorder = await recorderWith((request) => {
      const token = new URL(request.url, 'http://x').searchParams.get('page_token') ?? 'first';
      return { body: pages[token] };
    });
    const client = clientOn(recorder, { cursorParam: 'page_token' });

    const seen = [];
    for await (const page of client.searchNumberPages({ region: 'US', limit: 1 })) seen.push(...page);

    expect(seen.map((entry) => entry.id)).toEqual(['n1', 'n2']);
    expect(recorder.requests.map((request) => request.url)).toEqual([
      '/v1/list-available-numbers?region=US&limit=1',
      '/v1/list-available-numbers?region=US&limit=1&page_token=p%2F2',
    ]);
  });
});

/** A client, trying once, of a server that answers with `handle`; both closed after the test. */
async function clientOfServer(handle: RequestListener, options: Parameters<typeof clientFor>[1] = {}) {
  const server = createServer(handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/v1`;
  return clientOn({ url, apiKey: 'k', requests: [], close: async () => {} }, { retry: { maxAttempts: 1 }, ...options });
}

describe('deadline', () => {
  it('covers the body too: headers that arrive in time do not save a body that stalls', async () => {
    const client = await clientOfServer(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"data": [');
      },
      { timeoutMs: 200 },
    );

    // The server never answers: only the client's own timeout can end the call.
    const error = await rejection(client.listAgents());
    expect(error.kind).toBe('timeout');
  });
});

describe('an answer larger than the client holds', () => {
  /**
   * A client (trying once) of a server whose answers to `method` never end (a megabyte at a time, while the client
   * reads), with `status` and a Retry-After of 7 s; `[]` otherwise. `sent` counts the bytes it wrote.
   */
  async function endlessFor(method: string, status = 200) {
    let sent = 0;
    const megabyte = Buffer.alloc(1024 * 1024, 0x20);
    const client = await clientOfServer((req, res) => {
      if (req.method !== method) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"data": []}');
        return;
      }
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '7' });
      res.write('{"data": [');
      const more = () => {
        while (!res.destroyed && res.write(megabyte)) sent += megabyte.length;
      };
      res.on('drain', more);
      more();
    });
    return { client, sent: () => sent };
  }

  it('is cut off past its bound and read as an answer outside the contract, with its status', async () => {
    const { client, sent } = await endlessFor('GET');

    const error = await rejection(client.listAgents());

    expect(error.kind).toBe('bad_response');
    expect(error.status).toBe(200);
    expect(error.message).toContain('larger than 32 MiB');
    // The client stopped reading: the server wrote what the socket buffers held past the bound, not without end.
    expect(sent()).toBeLessThan(MAX_ANSWER_BYTES * 2);
  });

  it('holds an answer of exactly its bound, and refuses one byte more', async () => {
    /** `{"data": [AGENT]}` padded with spaces to `bytes`, sent with its length. */
    const answerOf = (bytes: number) => {
      const json = JSON.stringify({ data: [AGENT] });
      return Buffer.concat([Buffer.from(json), Buffer.alloc(bytes - json.length, 0x20)]);
    };
    for (const [bytes, holds] of [
      [MAX_ANSWER_BYTES, true],
      [MAX_ANSWER_BYTES + 1, false],
    ] as const) {
      const body = answerOf(bytes);
      const client = await clientOfServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
      });
      if (holds) expect((await client.listAgents()).map((agent) => agent.id)).toEqual([AGENT.id]);
      else expect((await rejection(client.listAgents())).message).toContain('larger than 32 MiB');
    }
  });

  it('keeps the meaning of a failure status: a 429 too large to hold is still rate limiting, with its wait', async () => {
    const { client } = await endlessFor('GET', 429);

    const error = await rejection(client.listAgents());

    expect(error.kind).toBe('rate_limited');
    expect(error.status).toBe(429);
    expect(error.retryAfterMs).toBe(7_000);
  });

  it('to a purchase is checked against the purchased list, as an answer that could not be read', async () => {
    const { client } = await endlessFor('POST');

    const error = await rejection(client.buyNumber('+14155550100'));

    expect(error.message).toContain('was NOT completed: the answer to the purchase was unreadable');
  });
});

describe('logging', () => {
  it('writes one debug line per attempt with method, path, status, ms and attempt, and no secrets', async () => {
    let attempts = 0;
    const recorder = await recorderWith((request) => {
      if (request.method === 'GET' && attempts++ === 0) return { status: 503, body: { message: 'busy' } };
      return { body: request.method === 'POST' ? AGENT : { data: [] } };
    });
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = pino({ level: 'debug', redact: REDACT_PATHS }, sink);
    const client = clientOn(recorder, { logger });

    await client.createAgent({ name: 'Desk', language: 'en-US' });
    await client.listAgents();

    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries).toEqual([
      expect.objectContaining({ level: 20, method: 'POST', path: '/ai-agents', status: 200, attempt: 1 }),
      expect.objectContaining({ method: 'GET', path: '/ai-agents', status: 503, attempt: 1, error: 'unavailable' }),
      expect.objectContaining({ method: 'GET', path: '/ai-agents', status: 200, attempt: 2 }),
    ]);
    for (const entry of entries) expect(entry.ms).toEqual(expect.any(Number));
    const everything = lines.join('');
    expect(everything).not.toContain('recorder-key');
    expect(everything).not.toContain('atk_secret_token');
    expect(everything).not.toContain('Desk');
  });
});
