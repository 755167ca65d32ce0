// What listens on the app's ports, bound before anything else starts so that a request during start or stop is
// answered at once: until `serve` and after `closing`, /healthz 200 and everything else 503 with Retry-After.
// Connections are bounded in time (a silent one half a minute: the playground's event stream writes every 15 s) and
// capped in number, so that the process never runs out of file descriptors.
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { listen } from './listen.js';

export interface Route {
  method: 'GET' | 'POST';
  path: string;
  handle(request: IncomingMessage, response: ServerResponse): void;
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** A listener for exactly these routes: 404 for any other path, 405 for another method on one of them. */
export function routed(routes: Route[]): RequestListener {
  return (request, response) => {
    const path = new URL(request.url ?? '/', 'http://front').pathname;
    const route = routes.find((candidate) => candidate.path === path && candidate.method === request.method);
    if (route) return route.handle(request, response);
    const other = routes.some((candidate) => candidate.path === path);
    sendJson(response, other ? 405 : 404, { ok: false, error: other ? 'method' : 'not_found' });
  };
}

type Phase = { kind: 'starting' } | { kind: 'serving'; listener: RequestListener } | { kind: 'stopping' };

// Seconds a client should wait before it asks again: a start or a stop takes a few.
const RETRY_AFTER_S = '5';

/** Node's defaults are a minute for headers and five for a request; Slack's deliveries arrive in milliseconds. */
export const CONNECTION_LIMITS = {
  headersTimeoutMs: 5_000,
  /** Headers and body; past it Node answers 408 and closes. Above the Slack URL's own body deadline. */
  requestTimeoutMs: 15_000,
  keepAliveTimeoutMs: 5_000,
  /** No byte either way for this long closes a connection, one that never sends a request among them. */
  idleTimeoutMs: 30_000,
  /** About 10 KiB each while they wait, 20 MiB in all. */
  maxConnections: 2_048,
  /** How often Node looks for connections past their headers' or request's time (its default is 30 s). */
  checkIntervalMs: 1_000,
} as const;

export class HttpFront {
  readonly #server: Server;
  #phase: Phase = { kind: 'starting' };

  private constructor(server: Server) {
    this.#server = server;
    server.on('request', (request, response) => this.#answer(request, response));
  }

  /** Binds `port` and answers at once: 503 for everything but /healthz until `serve`. */
  static async open(port: number, host?: string): Promise<HttpFront> {
    const limits = CONNECTION_LIMITS;
    const server = createServer({
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.checkIntervalMs,
    });
    server.maxConnections = limits.maxConnections;
    server.timeout = limits.idleTimeoutMs;
    await listen(server, port, host);
    return new HttpFront(server);
  }

  /** `http://127.0.0.1:PORT`, or the bound address when it is not every interface. */
  get url(): string {
    const address = this.#server.address();
    if (!address || typeof address !== 'object') return '';
    const host = address.address === '::' || address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
    return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  }

  /** From now on, requests go to `listener`. */
  serve(listener: RequestListener): void {
    this.#phase = { kind: 'serving', listener };
  }

  /** From now on, only /healthz is served; connections end with their answer, so that clients go elsewhere. */
  closing(): void {
    this.#phase = { kind: 'stopping' };
    this.#server.closeIdleConnections();
  }

  /** Stops listening and ends every connection still open. */
  close(): Promise<void> {
    this.closing();
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #answer(request: IncomingMessage, response: ServerResponse): void {
    const phase = this.#phase;
    if (phase.kind === 'serving') {
      phase.listener(request, response);
      return;
    }
    const path = new URL(request.url ?? '/', 'http://front').pathname;
    response.shouldKeepAlive = phase.kind === 'starting';
    if (path === '/healthz' && request.method === 'GET') sendJson(response, 200, { ok: true });
    else sendJson(response, 503, { ok: false, status: phase.kind }, { 'retry-after': RETRY_AFTER_S });
  }
}
