// Requests as Slack signs and sends them: X-Slack-Signature is `v0=` + hex HMAC-SHA256 of
// `v0:{timestamp}:{raw body}` under the signing secret, X-Slack-Request-Timestamp is that timestamp in seconds.
import { createHmac } from 'node:crypto';
import { Agent, request } from 'undici';

/** Bolt's HTTPReceiver compares the content type exactly: no `; charset=…`, or the form is parsed as JSON. */
export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
/** Events API deliveries (e.g. `app_home_opened`) are JSON. */
export const JSON_CONTENT_TYPE = 'application/json';

export interface SlackRequestHeaders {
  'x-slack-signature': string;
  'x-slack-request-timestamp': string;
  'content-type': string;
  [header: string]: string;
}

export function slackSignature(signingSecret: string, body: string, timestamp: number): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

export function signSlackRequest(
  signingSecret: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
): SlackRequestHeaders {
  return {
    'x-slack-signature': slackSignature(signingSecret, body, timestamp),
    'x-slack-request-timestamp': String(timestamp),
    'content-type': FORM_CONTENT_TYPE,
  };
}

export interface PostOptions {
  /** Seconds since the epoch to sign with; default now. Older than 5 minutes and Bolt answers 401. */
  timestamp?: number;
  /** Sent instead of the computed signature, for bad-signature tests. */
  signature?: string;
  /** Sets `x-slack-retry-num` and `x-slack-retry-reason: http_timeout`, as Slack's redeliveries do. */
  retryNum?: number;
  /** Default `application/x-www-form-urlencoded`; use JSON_CONTENT_TYPE for Events API bodies. */
  contentType?: string;
  headers?: Record<string, string>;
  /** Gives up after this many ms, as Slack does after 3000; default: waits for the answer. */
  timeoutMs?: number;
}

export interface AppResponse {
  status: number;
  /** The raw response body (empty for a bare ack). */
  body: string;
  /** The body parsed, when it is JSON. */
  json?: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** Time from sending to the whole answer, in ms: Slack gives up after 3000. */
  ms: number;
}

/**
 * A connection per delivery, as Slack's are as far as the app can tell. A kept-alive one races the app's server
 * closing it when idle: on a busy machine a request could go out on a socket already closing, and end in ECONNRESET.
 */
const FRESH_CONNECTIONS = new Agent({ pipelining: 0 });

/** POSTs `body` to the app as Slack would, signed with `signingSecret`. */
export async function postToSlackApp(
  url: string,
  signingSecret: string,
  body: string,
  options: PostOptions = {},
): Promise<AppResponse> {
  const headers: Record<string, string> = { ...signSlackRequest(signingSecret, body, options.timestamp) };
  if (options.signature !== undefined) headers['x-slack-signature'] = options.signature;
  if (options.contentType !== undefined) headers['content-type'] = options.contentType;
  if (options.retryNum !== undefined) {
    headers['x-slack-retry-num'] = String(options.retryNum);
    headers['x-slack-retry-reason'] = 'http_timeout';
  }
  Object.assign(headers, options.headers);

  const started = performance.now();
  const signal = options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs);
  const response = await request(url, { method: 'POST', headers, body, signal, dispatcher: FRESH_CONNECTIONS });
  const text = await response.body.text();
  const ms = Math.round(performance.now() - started);
  return { status: response.statusCode, body: text, json: parseJson(text), headers: response.headers, ms };
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
