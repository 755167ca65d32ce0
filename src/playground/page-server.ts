// The playground's web page and its API, on loopback only: state, server-sent events, and POSTs that Interactions
// turns into what Slack would send. Requests must name this host (no DNS rebinding) and, for changes, come as JSON
// from this page's own origin (no cross-site forms).
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'undici';
import { z } from 'zod';
import { HttpFront } from '../http-front.js';
import type { Logger } from '../log.js';
import type { Interactions, Outcome } from './interactions.js';
import { inputValue } from './payloads.js';
import { PEOPLE, type PlaygroundPerson, type Role } from './people.js';
import { pageState, uiOption } from './render.js';
import type { WorkflowRuns } from './workflow-runs.js';
import { workflowDraft } from './workflows.js';
import type { Workspace } from './workspace.js';

const PAGE_DIR = new URL('./page/', import.meta.url);
const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/page/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/page/blocks.js': { file: 'blocks.js', type: 'text/javascript; charset=utf-8' },
  '/page/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};

/** The page runs only its own script and styles, talks only to this server, and is never framed. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const person = z.enum(PEOPLE.map((candidate) => candidate.id) as [string, ...string[]]);
const option = z.object({ text: z.string().max(3000), value: z.string().max(3000) });
const state = z.record(z.string(), z.record(z.string(), inputValue)).default({});
const target = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('message'), channel: z.string(), ts: z.string() }),
  z.object({ kind: z.literal('view'), viewId: z.string() }),
]);
const element = { blockId: z.string(), actionId: z.string() };

const requests = {
  '/api/type': z.object({ user: person, channel: z.string(), text: z.string().min(1).max(10_000) }),
  '/api/act': z.object({ user: person, target, ...element, selected: option.optional(), state }),
  '/api/submit': z.object({ user: person, viewId: z.string(), state }),
  '/api/close': z.object({ user: person, viewId: z.string(), all: z.boolean().default(false) }),
  '/api/suggest': z.object({ user: person, target, ...element, value: z.string().max(3000) }),
  '/api/home': z.object({ user: person }),
  '/api/start-over': z.object({ user: person }),
  '/api/workflow': z.object({ user: person, workflow: workflowDraft }),
};
type Requests = { [path in keyof typeof requests]: z.infer<(typeof requests)[path]> };

/** What the page says before Start over is confirmed: what it removes and keeps, or why it will not run. */
export interface StartOverAnswer {
  ok: boolean;
  says: string[];
}

