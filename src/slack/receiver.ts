// Bolt's HTTP receiver reads a field of whatever JSON a request carries before it looks at its type: a correctly
// signed `payload=null` throws outside every handler (an unhandled rejection that would stop the process), and a body
// holding a number, a string or an array waits three seconds for a listener that never comes. Slack's
// `app_rate_limited` notice, a JSON object of no kind Bolt knows, waits the same way (see app-rate-limited.ts). This
// receiver reads the body first, the way Bolt will, and answers those itself once the request proves signed: 400 for
// a body that is not a JSON object, 200 for `app_rate_limited`. Everything else goes on to Bolt, which reuses the body
// already read: unsigned requests still get its 401, and it answers `url_verification` and `ssl_check` itself.
import type { ServerResponse } from 'node:http';
import {
  type BufferedIncomingMessage,
  HTTPModuleFunctions,
  HTTPReceiver,
  type HTTPReceiverOptions,
  isValidSlackRequest,
} from '@slack/bolt';
import type { Logger } from '../log.js';
import { parseAppRateLimited, rateLimitWarnings } from './app-rate-limited.js';

const EVENTS_PATH = '/slack/events';

export function slackHttpReceiver(options: HTTPReceiverOptions, logger: Logger): HTTPReceiver {
  const receiver = new HTTPReceiver({ ...options, endpoints: [EVENTS_PATH] });
  const bolt = receiver.requestListener;
  const warnOfRateLimit = rateLimitWarnings(logger);

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
    if (request.method !== 'POST' || new URL(request.url ?? '/', 'http://localhost').pathname !== EVENTS_PATH) {
      bolt(request, response);
      return;
    }
    HTTPModuleFunctions.bufferIncomingMessage(request, HTTPModuleFunctions.defaultBodyLimit).then(
      (buffered) => {
        const own = ownAnswer(buffered);
        if (own && isSigned(buffered, options.signingSecret)) own(response);
        else bolt(buffered, response);
      },
      (error: unknown) => {
        const tooLarge = HTTPModuleFunctions.isRawBodyError(error) && error.statusCode === 413;
        logger.warn({ err: error }, 'a request body could not be read');
        answer(response, tooLarge ? 413 : 400);
      },
    );
  };
  return receiver;
}

/** The body as Bolt parses it, or undefined when it does not parse: Bolt answers that with 400, after the signature. */
function parsedBody(request: BufferedIncomingMessage): { value: unknown } | undefined {
  try {
    return { value: HTTPModuleFunctions.parseHTTPRequestBody(request) };
  } catch {
    return undefined;
  }
}

function isSigned(request: BufferedIncomingMessage, signingSecret: string): boolean {
  const signature = request.headers['x-slack-signature'];
  if (typeof signature !== 'string') return false;
  return isValidSlackRequest({
    signingSecret,
    body: request.rawBody.toString(),
    headers: {
      'x-slack-signature': signature,
      'x-slack-request-timestamp': Number(request.headers['x-slack-request-timestamp']),
    },
  });
}

function answer(response: ServerResponse, status: number): void {
  response.writeHead(status);
  response.end();
}
