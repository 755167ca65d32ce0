// Small HTTP helpers for the sandbox: its error shape, JSON bodies in and out, and request validation.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { z } from 'zod';

export const MAX_BODY_BYTES = 64 * 1024;

/** An answer that is not a success; always sent as `{"error": code, "info": message}`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: OutgoingHttpHeaders = {},
  ) {
    super(message);
  }
}

export function send(res: ServerResponse, status: number, text: string, headers: OutgoingHttpHeaders = {}): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: OutgoingHttpHeaders): void {
  send(res, status, JSON.stringify(body), headers);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status, { error: error.code, info: error.message }, error.headers);
}

/** Parses `value` with `schema`, or fails with a 400 that names each field at fault. */
export function validate<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value, {
    error: (issue) => (issue.input === undefined ? 'is required' : undefined),
  });
  if (parsed.success) return parsed.data;
  const info = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ');
  throw new ApiError(400, 'validation_error', info);
}

/**
 * Reads a JSON request body. A body that is not declared as JSON gets 415 rather than 400: the request may
 * be fine, only its media type is unsupported. Oversized bodies are drained before the 413, so the client
 * can read the answer instead of seeing its upload cut off.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const mediaType = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new ApiError(415, 'unsupported_media_type', 'send the body as JSON with Content-Type: application/json');
  }
  const text = await readText(req);
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_json', 'the request body is not valid JSON');
  }
}

function readText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) {
        reject(new ApiError(413, 'payload_too_large', `the request body exceeds ${MAX_BODY_BYTES} bytes`));
      } else {
        resolve(Buffer.concat(chunks).toString('utf8'));
      }
    });
    req.on('error', reject);
    req.on('close', () => reject(new Error('the client closed the request before sending all of it')));
  });
}
