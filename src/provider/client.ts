// Typed client for the provider's v1 API. Inputs are checked before anything is sent, answers are checked
// against the contract, failures become ProviderErrors, and only requests that cannot act twice are retried.
import { Pool } from 'undici';
import { z } from 'zod';
import { ExchangeFailed, exchange } from '../http-exchange.js';
import type { Logger } from '../log.js';
import { checkInput, checkResponse } from './contract.js';
import type { Endpoint, PathIds } from './endpoints.js';
import * as endpoints from './endpoints.js';
import { adviceFor, errorFromResponse, ProviderError, type ProviderErrorKind } from './errors.js';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, type RetryPolicy, withRetry } from './retry.js';
import {
  type Agent,
  type AvailableNumber,
  type AvailableNumberPage,
  type CreateAgentRequest,
  type CreatedAgent,
  createAgentRequest,
  type DeletedAgent,
  EXPECTED_STATUS,
  type PurchasedNumber,
  type ReleasedNumber,
  type Routing,
  resourceId,
  type SearchNumbersQuery,
} from './schemas.js';
import { checkListResponse } from './sliced-list.js';

export interface ProviderClientOptions {
  /** Ends in /v1; a trailing slash is tolerated. */
  baseUrl: string;
  apiKey: string;
  /** Per request, from sending to the last byte of the answer. Default 10 s. */
  timeoutMs?: number;
  /** Query parameter that carries `next_cursor` back; the spec does not name it. Default `cursor`. */
  cursorParam?: string;
  retry?: Partial<RetryPolicy>;
  /** Gets one debug line per request: method, path, status, ms, attempt. Never keys or bodies. */
  logger?: Logger;
  /** Told of each request once it has ended: its endpoint (the path's first segment), time and failure kind. */
  onRequest?: (request: { method: string; endpoint: string; seconds: number; error?: ProviderErrorKind }) => void;
  /** Whether a change may be sent now (see fence.ts); when not, it fails as `withheld` and nothing is sent. */
  mayChange?: () => boolean;
  /** Told of each change withheld: this replica lost its liveness, or the change's leases lapsed (`forChange`). */
  onWithheld?: (because: 'liveness' | 'lease') => void;
}

/** One change, held under its locks (ops/locks.ts), as its provider requests see it. */
interface HeldChange {
  /** Whether the change may still act; when not, a request that would change something is withheld. */
  mayStillAct(): boolean;
  /** Whether its leases lapsed while this replica kept its liveness: the reconciler, not the change, settles it. */
  lapsed(): boolean;
  /** Told once each such request has ended, answered or not: it may have reached the provider. */
  sent?(): void;
}

/** An agent whose creation's answer was lost, found in the agents list: its token went with the answer. */
type RecoveredAgent = Agent & { tokenLost: true };

/** The agents named `name` that are not among `before`: what creations since then made. */
export function agentsNamedSince(agents: readonly Agent[], name: string, before: readonly string[]): Agent[] {
  return agents.filter((agent) => agent.name === name && !before.includes(agent.id));
}

/** A purchase; `reconciled` is true when the answer was lost and the purchase was found in the purchased list. */
export type BoughtNumber = PurchasedNumber & { reconciled: boolean };

/** What a call of an endpoint sends: the ids its path takes, its body and its query, each when it has one. */
type CallInput<Path extends string, Body, Query> = (keyof PathIds<Path> extends never
  ? { ids?: undefined }
  : { ids: PathIds<Path> }) &
  ([Body] extends [undefined] ? { body?: undefined } : { body: Body }) &
  ([Query] extends [undefined] ? { query?: undefined } : { query: Query });

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_PAGES = 10;

const LAPSED =
  'Nothing more was sent to the provider: this copy of Voice Ops did not renew its hold on the change in time (it ' +
  'may have been paused), and another copy may be settling it.';

/** Kinds after which a GET may be repeated: it changes nothing, so a second try is harmless. */
const RETRYABLE_GET_KINDS = new Set<ProviderErrorKind>(['timeout', 'network', 'unavailable', 'rate_limited']);
/** Kinds after which a POST or DELETE may have taken effect although we did not hear about it. */
const LOST_ANSWER_KINDS = new Set<ProviderErrorKind>(['timeout', 'network', 'unavailable']);
/**
 * Transport failures before the request could leave (no connection, or a closed client that undici refuses at
 * dispatch; the pool is never destroyed, which would fail requests under way): it cannot have reached the provider.
 */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

const baseUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://api.example.com/v1' });
const pageCount = z.number().int().min(1, 'must be a whole number, at least 1');

// Every method is async, so a refused input arrives as a rejection like any other failure.
export class ProviderClient {
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly authorization: string;
  /** How long a request waits for its answer: after twice this, the provider is no longer working on a change. */
  readonly timeoutMs: number;
  private readonly cursorParam: string;
  private readonly retryPolicy: RetryPolicy;
  private readonly hooks: Pick<ProviderClientOptions, 'logger' | 'onRequest' | 'mayChange' | 'onWithheld'>;
  /** Set on a client for one change (see `forChange`). */
  private readonly held?: HeldChange;

  constructor(options: ProviderClientOptions) {
    const url = new URL(checkInput(baseUrl, options.baseUrl, 'baseUrl'));
    // The key itself is never echoed, not even in a validation message.
    if (!options.apiKey.trim()) throw new ProviderError('validation', 'apiKey must not be empty', { field: 'apiKey' });
    this.pool = new Pool(url.origin);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.authorization = `Bearer ${options.apiKey}`;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.cursorParam = options.cursorParam ?? 'cursor';
    this.retryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    const { logger, onRequest, mayChange, onWithheld } = options;
    this.hooks = { logger, onRequest, mayChange, onWithheld };
  }

  /**
   * This client for one change under its locks: a change begun before this replica lost its liveness sends nothing,
   * even once the liveness is back.
   */
  forChange(held: HeldChange): ProviderClient {
    return Object.assign(Object.create(this) as ProviderClient, { held });
  }

  /**
   * Names are not unique: `namedBefore` (the agents of that name read just before) tells a lost answer's creation
   * apart, found without its token. Without it, a lost answer is thrown as it came.
   */
  createAgent(input: CreateAgentRequest): Promise<CreatedAgent>;
  createAgent(input: CreateAgentRequest, namedBefore: readonly string[]): Promise<CreatedAgent | RecoveredAgent>;
  async createAgent(
    input: CreateAgentRequest,
    namedBefore?: readonly string[],
  ): Promise<CreatedAgent | RecoveredAgent> {
    const body = checkInput(createAgentRequest, input);
    if (!namedBefore) return this.call(endpoints.createAgent, { body });
    const change = { noun: 'creation', verb: 'creating agent', subject: `"${body.name}"` };
    return this.ifLost<CreatedAgent | RecoveredAgent>(
      () => this.call(endpoints.createAgent, { body }),
      (lost) =>
        this.settleLost(change, AGENTS, lost, (agents) => {
          const appeared = agentsNamedSince(agents, body.name, namedBefore);
          const [found] = appeared;
          if (!found) return unchanged(`no new agent named "${body.name}" is listed`);
          if (appeared.length > 1) {
            throw new ProviderError(
              lost.kind,
              `The outcome of creating agent "${body.name}" is UNKNOWN: its answer was lost (${outline(lost)}) and ` +
                `${appeared.length} new agents of that name are listed, so someone else made one meanwhile. ` +
                'Check /voice agents before trying again.',
              { status: lost.status, code: lost.code, cause: lost },
            );
          }
          return { ...found, tokenLost: true as const };
        }),
    );
  }

  /** The agents; `once` asks without retrying, for a readiness probe that must not multiply the provider's load. */
  async listAgents(options: { once?: boolean } = {}): Promise<Agent[]> {
    return (await this.call(endpoints.listAgents, {}, options)).data;
  }

  /** Deletes an agent; when the answer is lost, the agents list decides whether it happened. */
  async deleteAgent(agentId: string): Promise<DeletedAgent> {
    return this.ifLost(
      () => this.call(endpoints.deleteAgent, { ids: { agent_id: agentId } }),
      (lost) =>
        this.settleLost({ noun: 'deletion', verb: 'deleting', subject: agentId }, AGENTS, lost, (agents) =>
          agents.some((agent) => agent.id === agentId)
            ? unchanged('the agent is still listed')
            : { id: agentId, status: EXPECTED_STATUS.agentDeleted },
        ),
    );
  }