export interface PageServer {
  /** `http://127.0.0.1:PORT/`. */
  url: string;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8' });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 256_000) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Taken first, so that a PORT in use stops the start. Until `servePage`, requests get 503 (and /healthz 200). */
export function bindPage(port: number): Promise<HttpFront> {
  return HttpFront.open(port, '127.0.0.1');
}

/** Serves the page and its API on the front `bindPage` bound, with the app's probes and /metrics beside them. */
export function servePage(input: {
  front: HttpFront;
  /** The running app's `/healthz`, `/readyz` and `/metrics` (Start over replaces the app). */
  probesUrl: () => string;
  workspace: Workspace;
  /** A person's role as the app holds it now: admins change roles in Settings. */
  roleOf: (userId: string) => Promise<Role>;
  /** Workflows of the app's steps: what the Workflows panel shows. */
  workflows: WorkflowRuns;
  interactions: Interactions;
  /** As the person who confirmed it, whom the audit log records. */
  startOver: (userId: string) => Promise<Outcome>;
  /** Whether Start over would run now, and what it would remove and keep, or why not, in sentences. */
  whatStartOverDoes: () => StartOverAnswer;
  logger: Logger;
}): PageServer {
  const { front, workspace, interactions, startOver, whatStartOverDoes, logger } = input;
  const files = Object.fromEntries(
    Object.entries(FILES).map(([path, { file, type }]) => [
      path,
      { body: readFileSync(new URL(file, PAGE_DIR)), type },
    ]),
  );
  const streams = new Set<ServerResponse>();
  let origins: Set<string> = new Set();

  // Changes come in bursts (a reply, the Home tab, an announcement): the page hears of them once per burst.
  let pending: NodeJS.Timeout | undefined;
  const stopListening = workspace.onChange(() => {
    pending ??= setTimeout(() => {
      pending = undefined;
      for (const stream of streams) stream.write(`event: change\ndata: ${workspace.version}\n\n`);
    }, 25);
  });
  const keepAlive = setInterval(() => {
    for (const stream of streams) stream.write(': keep-alive\n\n');
  }, 15_000);

  /** The people with their roles as the app holds them now, and the one asking. */
  const peopleAsOf = async (id: string) => {
    const people = await Promise.all(
      PEOPLE.map(async (person) => ({ ...person, role: await input.roleOf(person.id) })),
    );
    return { people, me: people.find((person) => person.id === id) ?? (people[0] as PlaygroundPerson) };
  };

  const handlers: { [path in keyof Requests]: (body: Requests[path]) => Promise<unknown> } = {
    '/api/type': (body) => interactions.type(body.user, body.channel, body.text),
    '/api/act': (body) =>
      interactions.act(
        body.user,
        body.target,
        { blockId: body.blockId, actionId: body.actionId, ...(body.selected ? { selected: body.selected } : {}) },
        body.state,
      ),
    '/api/submit': (body) => interactions.submit(body.user, body.viewId, body.state),
    '/api/close': (body) => interactions.close(body.user, body.viewId, body.all),
    '/api/suggest': async (body) => {
      const act = { blockId: body.blockId, actionId: body.actionId };
      const suggested = await interactions.suggest(body.user, body.target, act, body.value);
      return suggested.ok ? { ok: true, options: suggested.options.map(uiOption) } : suggested;
    },
    '/api/home': (body) => interactions.openHome(body.user),
    '/api/start-over': (body) => startOver(body.user),
    '/api/workflow': async (body) => interactions.runWorkflow(body.user, body.workflow),
  };

  async function post(path: keyof Requests, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = req.headers.origin;
    if (!req.headers['content-type']?.startsWith('application/json') || (origin && !origins.has(origin))) {
      send(res, 403, { ok: false, reason: 'Only the playground page may act here.' });
      return;
    }
    let parsed: z.ZodSafeParseResult<unknown>;
    try {
      parsed = requests[path].safeParse(await readJson(req));
    } catch {
      send(res, 400, { ok: false, reason: 'The request was not JSON.' });
      return;
    }
    if (!parsed.success) {
      send(res, 400, { ok: false, reason: parsed.error.issues.map((issue) => issue.message).join('; ') });
      return;
    }
    const handler = handlers[path] as (body: unknown) => Promise<unknown>;
    send(res, 200, await handler(parsed.data));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://playground');
    if (!origins.has(`http://${req.headers.host ?? ''}`)) {
      send(res, 403, { ok: false, reason: 'Open the playground at the address it printed.' });
      return;
    }
    // The app's own answers, as on PORT outside the playground.
    if (req.method === 'GET' && PROBES.has(url.pathname)) return relay(`${input.probesUrl()}${url.pathname}`, req, res);
    if (req.method === 'POST' && url.pathname in requests) return post(url.pathname as keyof Requests, req, res);
    if (req.method !== 'GET') return send(res, 405, { ok: false, reason: 'method not allowed' });
    const file = files[url.pathname];
    if (file) {
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': file.type });
      res.end(file.body);
      return;
    }
    if (url.pathname === '/api/state') {
      const user = person.safeParse(url.searchParams.get('user'));
      const { people, me } = await peopleAsOf(user.success ? user.data : '');
      return send(res, 200, pageState(workspace, { me, people }, input.workflows));
    }
    if (url.pathname === '/api/start-over') return send(res, 200, whatStartOverDoes());
    if (url.pathname === '/api/events') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream' });
      res.write(`event: change\ndata: ${workspace.version}\n\n`);
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    send(res, 404, { ok: false, reason: 'not found' });
  }

  front.serve((req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      logger.error({ err: error }, 'playground: a page request failed');
      if (!res.headersSent) send(res, 500, { ok: false, reason: 'The playground failed to handle that.' });
      else res.destroy();
    });
  });
  const port = new URL(front.url).port;
  origins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);

  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => {
      stopListening();
      clearInterval(keepAlive);
      if (pending) clearTimeout(pending);
      for (const stream of streams) stream.end();
      return front.close();
    },
  };
}

const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/** The app's answer to a probe, status, type and body as they came; 503 while the app is being replaced. */
async function relay(target: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const authorization = req.headers.authorization;
  try {
    const answer = await request(target, { headers: authorization ? { authorization } : {} });
    const type = answer.headers['content-type'];
    res.writeHead(answer.statusCode, typeof type === 'string' ? { 'content-type': type } : {});
    res.end(Buffer.from(await answer.body.arrayBuffer()));
  } catch {
    send(res, 503, { ok: false, status: 'starting' });
  }
}
