// Retry with exponential backoff and full jitter, bounded by attempts and by a total time budget. Which
// errors may be retried is the caller's decision: only the caller knows whether a request can act twice.
import { ProviderError } from './errors.js';

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Budget for all attempts and waits together, counted from the first attempt. */
  maxTotalMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 2_000,
  maxTotalMs: 15_000,
};

/** Clock, sleep and randomness, replaceable so the policy can be tested without waiting. */
export interface RetryEnvironment {
  now(): number;
  sleep(ms: number): Promise<void>;
  random(): number;
}

const realEnvironment: RetryEnvironment = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

/** Full jitter: anywhere between 0 and the capped exponential step, so clients that failed together spread out. */
export function backoffDelay(
  attempt: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/** `Retry-After` as milliseconds to wait: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  // HTTP dates in all three permitted formats start with a day name; Date.parse alone takes "-5" for a year.
  if (!/^[A-Za-z]{3}/.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Runs `attempt` until it succeeds, throws something `canRetry` refuses, or the attempts or the budget run
 * out; the last error is thrown as is. A provider's `Retry-After` replaces the backoff step, and when
 * it would not fit in the remaining budget we stop at once rather than wait for nothing.
 */
export async function withRetry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  canRetry: (error: ProviderError) => boolean,
  policy: RetryPolicy,
  environment: RetryEnvironment = realEnvironment,
): Promise<T> {
  const started = environment.now();
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (!(error instanceof ProviderError) || !canRetry(error) || attemptNumber >= policy.maxAttempts) throw error;
      const delay = error.retryAfterMs ?? backoffDelay(attemptNumber, policy, environment.random);
      const remaining = policy.maxTotalMs - (environment.now() - started);
      if (delay > remaining) throw error;
      await environment.sleep(delay);
    }
  }
}