  /** Routing is idempotent and the API cannot read it: a lost answer's map is sent again, its answer the outcome. */
  async mapNumber(input: { phone_number: string; agent_id: string }): Promise<Routing> {
    const send = () => this.call(endpoints.mapNumber, { body: { ...input, route_type: 'ai_agent' } });
    return this.ifLost(send, (first) =>
      this.ifLost(send, (again) => {
        throw new ProviderError(
          again.kind,
          `The outcome of routing ${input.phone_number} to ${input.agent_id} is UNKNOWN: the answer was lost twice ` +
            `(${outline(first)}, then ${outline(again)}). Trying again is safe: the same route twice has one effect.`,
          { ...carried(again), mayStillLand: true },
        );
      }),
    );
  }

  /** One page of available numbers; pass `next_cursor` back as `cursor` for the next. */
  async searchNumbers(query: SearchNumbersQuery = {}): Promise<AvailableNumberPage> {
    return this.call(endpoints.searchNumbers, { query });
  }

  /** Pages of available numbers, following `next_cursor` until it runs out or `maxPages` (default 10) were read. */
  async *searchNumberPages(
    query: Omit<SearchNumbersQuery, 'cursor'> = {},
    options: { maxPages?: number } = {},
  ): AsyncGenerator<AvailableNumber[]> {
    const maxPages = checkInput(pageCount, options.maxPages ?? DEFAULT_MAX_PAGES, 'maxPages');
    let cursor: string | undefined;
    for (let page = 1; page <= maxPages; page++) {
      const result = await this.searchNumbers({ ...query, cursor });
      yield result.data;
      // An empty cursor cannot be sent back, so it ends the listing like null does.
      if (!result.next_cursor) return;
      cursor = result.next_cursor;
    }
  }

  /** A buy is never sent twice: when its answer is lost, the purchased list decides whether it happened. */
  async buyNumber(number: string): Promise<BoughtNumber> {
    return this.ifLost<BoughtNumber>(
      async () => ({ ...(await this.call(endpoints.buyNumber, { body: { number } })), reconciled: false }),
      (lost) =>
        this.settleLost({ noun: 'purchase', verb: 'buying', subject: number }, PURCHASED, lost, (purchased) => {
          const found = purchased.find((entry) => entry.number === number);
          return found ? { ...found, reconciled: true } : unchanged('the number is not in the purchased list');
        }),
    );
  }

  /** The account's numbers; one the provider still lists as `released` is left out for every reader alike. */
  async listPurchasedNumbers(): Promise<PurchasedNumber[]> {
    const { data } = await this.call(endpoints.listPurchasedNumbers, {});
    return data.filter((entry) => entry.status !== EXPECTED_STATUS.numberReleased);
  }

  /** Releases a number; when the answer is lost, the purchased list decides whether it happened. */
  async releaseNumber(numberId: string): Promise<ReleasedNumber> {
    return this.ifLost(
      () => this.call(endpoints.releaseNumber, { ids: { number_id: numberId } }),
      (lost) =>
        this.settleLost({ noun: 'release', verb: 'releasing', subject: numberId }, PURCHASED, lost, (purchased) =>
          purchased.some((entry) => entry.id === numberId)
            ? unchanged('the number is still one of the purchased')
            : { id: numberId, status: EXPECTED_STATUS.numberReleased },
        ),
    );
  }

  /** Requests still running are allowed to finish. */
  async close(): Promise<void> {
    if (!this.pool.closed) await this.pool.close();
  }

