// Shared pieces for the provider client tests: a fast-retrying client, a way to catch its errors, a
// recording HTTP server for what the sandbox cannot show (raw paths, headers, other cursor names) and a
// port nothing listens on.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { ProviderClient, type ProviderClientOptions, ProviderError } from '../../src/provider/index.js';
import { type Sandbox, type ServedName, startSandbox } from '../../src/sandbox/server.js';

/**
 * A test file's sandbox and fast-retrying client: started before its tests, faults cleared after each test,
 * closed at the end. `use` receives them once they are running.
 */
export function useSandboxAndClient(use: (started: { sandbox: Sandbox; client: ProviderClient }) => void): void {
  let started: { sandbox: Sandbox; client: ProviderClient } | undefined;
  beforeAll(async () => {
    const sandbox = await startSandbox({ port: 0 });
    started = { sandbox, client: clientFor(sandbox) };
    use(started);
  });
  afterEach(() => started?.sandbox.faults.clear());
  afterAll(async () => {
    await started?.client.close();
    await started?.sandbox.close();
  });
}

/** Backoff short enough that retry tests stay fast; Retry-After still sets its own waits. */
export const FAST_RETRY = { baseDelayMs: 5, maxDelayMs: 20 } as const;

export function clientFor(target: { url: string; apiKey: string }, options: Partial<ProviderClientOptions> = {}) {
  return new ProviderClient({
    baseUrl: target.url,
    apiKey: target.apiKey,
    timeoutMs: 2_000,
    retry: FAST_RETRY,
    ...options,
  });
}

/** The ProviderError a call fails with; any other outcome fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected the call to fail with a ProviderError, but it succeeded');
}

/** How many requests reached `route` since this was called. */
export function counter(sandbox: Sandbox, route: ServedName): () => number {
  const before = sandbox.requestCount(route);
  return () => sandbox.requestCount(route) - before;
}

export interface RecordedRequest {
  method: string;
  /** The request target exactly as sent: path and query, still encoded. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  remotePort: number;
}

export interface Recorder {
  /** Base URL ending in /v1. */
  url: string;
  apiKey: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Answer = (request: RecordedRequest) => { status?: number; body: unknown };

/** A plain HTTP server that records every request and answers with `answer` (default: an empty list). */
export async function startRecorder(answer: Answer = () => ({ body: { data: [] } })): Promise<Recorder> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request: RecordedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      remotePort: req.socket.remotePort ?? 0,
    };
    requests.push(request);
    const { status = 200, body } = answer(request);
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey: 'recorder-key',
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A base URL on a loopback port that was free a moment ago, so connecting to it is refused. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}
