// One HTTP request and its whole answer, through undici's dispatch, without the stream and listeners its `request`
// makes (a quarter of a request's CPU time). One deadline covers it all; an answer past MAX_ANSWER_BYTES is cut off.
import type { Dispatcher } from 'undici';

export interface Exchange {
  /** `https://host:port`: needed by a dispatcher that serves any origin (an undici Agent), not by a Pool. */
  origin?: string;
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

/** The provider names no size bound; its largest answers, whole lists of numbers, are about 100 bytes a number. */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** An answer's status and headers, without its body. */
export type AnswerHead = Omit<Answer, 'text'>;

/** The deadline passed, the transport failed (`cause`), or the answer outgrew MAX_ANSWER_BYTES. */
export class ExchangeFailed extends Error {
  readonly head: AnswerHead | undefined;
  constructor(
    readonly reason: 'timeout' | 'transport' | 'too_large',
    options: { cause?: unknown; head?: AnswerHead } = {},
  ) {
    super(REASONS[reason], { cause: options.cause });
    this.head = options.head;
  }
}

const REASONS: Record<ExchangeFailed['reason'], string> = {
  timeout: 'no answer in time',
  transport: 'the request failed',
  too_large: `the answer was larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`,
};

/** Sends `request` through `dispatcher`; rejects with ExchangeFailed when no whole answer came within `timeoutMs`. */
export function exchange(dispatcher: Dispatcher, request: Exchange, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let headers: Answer['headers'] = {};
    const chunks: Buffer[] = [];
    let size = 0;
    const end = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    // Rejected at once, even before a connection exists; the request is then aborted as soon as it has one.
    const timer = setTimeout(() => {
      end(() => reject(new ExchangeFailed('timeout')));
      controller?.abort(new ExchangeFailed('timeout'));
    }, timeoutMs);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
        if (settled) controller.abort(new ExchangeFailed('timeout'));
      },
      onResponseStart(_controller, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders;
      },
      onResponseData(_controller, chunk) {
        if (settled) return; // given up on (its deadline, its size): nothing more of it is kept
        size += chunk.length;
        if (size <= MAX_ANSWER_BYTES) {
          chunks.push(chunk);
          return;
        }
        const tooLarge = new ExchangeFailed('too_large', { head: { status, headers } });
        end(() => reject(tooLarge));
        controller?.abort(tooLarge);
      },
      onResponseEnd() {
        end(() => resolve({ status, headers, text: decoder.decode(Buffer.concat(chunks)) }));
      },
      onResponseError(_controller, error) {
        end(() => reject(new ExchangeFailed('transport', { cause: error })));
      },
    };
    try {
      dispatcher.dispatch(request, handler);
    } catch (error) {
      end(() => reject(new ExchangeFailed('transport', { cause: error })));
    }
  });
}

const decoder = new TextDecoder();