  /** Sends a change; `whenLost` settles one whose answer was lost (a timeout, a 5xx, an unreadable success). */
  private async ifLost<T>(send: () => Promise<T>, whenLost: (lost: ProviderError) => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof ProviderError) || !mayHaveTakenEffect(error)) throw error;
      return whenLost(error);
    }
  }

  /** A lost change is never sent again blindly: `listing` decides; a list that cannot be read leaves it UNKNOWN. */
  private async settleLost<L, T>(
    change: { noun: string; verb: string; subject: string },
    listing: Listing<L>,
    lost: ProviderError,
    outcome: (listed: L) => T | Unchanged,
  ): Promise<T> {
    const why = `the answer to the ${change.noun} was ${lost.kind === 'bad_response' ? 'unreadable' : 'lost'} (${outline(lost)})`;
    let listed: L;
    try {
      listed = await listing.read(this);
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      throw new ProviderError(
        error.kind,
        `The outcome of ${change.verb} ${change.subject} is UNKNOWN: ${why} and the ${listing.name} could not be read ` +
          `(${outline(error)}). Check ${listing.check} before trying again.`,
        { ...carried(error), mayStillLand: true },
      );
    }
    const found = outcome(listed);
    if (!(found instanceof Unchanged)) return found;
    // No answer in time: the request may still be under way at the provider, so "not done" is not known yet.
    if (lost.kind === 'timeout') {
      throw new ProviderError(
        'timeout',
        `The provider did not answer the ${change.noun} of ${change.subject} in time (${outline(lost)}), and ` +
          `${found.because} yet: it may still happen.`,
        { status: lost.status, mayStillLand: true, cause: lost },
      );
    }
    throw new ProviderError(
      lost.kind,
      `The ${change.noun} of ${change.subject} was NOT completed: ${why} and ${found.because}, ` +
        'so it is safe to try again.',
      carried(lost),
    );
  }

  /**
   * Only GETs, or any request after a 429, are tried again; `once` never retries, for a readiness probe that must not
   * multiply the provider's load.
   */
  async call<Path extends string, Body, Query, Response>(
    endpoint: Endpoint<string, Path, Body, Query, Response>,
    input: CallInput<Path, Body, Query>,
    options: { once?: boolean } = {},
  ): Promise<Response> {
    const { ids = {}, body, query } = input as { ids?: Record<string, unknown>; body?: unknown; query?: unknown };
    const sent = endpoint.body && checkInput(endpoint.body, body);
    const path = this.pathOf(endpoint, ids, query);
    // A 429 was not processed, so any method may be repeated after it; anything else only for reads.
    const canRetry = (error: ProviderError) =>
      !options.once &&
      (error.kind === 'rate_limited' || (endpoint.method === 'GET' && RETRYABLE_GET_KINDS.has(error.kind)));
    return withRetry((attempt) => this.send(endpoint, path, sent, attempt), canRetry, this.retryPolicy);
  }

  /** The path an endpoint's request goes to: its ids checked and put in, its query checked and added. */
  private pathOf(endpoint: Endpoint, ids: Record<string, unknown>, query: unknown): string {
    const path = endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => pathSegment(name, ids[name]));
    const params = new URLSearchParams();
    const checked = endpoint.query && (checkInput(endpoint.query, query) as Record<string, unknown>);
    for (const [key, value] of Object.entries(checked ?? {})) {
      // `cursor` carries `next_cursor` back, under the name this provider gives it.
      if (value !== undefined) params.set(key === 'cursor' ? this.cursorParam : key, String(value));
    }
    const search = params.toString();
    return search ? `${path}?${search}` : path;
  }

  private async send<Response>(
    endpoint: Endpoint<string, string, unknown, unknown, Response>,
    path: string,
    body: unknown,
    attempt: number,
  ): Promise<Response> {
    const { method } = endpoint;
    const context = `${method} ${path}`;
    // Checked before every request that changes something, retries included, right before it leaves.
    if (method !== 'GET') this.throwIfWithheld();
    const headers: Record<string, string> = { authorization: this.authorization, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const started = performance.now();
    let status: number | undefined;
    let failure: ProviderError | undefined;
    try {
      const answer = await exchange(
        this.pool,
        { method, path: this.basePath + path, headers, body: body === undefined ? undefined : JSON.stringify(body) },
        this.timeoutMs,
      );
      status = answer.status;
      if (status < 200 || status > 299) {
        throw errorFromResponse(status, answer.text, parseRetryAfter(answer.headers['retry-after']));
      }
      const where = `${context}, HTTP ${status}`;
      if (!endpoint.items) return checkResponse(endpoint.response, answer.text, where, status);
      const list = endpoint.response as unknown as z.ZodType<{ data: unknown[] }>;
      return (await checkListResponse(list, endpoint.items, answer.text, where, status)) as Response;
    } catch (error) {
      failure = error instanceof ProviderError ? error : this.transportError(error, context);
      throw failure;
    } finally {
      const elapsed = performance.now() - started;
      this.hooks.logger?.debug(
        { method, path, status, ms: Math.round(elapsed), attempt, error: failure?.kind },
        'provider request',
      );
      // Ids and queries stay out of the label, so that it names one of the API's few routes.
      const label = `/${endpoint.path.split('/')[1] ?? ''}`;
      this.hooks.onRequest?.({ method, endpoint: label, seconds: elapsed / 1000, error: failure?.kind });
      if (method !== 'GET') this.held?.sent?.();
    }
  }

  /** Throws when a change may not be sent now (see fence.ts). */
  private throwIfWithheld(): void {
    if (this.held?.mayStillAct() !== false && this.hooks.mayChange?.() !== false) return;
    const lapsed = this.held?.lapsed() === true;
    this.hooks.onWithheld?.(lapsed ? 'lease' : 'liveness');
    if (!lapsed) throw new ProviderError('withheld', adviceFor('withheld'));
    // Another replica may be settling the change: its outcome is theirs to record.
    throw new ProviderError('withheld', LAPSED, { mayStillLand: true });
  }

  private transportError(error: unknown, context: string): ProviderError {
    if (error instanceof ExchangeFailed && error.head) {
      // An answer too large to hold: a failure's status still says what failed (a 429 its wait); a success's body,
      // unread, is outside the contract.
      const { status, headers } = error.head;
      if (status < 200 || status > 299) return errorFromResponse(status, '', parseRetryAfter(headers['retry-after']));
      const message = `${adviceFor('bad_response')} (${context}, HTTP ${status}: ${error.message})`;
      return new ProviderError('bad_response', message, { status });
    }
    const cause = error instanceof ExchangeFailed ? error.cause : error;
    const code = errorCode(cause);
    if (
      (error instanceof ExchangeFailed && error.reason === 'timeout') ||
      (code !== undefined && TIMEOUT_CODES.has(code))
    ) {
      const message = `${adviceFor('timeout')} (${context}: no answer within ${this.timeoutMs} ms)`;
      return new ProviderError('timeout', message, { cause });
    }
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new ProviderError('network', `${adviceFor('network')} (${context}: ${reason})`, { cause });
  }
}

