// GET /healthz (the process answers) and GET /readyz (it can do its work: the database takes writes, Slack knows
// the token, the provider answers), for load balancers and orchestrators, in HTTP and Socket Mode alike.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listen } from './listen.js';

/** One dependency's readiness: ok, or why not in a few words. */
export type ReadinessCheck = () => Promise<{ ok: true } | { ok: false; reason: string }>;

// A probe that waits longer than this is as good as a failure to whoever sent it.
const CHECK_TIMEOUT_MS = 3_000;

export interface HealthRoute {
  path: string;
  method: string[];
  handler: (request: IncomingMessage, response: ServerResponse) => void;
}

export function healthRoutes(checks: Record<string, ReadinessCheck>): HealthRoute[] {
  return [
    { path: '/healthz', method: ['GET'], handler: (_request, response) => sendJson(response, 200, { ok: true }) },
    {
      path: '/readyz',
      method: ['GET'],
      handler: (_request, response) => {
        void readiness(checks).then((report) => sendJson(response, report.ok ? 200 : 503, report));
      },
    },
  ];
}

async function readiness(checks: Record<string, ReadinessCheck>) {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => [name, await withTimeout(check)] as const),
  );
  return {
    ok: results.every(([, result]) => result.ok),
    checks: Object.fromEntries(results.map(([name, result]) => [name, result.ok ? 'ok' : result.reason])),
  };
}

async function withTimeout(check: ReadinessCheck): ReturnType<ReadinessCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<{ ok: false; reason: string }>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: 'no answer within 3 s' }), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      check().catch((error: unknown) => ({ ok: false as const, reason: String(error) })),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** In Socket Mode nothing else listens on PORT: a small server of its own answers the probes there. */
export async function startHealthServer(routes: HealthRoute[], port: number): Promise<Server> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://health').pathname;
    const route = routes.find((candidate) => candidate.path === path);
    if (!route) return sendJson(response, 404, { ok: false, error: 'not_found' });
    if (!route.method.includes(request.method ?? '')) return sendJson(response, 405, { ok: false, error: 'method' });
    route.handler(request, response);
  });
  await listen(server, port);
  return server;
}
