// The probes: GET /healthz, GET /readyz (database, Slack, provider) and GET /metrics. /readyz answers from the last
// checks, run at most once per period however many probes arrive. Its body names what is not ready in fixed words;
// the details go to the log, never to whoever probes.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Registry } from 'prom-client';
import { type Route, sendJson } from './http-front.js';
import { type Logger, scrubSecrets } from './log.js';
import { within } from './within.js';

/** One dependency's readiness: ok, or a public word for what is wrong and the details for the log. */
export type Readiness = { ok: true } | { ok: false; state: string; detail: string };
export type ReadinessCheck = () => Promise<Readiness>;

/** The report /readyz gives: each dependency's 'ok' or its public word. */
interface ReadinessReport {
  ok: boolean;
  checks: Record<string, string>;
}

// A check that waits longer than this is as good as a failure to whoever probes.
const CHECK_TIMEOUT_MS = 3_000;
const READINESS_REFRESH_MS = 5_000;

export class ReadinessChecks {
  #last?: { report: ReadinessReport; at: number };
  #running?: Promise<ReadinessReport>;
  /** Checks still under way, each dependency's: one that outlasted its timeout is waited on, not run again. */
  readonly #checking = new Map<string, Promise<Readiness>>();
  /** Each dependency's last public word, so that the log says when it changes rather than at every check. */
  readonly #said = new Map<string, string>();

  constructor(
    private readonly checks: Record<string, ReadinessCheck>,
    private readonly options: {
      refreshMs?: number;
      logger: Logger;
      /** Cut out of a check's details before they are logged: a provider may echo the key it was sent. */
      secrets: readonly string[];
      onCheck?: (dependency: string) => void;
    },
  ) {}

  /** The last report while it is fresh; else the run under way, or a new one. */
  report(): Promise<ReadinessReport> {
    const last = this.#last;
    if (last && performance.now() - last.at < (this.options.refreshMs ?? READINESS_REFRESH_MS))
      return Promise.resolve(last.report);
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #run(): Promise<ReadinessReport> {
    const results = await Promise.all(
      Object.entries(this.checks).map(
        async ([name, check]) => [name, await withTimeout(this.#check(name, check))] as const,
      ),
    );
    for (const [name, result] of results) this.#tell(name, result);
    const report = {
      ok: results.every(([, result]) => result.ok),
      checks: Object.fromEntries(results.map(([name, result]) => [name, result.ok ? 'ok' : result.state])),
    };
    this.#last = { report, at: performance.now() };
    return report;
  }

  #check(name: string, check: ReadinessCheck): Promise<Readiness> {
    const running = this.#checking.get(name);
    if (running !== undefined) return running;
    this.options.onCheck?.(name);
    const started = check()
      .catch((error: unknown): Readiness => ({ ok: false, state: 'failing', detail: String(error) }))
      .finally(() => this.#checking.delete(name));
    this.#checking.set(name, started);
    return started;
  }

  #tell(name: string, result: Readiness): void {
    const word = result.ok ? 'ok' : result.state;
    const before = this.#said.get(name) ?? 'ok';
    this.#said.set(name, word);
    if (word === before) return;
    if (result.ok) this.options.logger.info({ dependency: name }, `readiness: ${name} is ready again`);
    else {
      const detail = scrubSecrets(result.detail, this.options.secrets);
      this.options.logger.warn({ dependency: name, detail }, `readiness: ${name} is ${word}`);
    }
  }
}

async function withTimeout(check: Promise<Readiness>): Promise<Readiness> {
  return (
    (await within(check, CHECK_TIMEOUT_MS)) ?? { ok: false, state: 'not answering', detail: 'no answer within 3 s' }
  );
}

/** /healthz, /readyz and /metrics; with a token, /metrics answers only `Authorization: Bearer <token>`. */
export function probeRoutes(input: { readiness: ReadinessChecks; metrics: Registry; metricsToken?: string }) {
  const { readiness, metrics, metricsToken } = input;
  const routes: Route[] = [
    { method: 'GET', path: '/healthz', handle: (_request, response) => sendJson(response, 200, { ok: true }) },
    {
      method: 'GET',
      path: '/readyz',
      handle: (_request, response) => {
        readiness.report().then(
          (report) => sendJson(response, report.ok ? 200 : 503, report),
          () => sendJson(response, 503, { ok: false }),
        );
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      handle: (request, response) => {
        if (metricsToken !== undefined && !bears(request, metricsToken)) {
          return sendJson(response, 401, { ok: false, error: 'unauthorized' }, { 'www-authenticate': 'Bearer' });
        }
        void metrics.metrics().then(
          (text) => {
            response.writeHead(200, { 'content-type': metrics.contentType });
            response.end(text);
          },
          () => sendJson(response, 500, { ok: false }),
        );
      },
    },
  ];
  return routes;
}

function bears(request: IncomingMessage, token: string): boolean {
  const given = Buffer.from(request.headers.authorization ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
