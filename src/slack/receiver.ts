// Bolt's HTTP receiver reads a field of whatever JSON a request carries before it looks at its type: a correctly
// signed `payload=null` throws outside every handler (an unhandled rejection that would stop the process), and a body
// holding a number, a string or an array waits three seconds for a listener that never comes. This receiver reads the
// body first, the way Bolt will, and answers a signed request whose body is not a JSON object with 400 at once.
// Everything else goes on to Bolt, which reuses the body already read: unsigned requests still get its 401.
import type { ServerResponse } from 'node:http';
import {
  type BufferedIncomingMessage,
  HTTPModuleFunctions,
  HTTPReceiver,
  type HTTPReceiverOptions,
  isValidSlackRequest,
} from '@slack/bolt';
import type { Logger } from '../log.js';

const EVENTS_PATH = '/slack/events';

export function slackHttpReceiver(options: HTTPReceiverOptions, logger: Logger): HTTPReceiver {
  const receiver = new HTTPReceiver({ ...options, endpoints: [EVENTS_PATH] });
  const bolt = receiver.requestListener;
  receiver.requestListener = (request, response) => {
    if (request.method !== 'POST' || new URL(request.url ?? '/', 'http://localhost').pathname !== EVENTS_PATH) {
      bolt(request, response);
      return;
    }
    HTTPModuleFunctions.bufferIncomingMessage(request, HTTPModuleFunctions.defaultBodyLimit).then(
      (buffered) => {
        if (holdsNonObject(buffered) && isSigned(buffered, options.signingSecret)) {
          logger.warn('a signed request whose body is not a JSON object was refused with 400');
          answer(response, 400);
          return;
        }
        bolt(buffered, response);
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

/** True when the body parses, as Bolt parses it, into null, a number, a string or an array. */
function holdsNonObject(request: BufferedIncomingMessage): boolean {
  let body: unknown;
  try {
    body = HTTPModuleFunctions.parseHTTPRequestBody(request);
  } catch {
    return false; // Bolt answers a body that does not parse with 400 itself, after checking the signature.
  }
  return typeof body !== 'object' || body === null || Array.isArray(body);
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
