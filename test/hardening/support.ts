// Helpers shared by the hardening tests: waiting for a state (not for time), reading what the app posted, and the
// checks every failure shown to a user must pass.
import { expect } from 'vitest';
import { rowsOf } from '../e2e/support.js';
import type { TestApp } from '../harness/app.js';
import { RESPONSE_URL, type SlackCall } from '../harness/fake-slack.js';

/**
 * Polls `probe` until `done` holds for its value, for states that no Slack call announces (the sandbox finishing a
 * delayed request). Fails with `description` after `timeoutMs`.
 */
export async function until<T>(
  probe: () => T | Promise<T>,
  done: (value: T) => boolean,
  description: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What a user reads in a failure: a sentence with no stack trace, no "undefined", no "[object …]". */
export function expectActionable(text: string): void {
  expect(text.trim().length, 'a non-empty message').toBeGreaterThan(10);
  expect(text).not.toMatch(/undefined|\[object |NaN/);
  expect(text, 'no stack trace').not.toMatch(/\n\s+at |at .+\(.+:\d+:\d+\)|\.ts:\d+/);
  expect(text, 'no error class names').not.toMatch(/\b(Type|Reference|Syntax|Range|Zod)Error\b|ProviderError/);
}

/** Calls of `method` recorded since `mark` (a `slack.mark()`; the tests never clear the fake's log). */
export function callsSince(t: TestApp, method: string, mark: number): SlackCall[] {
  return t.slack
    .calls()
    .slice(mark)
    .filter((call) => call.method === method);
}

/** What the app posted to response_urls since `mark`: the replies its acknowledgements carried left out. */
export function responseUrlPostsSince(t: TestApp, mark: number): SlackCall[] {
  return callsSince(t, RESPONSE_URL, mark).filter((call) => !call.inAck);
}

/** The app's routing records, number → agent id. */
export async function routeRecords(t: TestApp): Promise<Record<string, string>> {
  const rows = await rowsOf<{ phone_number: string; agent_id: string }>(t, 'SELECT phone_number, agent_id FROM routes');
  return Object.fromEntries(rows.map((row) => [row.phone_number, row.agent_id]));
}

/** The correlation id of a stored confirmation. */
export async function correlationOf(t: TestApp, confirmationId: string): Promise<string> {
  const [row] = await rowsOf<{ correlation_id: string }>(t, 'SELECT correlation_id FROM confirmations WHERE id = ?', [
    confirmationId,
  ]);
  if (!row) throw new Error(`no stored confirmation ${confirmationId}`);
  return row.correlation_id;
}
