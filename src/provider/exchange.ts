// One HTTP request and its whole answer, through undici's dispatch: the answer's bytes are gathered as they come,
// with none of the readable stream, abort signal and listeners that its `request` makes for every answer (about a
// quarter of a request's CPU time, measured against a local server). One deadline covers connecting, the headers
// and the whole body.
import type { Dispatcher } from 'undici';

export interface Exchange {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as UTF-8 text, a byte-order mark dropped. */
  text: string;
}

/** Why an exchange ended without an answer: its deadline passed, or the transport failed (`cause`). */
export class ExchangeFailed extends Error {
  constructor(
    readonly timedOut: boolean,
    options: { cause?: unknown } = {},
  ) {
    super(timedOut ? 'no answer in time' : 'the request failed', options);
  }
}

/** Sends `request` through `dispatcher`; rejects with ExchangeFailed when no whole answer came within `timeoutMs`. */
export function exchange(dispatcher: Dispatcher, request: Exchange, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let headers: Answer['headers'] = {};
    const chunks: Buffer[] = [];
    const end = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    // Rejected at once, even before a connection exists; the request is then aborted as soon as it has one.
    const timer = setTimeout(() => {
      end(() => reject(new ExchangeFailed(true)));
      controller?.abort(new ExchangeFailed(true));
    }, timeoutMs);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
        if (settled) started.abort(new ExchangeFailed(true));
      },
      onResponseStart(_controller, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders;
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        end(() => resolve({ status, headers, text: decoder.decode(Buffer.concat(chunks)) }));
      },
      onResponseError(_controller, error) {
        end(() => reject(new ExchangeFailed(false, { cause: error })));
      },
    };
    try {
      dispatcher.dispatch(request, handler);
    } catch (error) {
      end(() => reject(new ExchangeFailed(false, { cause: error })));
    }
  });
}

const decoder = new TextDecoder();
