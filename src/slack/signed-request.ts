// Slack's signature, checked on the raw bytes before any parse: headers first, then the body hashed as it arrives
// with a place among the unproven bodies (unproven-bodies.ts), so that a flood of forged bodies never costs a parse.
// Slack's rule: `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{raw body}`, the timestamp within five minutes either way.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Admission, Cutoff } from './unproven-bodies.js';

const SIGNATURE_WINDOW_S = 5 * 60;

/** Slack's ssl_check carries no signature in every case Bolt knows: such a tiny form body is read to find out. */
const UNSIGNED_SSL_CHECK_MAX_BYTES = 1024;

export type Refusal = 'unsigned' | 'stale' | 'bad signature' | 'too large' | 'unreadable' | Cutoff;

export type SignedBody =
  | { ok: true; rawBody: Buffer }
  | { ok: false; refusal: Refusal; status: 400 | 401 | 408 | 413 | 503 }
  /** No signature, but small enough to be Slack's ssl_check: the caller decides from the body. */
  | { ok: 'unsigned'; rawBody: Buffer };

export interface SignatureCheck {
  signingSecret: string;
  /** The most bytes a body may have. */
  limit: number;
  /** Seconds since the epoch. */
  nowS: number;
  /** A place to read a body in, taken only once the headers allow one to be read. */
  admit(): Admission;
}

const SIGNATURE = /^v0=([0-9a-f]{64})$/;
const TIMESTAMP = /^\d{1,12}$/;

/** Reads the request's body when its headers can be a fresh signature of it, and checks the signature. */
export async function readSignedBody(request: IncomingMessage, check: SignatureCheck): Promise<SignedBody> {
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (declared > check.limit) return refuse('too large');
  const signature = SIGNATURE.exec(header(request, 'x-slack-signature') ?? '');
  const timestamp = header(request, 'x-slack-request-timestamp') ?? '';
  if (!signature) {
    if (!(declared <= UNSIGNED_SSL_CHECK_MAX_BYTES)) return refuse('unsigned');
    const body = await readBody(request, UNSIGNED_SSL_CHECK_MAX_BYTES, check.admit());
    return 'refusal' in body ? refuse(body.refusal) : { ok: 'unsigned', rawBody: body.rawBody };
  }
  if (!TIMESTAMP.test(timestamp) || Math.abs(check.nowS - Number(timestamp)) > SIGNATURE_WINDOW_S) {
    return refuse('stale');
  }
  const hmac = createHmac('sha256', check.signingSecret).update(`v0:${timestamp}:`);
  const body = await readBody(request, check.limit, check.admit(), (chunk) => hmac.update(chunk));
  if ('refusal' in body) return refuse(body.refusal);
  const expected = hmac.digest();
  const given = Buffer.from(signature[1] ?? '', 'hex');
  return timingSafeEqual(expected, given) ? { ok: true, rawBody: body.rawBody } : refuse('bad signature');
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

type ReadBody = { rawBody: Buffer } | { refusal: 'too large' | 'unreadable' | Cutoff };

/** Copied into its room as it comes, so that Node's chunks die young; past the limit the rest is left unread. */
function readBody(
  request: IncomingMessage,
  limit: number,
  admission: Admission,
  onChunk?: (chunk: Buffer) => void,
): Promise<ReadBody> {
  return new Promise((resolve) => {
    const { room } = admission;
    let size = 0;
    const finish = (result: ReadBody) => {
      request.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      // Removing the listener leaves the stream flowing: paused, nothing more is read from the socket.
      request.pause();
      admission.leave();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit) return finish({ refusal: 'too large' });
      onChunk?.(chunk);
      size += chunk.copy(room, size);
      admission.read(chunk.length);
    };
    // Copied out of the room before the place is left to the next body.
    const onEnd = () => finish({ rawBody: Buffer.from(room.subarray(0, size)) });
    const onError = () => finish({ refusal: 'unreadable' });
    // A connection that closes before the body ends: nothing can be answered, but nothing waits for it either.
    const onClose = () => finish({ refusal: 'unreadable' });
    admission.onCutoff((cutoff) => finish({ refusal: cutoff }));
    request.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

const STATUSES: Record<Refusal, 400 | 401 | 408 | 413 | 503> = {
  unsigned: 401,
  stale: 401,
  'bad signature': 401,
  'too large': 413,
  unreadable: 400,
  'too slow': 408,
  'too many': 503,
};

function refuse(refusal: Refusal): SignedBody {
  return { ok: false, refusal, status: STATUSES[refusal] };
}