/** An id as one URL path segment: checked, then encoded so that '/', '?' or '..' cannot leave the segment. */
function pathSegment(name: string, id: unknown): string {
  return encodeURIComponent(checkInput(resourceId, id, name));
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** Whether a failed change may have been made all the same: its answer was lost, or its success body unreadable. */
export function mayHaveTakenEffect(error: ProviderError): boolean {
  if (error.kind === 'bad_response') return error.status !== undefined && error.status >= 200 && error.status <= 299;
  return LOST_ANSWER_KINDS.has(error.kind) && !neverSent(error);
}

function neverSent(error: ProviderError): boolean {
  const code = errorCode(error.cause);
  return error.kind === 'network' && code !== undefined && NOT_SENT_CODES.has(code);
}

/** What an error that explains another keeps of it: its status, the provider's code and message, and itself. */
function carried(error: ProviderError) {
  return { status: error.status, code: error.code, providerMessage: error.providerMessage, cause: error };
}

function outline(error: ProviderError): string {
  return error.status === undefined ? error.kind : `${error.kind}, HTTP ${error.status}`;
}

/** A list that settles a change whose answer was lost: what a person checks it with, and how it is read. */
interface Listing<L> {
  name: string;
  check: string;
  read(client: ProviderClient): Promise<L>;
}
const AGENTS: Listing<Agent[]> = { name: 'agents list', check: '/voice agents', read: (client) => client.listAgents() };
const PURCHASED: Listing<PurchasedNumber[]> = {
  name: 'purchased list',
  check: '/voice numbers',
  read: (client) => client.listPurchasedNumbers(),
};

/** What a list said of a change whose answer was lost: it did not happen, because… */
class Unchanged {
  constructor(readonly because: string) {}
}
const unchanged = (because: string) => new Unchanged(because);
