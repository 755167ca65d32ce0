// The Web API clients, one per use: each has its own queue, which a 429 pauses, so that a rate-limited channel post
// never delays someone else's modal or reply.
import { type Logger as BoltLogger, webApi } from '@slack/bolt';
import { request } from 'undici';
import { z } from 'zod';
import type { Config } from '../config.js';

export type WebClient = webApi.WebClient;

export interface SlackClients {
  /** What a user is waiting for: views.open/push/update/publish, ephemeral and direct replies. */
  ui: WebClient;
  /** Posts to NOTIFY_CHANNEL_ID: nobody waits on them, so they may retry a little. */
  announcements: WebClient;
  /** usergroups.users.list and users.info, read while a user waits for an answer. */
  groups: WebClient;
  /** auth.test, at start and for readiness. */
  identity: WebClient;
  /** Only from Slack's own file host (or the API's host), so that the app's token never goes anywhere else. */
  downloadFile(url: string): Promise<string>;
}

export interface Budget {
  timeoutMs: number;
  retries: number;
}

export type SlackBudgets = Record<Exclude<keyof SlackClients, 'downloadFile'>, Budget>;

/** Timeouts and retry budgets by use. A trigger_id lasts 3 s, so a views.open retried later is useless. */
export const SLACK_BUDGETS: SlackBudgets = {
  ui: { timeoutMs: 3_000, retries: 0 },
  announcements: { timeoutMs: 5_000, retries: 2 },
  groups: { timeoutMs: 2_500, retries: 0 },
  identity: { timeoutMs: 5_000, retries: 0 },
};

const answerNotes = z.object({
  warning: z.string().optional(),
  response_metadata: z
    .object({ warnings: z.array(z.string()).optional(), messages: z.array(z.string()).optional() })
    .optional(),
});

/** Told of each Web API call once it has ended. */
export type OnSlackCall = (call: { method: string; seconds: number; error?: string }) => void;

/**
 * Notes the warnings of a successful answer at debug level: the call worked. The library's own warn and error lines
 * are debug too, since every failed call is thrown to code that logs it in context.
 */
class NotingWebClient extends webApi.WebClient {
  readonly #logger: BoltLogger;
  readonly #onCall: OnSlackCall;

  constructor(token: string, options: webApi.WebClientOptions & { logger: BoltLogger; onCall: OnSlackCall }) {
    const { logger, onCall, ...rest } = options;
    super(token, { ...rest, logger: { ...logger, warn: logger.debug, error: logger.debug } });
    this.#logger = logger;
    this.#onCall = onCall;
  }

  override async apiCall(method: string, options?: Record<string, unknown>): Promise<webApi.WebAPICallResult> {
    const started = performance.now();
    let error: string | undefined;
    try {
      const answer = await super.apiCall(method, options);
      const { warning, response_metadata: metadata } = answerNotes.parse(answer);
      const notes = [warning, ...(metadata?.warnings ?? []), ...(metadata?.messages ?? [])].filter(Boolean);
      if (notes.length > 0) this.#logger.debug(`Slack answered ${method} with warnings: ${notes.join('; ')}`);
      return answer;
    } catch (failure) {
      error = slackErrorCode(failure);
      throw failure;
    } finally {
      this.#onCall({ method, seconds: (performance.now() - started) / 1000, error });
    }
  }
}

export function createSlackClients(
  slack: Config['slack'],
  logger: BoltLogger,
  budgets: SlackBudgets = SLACK_BUDGETS,
  onCall: OnSlackCall,
): SlackClients {
  const client = ({ timeoutMs, retries }: Budget) =>
    new NotingWebClient(slack.botToken, {
      slackApiUrl: slack.apiUrl,
      logger,
      onCall,
      timeout: timeoutMs,
      // A 429 is answered by the caller (announcements wait out a short Retry-After once); the client never
      // pauses its queue for whatever time Slack names.
      rejectRateLimitedCalls: true,
      retryConfig: { retries, minTimeout: 500, maxTimeout: 2_000, randomize: true },
    });
  const fileHosts = new Set(['files.slack.com', new URL(slack.apiUrl ?? 'https://slack.com/api/').host]);
  return {
    ui: client(budgets.ui),
    announcements: client(budgets.announcements),
    groups: client(budgets.groups),
    identity: client(budgets.identity),
    downloadFile: async (url) => {
      if (!fileHosts.has(new URL(url).host)) throw new Error(`${new URL(url).host} is not Slack's file host`);
      const { statusCode, body } = await request(url, {
        headers: { authorization: `Bearer ${slack.botToken}` },
        signal: AbortSignal.timeout(budgets.ui.timeoutMs),
      });
      const text = await body.text();
      if (statusCode !== 200) throw new Error(`Slack answered ${statusCode} for the file`);
      return text;
    },
  };
}

/** Slack's error code for a failed call (`not_in_channel`, `ratelimited`, `timeout`…), for messages and the audit. */
export function slackErrorCode(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'unknown';
  const { code, data, original } = error as { code?: unknown; data?: { error?: unknown }; original?: unknown };
  if (typeof data?.error === 'string') return data.error;
  if (code === webApi.ErrorCode.RateLimitedError) return 'ratelimited';
  if (code === webApi.ErrorCode.HTTPError) return 'http_error';
  if (code === webApi.ErrorCode.RequestError) {
    const name = original instanceof Error ? original.name : '';
    return name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unreachable';
  }
  return error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'unknown';
}

/** Seconds Slack asked to wait, when the error is a 429. */
export function retryAfterSeconds(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, retryAfter } = error as { code?: unknown; retryAfter?: unknown };
  return code === webApi.ErrorCode.RateLimitedError && typeof retryAfter === 'number' ? retryAfter : undefined;
}
