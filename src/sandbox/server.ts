// A local, faithful provider: the v1 API of provider-api.md on loopback, backed by SQLite, with switches for
// latency and faults. Order per request: count, latency, auth, routing, body, fault, then the operation.
import { createHash, timingSafeEqual } from 'node:crypto';
import { once, setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { listen } from '../listen.js';
import type { Logger } from '../log.js';
import {
  type Fault,
  FaultSwitchboard,
  faultInjection,
  latencySetting,
  MALFORMED_BODY,
  releasedListing,
  type SandboxFaults,
  type ServedName,
  soldElsewhere,
} from './faults.js';
import { ApiError, readJsonBody, send, sendError, sendJson, validate } from './http.js';
import { Inventory } from './inventory.js';
import { type Reply, type Route, servedRoutes } from './routes.js';
import { type SandboxSeed, SandboxStore } from './store.js';

export type { Fault, RouteName, SandboxFaults, ServedName } from './faults.js';
export type { SandboxSeed } from './store.js';

export interface SandboxOptions {
  /** Default 0 (random); the host is always 127.0.0.1. */
  port?: number;
  /** Default 'sandbox-key'. */
  apiKey?: string;
  /** Default ':memory:'. */
  databasePath?: string;
  /** Added to every /v1 answer, default 0. */
  latencyMs?: number;
  /** Numbers for sale in each region; default 55. */
  numbersPerRegion?: number;
  /** Agents, purchases and routes written straight into an empty store at start. */
  seed?: SandboxSeed;
  logger?: Logger;
}

export interface Sandbox {
  /** Base URL ending in /v1, e.g. http://127.0.0.1:41234/v1. */
  url: string;
  apiKey: string;
  faults: SandboxFaults;
  /** Count of /v1 requests received so far, per route name, for tests asserting "one provider call". */
  requestCount(route: ServedName): number;
  /** Closes the server, its open sockets and the database. */
  close(): Promise<void>;
}

interface ControlRoute {
  method: string;
  pattern: RegExp;
  run(faults: FaultSwitchboard, req: IncomingMessage): Promise<void> | void;
}

/** A switch set by a POST of its setting, checked against `schema`, to /_control/<name>. */
function setting<T>(
  name: string,
  schema: z.ZodType<T>,
  apply: (faults: FaultSwitchboard, value: T) => void,
): ControlRoute {
  return {
    method: 'POST',
    pattern: new RegExp(`^/_control/${name}$`),
    run: async (faults, req) => apply(faults, validate(schema, await readJsonBody(req))),
  };
}

// Test switches, outside /v1 so no client of the real API can hit them by accident.
const CONTROL_ROUTES: readonly ControlRoute[] = [
  setting('faults', faultInjection, (faults, { route, fault, times }) => faults.inject(route, fault, { times })),
  { method: 'DELETE', pattern: /^\/_control\/faults$/, run: (faults) => faults.clear() },
  setting('released-listed', releasedListing, (faults, { on }) => faults.listReleased(on)),
  setting('sold-elsewhere', soldElsewhere, (faults, { number }) => faults.sellElsewhere(number)),
  setting('latency', latencySetting, (faults, { ms }) => faults.setLatency(ms)),
];

/** 405 when the path exists under another method, else 404. */
function unroutable(table: readonly { method: string; pattern: RegExp }[], path: string): ApiError {
  const allowed = table.filter((route) => route.pattern.test(path)).map((route) => route.method);
  if (allowed.length === 0) return new ApiError(404, 'not_found', `no endpoint at ${path}`);
  return new ApiError(405, 'method_not_allowed', `${path} accepts ${allowed.join(', ')}`, {
    allow: allowed.join(', '),
  });
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** A POST body as read, or why it cannot be used (answered only after any fault). */
type Body = { value: unknown } | { refusal: ApiError };

async function readBody(req: IncomingMessage): Promise<Body> {
  try {
    return { value: await readJsonBody(req) };
  } catch (error) {
    if (error instanceof ApiError) return { refusal: error };
    throw error;
  }
}

type ImmediateFault = Exclude<Fault, { type: 'delay' | 'hold' | 'lose_answer' }>;

class SandboxHandler {
  readonly faults: FaultSwitchboard;
  readonly store: SandboxStore;
  readonly counts = new Map<ServedName, number>();
  readonly shutdown = new AbortController();
  /** What endpoints served beside the eight keep, by their keys. */
  private readonly state = new Map<string, unknown>();

  constructor(
    private readonly apiKey: string,
    options: SandboxOptions,
  ) {
    this.faults = new FaultSwitchboard(options.latencyMs);
    this.store = new SandboxStore(options.databasePath, new Inventory(options.numbersPerRegion));
    // Every delayed answer listens for shutdown; under latency there are many at once, by design.
    setMaxListeners(0, this.shutdown.signal);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    if (url.pathname.startsWith('/_control/')) return this.handleControl(req, res, url.pathname);
    const routes = servedRoutes();
    const route = routes.find(({ method, pattern }) => method === req.method && pattern.test(url.pathname));
    if (route) this.counts.set(route.endpoint.name, (this.counts.get(route.endpoint.name) ?? 0) + 1);
    await this.pause(this.faults.latencyMs);
    this.authorize(req);
    if (!route) throw unroutable(routes, url.pathname);

    // The whole request is in before the provider gets slow or fails, as with a real server: a client that
    // gives up during a delay has still sent a purchase that goes through.
    const body = route.endpoint.body ? await readBody(req) : { value: undefined };
    const fault = this.faults.take(route.endpoint.name);
    if (fault?.type === 'delay') await this.pause(fault.ms);
    else if (fault?.type === 'hold') await this.holdUntilCleared();
    else if (fault && fault.type !== 'lose_answer') return answerWithFault(req, res, route, fault);

    const reply = this.perform(route, url, body);
    if (fault?.type === 'lose_answer') req.socket.destroy();
    else sendJson(res, reply.status, reply.body);
  }

  /** Runs the operation; refusals become replies too, so that a lost answer hides them as well. */
  private perform(route: Route, url: URL, body: Body): Reply<unknown> {
    try {
      if ('refusal' in body) throw body.refusal;
      const { releasedListed, soldElsewhere } = this.faults;
      return route.handle({
        ids: url.pathname.match(route.pattern)?.groups ?? {},
        query: url.searchParams,
        body: route.endpoint.body ? validate(route.endpoint.body, body.value) : undefined,
        store: this.store,
        releasedListed,
        soldElsewhere,
        kept: <T>(key: string, create: () => T): T => {
          if (!this.state.has(key)) this.state.set(key, create());
          return this.state.get(key) as T;
        },
      });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { status: error.status, body: { error: error.code, info: error.message } };
    }
  }

  private async handleControl(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    this.authorize(req);
    const route = CONTROL_ROUTES.find((candidate) => candidate.method === req.method && candidate.pattern.test(path));
    if (!route) throw unroutable(CONTROL_ROUTES, path);
    await route.run(this.faults, req);
    res.writeHead(204).end();
  }

  private authorize(req: IncomingMessage): void {
    const key = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (key === undefined || !sameSecret(key, this.apiKey)) {
      throw new ApiError(401, 'unauthorized', 'missing or invalid API key; send Authorization: Bearer <key>', {
        'www-authenticate': 'Bearer',
      });
    }
  }

  /** Waits until the faults are cleared; ends the request if the sandbox closes first. */
  private async holdUntilCleared(): Promise<void> {
    await once(this.faults.released, 'abort', { signal: this.shutdown.signal });
  }

  /** Waits, unless the sandbox closes first. */
  private async pause(ms: number): Promise<void> {
    if (ms > 0) await sleep(ms, undefined, { signal: this.shutdown.signal });
  }
}

function answerWithFault(req: IncomingMessage, res: ServerResponse, route: Route, fault: ImmediateFault): void {
  switch (fault.type) {
    case 'status':
      if (fault.rawBody !== undefined) {
        send(res, fault.status, fault.rawBody, { 'content-type': 'text/plain; charset=utf-8' });
      } else {
        const body = fault.body ?? { error: 'injected_fault', info: `HTTP ${fault.status} injected by the sandbox` };
        sendJson(res, fault.status, body);
      }
      return;
    case 'rate_limit': {
      const seconds = fault.retryAfterSeconds;
      const info = `too many requests; retry after ${seconds} seconds`;
      sendError(res, new ApiError(429, 'rate_limited', info, { 'retry-after': String(seconds) }));
      return;
    }
    case 'malformed_json':
      send(res, 200, MALFORMED_BODY);
      return;
    case 'contract_violation':
      sendJson(res, 200, route.violation);
      return;
    case 'drop_connection':
      req.socket.destroy();
      return;
  }
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const apiKey = options.apiKey ?? 'sandbox-key';
  const handler = new SandboxHandler(apiKey, options);
  const { logger } = options;
  try {
    if (options.seed) handler.store.seed(options.seed);
  } catch (error) {
    handler.store.close();
    throw error;
  }

  const server = createServer((req, res) => {
    const started = performance.now();
    // Method, path and status only: bodies and the Authorization header never reach the log.
    res.on('close', () => {
      const status = res.writableFinished ? res.statusCode : 'no answer';
      logger?.debug({
        method: req.method,
        path: req.url?.split('?')[0],
        status,
        ms: Math.round(performance.now() - started),
      });
    });
    handler.handle(req, res).catch((error: unknown) => {
      if (res.headersSent || req.socket.destroyed) {
        req.socket.destroy();
      } else if (error instanceof ApiError) {
        sendError(res, error);
      } else {
        logger?.error({ err: error }, 'sandbox request failed');
        sendError(res, new ApiError(500, 'internal_error', 'the sandbox failed to handle the request'));
      }
    });
  });

  try {
    await listen(server, options.port ?? 0, '127.0.0.1');
  } catch (error) {
    handler.store.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const close = async () => {
    handler.shutdown.abort();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    handler.store.close();
  };

  return {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    faults: handler.faults,
    requestCount: (route) => handler.counts.get(route) ?? 0,
    close: () => {
      closing ??= close();
      return closing;
    },
  };
}
