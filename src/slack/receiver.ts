// The HTTP receiver: Bolt's, wrapped so that nothing is parsed before Slack's signature is proven. Bolt reads and
// hashes the whole body as a string before it checks the timestamp (and only checks it for the past), and Bolt's
// own parse of a signed body trips on bodies no listener can take. So for `POST /slack/events` this wrapper:
// 1. refuses a request whose headers cannot be a fresh signature (none, malformed, or a timestamp more than five
//    minutes off either way) before reading its body, and one declaring more than the size limit (signed-request.ts);
// 2. hashes the body as it arrives, within the limit, a deadline and a place among the bodies still unproven
//    (unproven-bodies.ts), and refuses a wrong signature, all before any parse;
// 3. answers itself what Bolt would leave hanging or throw on, now that the body is proven Slack's: 400 for a body
//    that is not a JSON object (a signed `payload=null` would be an unhandled rejection in Bolt), 200 for
//    `app_rate_limited` (no kind Bolt knows: it would wait three seconds for a listener that never comes);
// 4. hands the rest to Bolt with its own verification off, reusing the bytes already read, so each body is hashed
//    once. Bolt still answers `url_verification`. Slack's `ssl_check`, the one request it may send unsigned, is
//    answered here (a tiny form body is read to see whether it is one), and nothing unsigned ever reaches Bolt.
import type { ServerResponse } from 'node:http';
import { type BufferedIncomingMessage, HTTPModuleFunctions, HTTPReceiver, type HTTPReceiverOptions } from '@slack/bolt';
import type { Logger } from '../log.js';
import { parseAppRateLimited, rateLimitWarnings } from './app-rate-limited.js';
import { type Refusal, readSignedBody } from './signed-request.js';
import { UnprovenBodies } from './unproven-bodies.js';

export const EVENTS_PATH = '/slack/events';

/**
 * The largest body read: Slack's largest deliveries carry one view (250 kB at most), form-encoded, which can triple a
 * byte. 1 MiB holds that with room. (Bolt's own limit is 4 MiB.)
 */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Bodies read at once before their signature is known: Slack's take milliseconds each, and 8 is 8 MiB at most. */
export const UNPROVEN_BODIES_MAX = 8;

/** How long a body may take to arrive: Slack stops waiting for the answer after 3 s. */
export const BODY_DEADLINE_MS = 5_000;

/** What a 503 for a body refused for want of a place asks the sender to wait, in seconds. */
const RETRY_AFTER_S = '1';

export interface ReceiverOptions extends Pick<HTTPReceiverOptions, 'logger'> {
  signingSecret: string;
  /** Told of every request refused before Bolt saw it, for the metrics. */
  onRefused: (refusal: Refusal) => void;
  /** Told how many bodies are being read before their signature is known, whenever that changes. */
  onUnprovenBodies: (count: number) => void;
  /** Seconds since the epoch, for the timestamp's window. */
  nowS?: () => number;
}

export function slackHttpReceiver(options: ReceiverOptions, logger: Logger): HTTPReceiver {
  const receiver = new HTTPReceiver({ ...options, endpoints: [EVENTS_PATH], signatureVerification: false });
  const bolt = receiver.requestListener;
  const warnOfRateLimit = rateLimitWarnings(logger);
  const warnOfRefusals = refusalWarnings(logger);
  const nowS = options.nowS ?? (() => Math.floor(Date.now() / 1000));
  const unproven = new UnprovenBodies(
    UNPROVEN_BODIES_MAX,
    BODY_DEADLINE_MS,
    BODY_LIMIT_BYTES,
    options.onUnprovenBodies,
  );
  const admit = () => unproven.admit();

  /** The answer this receiver gives itself to a signed request, or undefined when Bolt answers it. */
  const ownAnswer = (request: BufferedIncomingMessage): ((response: ServerResponse) => void) | undefined => {
    const body = parsedBody(request);
    if (body === undefined) return undefined;
    if (typeof body.value !== 'object' || body.value === null || Array.isArray(body.value)) {
      return (response) => {
        logger.warn('a signed request whose body is not a JSON object was refused with 400');
        answer(response, 400);
      };
    }
    const rateLimited = parseAppRateLimited(body.value);
    if (rateLimited === undefined) return undefined;
    return (response) => {
      warnOfRateLimit(rateLimited);
      answer(response, 200);
    };
  };

  receiver.requestListener = (request, response) => {
    const { signingSecret } = options;
    readSignedBody(request, { signingSecret, limit: BODY_LIMIT_BYTES, nowS: nowS(), admit })
      .then((signed) => {
        if (signed.ok === false) {
          options.onRefused(signed.refusal);
          warnOfRefusals(signed.refusal);
          const headers: Record<string, string> = signed.status === 503 ? { 'retry-after': RETRY_AFTER_S } : {};
          return answerAndClose(response, signed.status, headers, unproven.read);
        }
        if (signed.ok === 'unsigned') {
          // Answered here, never handed on: Bolt would read any other field of the unsigned body as a delivery.
          if (isSslCheck(request.headers['content-type'], signed.rawBody)) return answer(response, 200);
          options.onRefused('unsigned');
          warnOfRefusals('unsigned');
          return answer(response, 401);
        }
        const buffered = Object.assign(request, { rawBody: signed.rawBody });
        const own = ownAnswer(buffered);
        if (own) own(response);
        else bolt(buffered, response);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'a request to /slack/events could not be handled');
        if (!response.headersSent) answer(response, 500);
      });
  };
  return receiver;
}

/** The body as Bolt parses it, or undefined when it does not parse: Bolt answers that with 400. */
function parsedBody(request: BufferedIncomingMessage): { value: unknown } | undefined {
  try {
    return { value: HTTPModuleFunctions.parseHTTPRequestBody(request) };
  } catch {
    return undefined;
  }
}

function isSslCheck(contentType: string | undefined, body: Buffer): boolean {
  return (
    contentType === 'application/x-www-form-urlencoded' && new URLSearchParams(body.toString()).get('ssl_check') === '1'
  );
}

/** One warning a minute while requests are refused, the rest at debug: a flood must not flood the log. */
function refusalWarnings(logger: Logger): (refusal: Refusal) => void {
  let warnedAt = Number.NEGATIVE_INFINITY;
  return (refusal) => {
    const now = Date.now();
    if (now - warnedAt < 60_000) return logger.debug({ refusal }, 'a request to /slack/events was refused');
    warnedAt = now;
    logger.warn(
      { refusal },
      'a request to /slack/events was refused before it was parsed: if Slack sent it, check SLACK_SIGNING_SECRET ' +
        '(further refusals this minute are logged at debug and counted in /metrics)',
    );
  };
}

function answer(response: ServerResponse, status: number, headers: Record<string, string> = {}, onSent?: () => void) {
  response.writeHead(status, headers);
  response.end(onSent);
}

/**
 * The socket is destroyed once the answer is out, before Node would drain the rest of an unread body; what Node read
 * of it until then counts toward the next young collection (young-garbage.ts): all of it, as what came in with the
 * headers was parsed (and copied) too, even if a body read counted part of it already.
 */
function answerAndClose(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  read: (bytes: number) => void,
): void {
  const { socket } = response;
  response.shouldKeepAlive = false;
  answer(response, status, headers, () => {
    read(socket?.bytesRead ?? 0);
    socket?.destroy();
  });
}
