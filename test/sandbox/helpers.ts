// Talks plain HTTP to a real sandbox, checking each success against the shared wire schemas on the way.
import { afterEach, beforeEach, expect } from 'vitest';
import type { z } from 'zod';
import {
  agentList,
  availableNumberPage,
  createdAgent,
  errorInfoBody,
  purchasedNumber,
  purchasedNumberList,
  routing,
} from '../../src/provider/schemas.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/server.js';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as-is instead of `body`. */
  rawBody?: string;
  /** null sends no Content-Type. */
  contentType?: string | null;
  /** null sends no Authorization header; default is the sandbox's key. */
  key?: string | null;
  signal?: AbortSignal;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One request; `path` is from the origin, e.g. `/v1/ai-agents` or `/_control/faults`. */
export async function call(sandbox: Sandbox, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? sandbox.apiKey : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const contentType =
    options.contentType === undefined && body !== undefined ? 'application/json' : options.contentType;
  if (contentType) headers['content-type'] = contentType;
  const response = await fetch(`${new URL(sandbox.url).origin}${path}`, {
    method,
    headers,
    body,
    signal: options.signal,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: parseJson(text) };
}

function expectSuccess<T>(answer: Answer, status: number, schema: z.ZodType<T>): T {
  expect(answer.status, answer.text).toBe(status);
  return schema.parse(answer.json);
}

/** A running sandbox plus typed calls for the happy paths. */
export function provider(sandbox: Sandbox) {
  return {
    sandbox,
    call: (method: string, path: string, options?: CallOptions) => call(sandbox, method, path, options),
    async createAgent(name = 'Front desk', language = 'en-US') {
      return expectSuccess(
        await call(sandbox, 'POST', '/v1/ai-agents', { body: { name, language } }),
        201,
        createdAgent,
      );
    },
    async listAgents() {
      return expectSuccess(await call(sandbox, 'GET', '/v1/ai-agents'), 200, agentList).data;
    },
    async search(query: Record<string, string> = {}) {
      const answer = await call(sandbox, 'GET', `/v1/list-available-numbers?${new URLSearchParams(query)}`);
      return expectSuccess(answer, 200, availableNumberPage);
    },
    async buy(number: string) {
      return expectSuccess(
        await call(sandbox, 'POST', '/v1/buy-phone-number', { body: { number } }),
        201,
        purchasedNumber,
      );
    },
    async purchased() {
      return expectSuccess(await call(sandbox, 'GET', '/v1/purchased-phone-numbers'), 200, purchasedNumberList).data;
    },
    async map(phoneNumber: string, agentId: string) {
      const body = { phone_number: phoneNumber, route_type: 'ai_agent', agent_id: agentId };
      return expectSuccess(await call(sandbox, 'POST', '/v1/phone-number-routing', { body }), 200, routing);
    },
  };
}

export type Provider = ReturnType<typeof provider>;

/** A fresh sandbox for each test, closed after it. */
export function useSandbox(options?: SandboxOptions): () => Provider {
  let current: Provider | undefined;
  beforeEach(async () => {
    current = provider(await startSandbox(options));
  });
  afterEach(async () => {
    await current?.sandbox.close();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('useSandbox() is only available inside a test');
    return current;
  };
}

/** The error body every failure carries. */
export function expectError(answer: Answer, status: number, error: string): string {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.json).toEqual({ error, info: expect.any(String) });
  return errorInfoBody.parse(answer.json).info ?? '';
}
