// The retry arithmetic on its own, with a fake clock: backoff bounds, Retry-After parsing, and the budget.
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/provider/errors.js';
import { backoffDelay, parseRetryAfter, type RetryEnvironment, withRetry } from '../../src/provider/retry.js';

const POLICY = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000, maxTotalMs: 10_000 };

describe('backoffDelay', () => {
  it('doubles its ceiling per attempt up to maxDelayMs, with jitter from 0 to the ceiling', () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(attempt, POLICY, () => 0.999_999))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect(backoffDelay(4, POLICY, () => 0)).toBe(0);
    expect(backoffDelay(2, POLICY, () => 0.5)).toBe(100);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T12:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter(['2', '9'], now)).toBe(2_000);
  });

  it('reads an HTTP date, and a date in the past as no wait', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 12:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores an absent or unreadable header', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});

describe('withRetry', () => {
  function fakeEnvironment(): RetryEnvironment & { slept: number[] } {
    let clock = 0;
    const slept: number[] = [];
    return {
      slept,
      now: () => clock,
      random: () => 0.5,
      sleep: async (ms) => {
        slept.push(ms);
        clock += ms;
      },
    };
  }

  const unavailable = new ProviderError('unavailable', 'down', { status: 503 });
  const always = () => true;

  it('stops after maxAttempts and throws the last error', async () => {
    const environment = fakeEnvironment();
    let attempts = 0;
    const run = async () => {
      attempts++;
      throw unavailable;
    };
    await expect(withRetry(run, always, { ...POLICY, maxAttempts: 3 }, environment)).rejects.toBe(unavailable);
    expect(attempts).toBe(3);
    expect(environment.slept).toEqual([50, 100]);
  });

  it('waits what Retry-After asks instead of the backoff step', async () => {
    const environment = fakeEnvironment();
    const limited = new ProviderError('rate_limited', 'slow down', { status: 429, retryAfterMs: 4_000 });
    let attempts = 0;
    const result = await withRetry(
      async () => {
        if (attempts++ === 0) throw limited;
        return 'done';
      },
      always,
      POLICY,
      environment,
    );
    expect(result).toBe('done');
    expect(environment.slept).toEqual([4_000]);
  });

  it('does not wait beyond the budget: a Retry-After longer than what remains ends it at once', async () => {
    const environment = fakeEnvironment();
    const limited = new ProviderError('rate_limited', 'slow down', { status: 429, retryAfterMs: 10_001 });
    await expect(withRetry(async () => Promise.reject(limited), always, POLICY, environment)).rejects.toBe(limited);
    expect(environment.slept).toEqual([]);
  });

  it('rethrows at once what the caller will not retry, and anything that is not a ProviderError', async () => {
    const environment = fakeEnvironment();
    await expect(
      withRetry(
        async () => Promise.reject(unavailable),
        () => false,
        POLICY,
        environment,
      ),
    ).rejects.toBe(unavailable);
    const bug = new TypeError('bug');
    await expect(withRetry(async () => Promise.reject(bug), always, POLICY, environment)).rejects.toBe(bug);
    expect(environment.slept).toEqual([]);
  });
});
