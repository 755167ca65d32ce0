// A buy whose answer is lost is never sent again: the purchased list decides what happened, and the
// caller is told plainly which of three outcomes it is.
import { describe, expect, it } from 'vitest';
import type { ProviderClient } from '../../src/provider/index.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { clientFor, closedPortUrl, counter, rejection, useSandboxAndClient } from './helpers.js';

let sandbox: Sandbox;
let client: ProviderClient;

useSandboxAndClient((started) => {
  ({ sandbox, client } = started);
});

/** A number still for sale; each call gives another, since bought ones leave the inventory. */
async function availableNumber(): Promise<string> {
  const [entry] = (await client.searchNumbers({ region: 'AU', limit: 1 })).data;
  if (!entry) throw new Error('the sandbox has no AU number left');
  return entry.number;
}

async function isPurchased(number: string): Promise<boolean> {
  return (await client.listPurchasedNumbers()).some((entry) => entry.number === number);
}

it('a purchase made but whose answer was lost is found in the purchased list and reported as reconciled', async () => {
  const number = await availableNumber();
  const buys = counter(sandbox, 'buyNumber');
  const reads = counter(sandbox, 'listPurchasedNumbers');
  sandbox.faults.inject('buyNumber', { type: 'lose_answer' }, { times: 1 });

  const bought = await client.buyNumber(number);

  expect(bought).toMatchObject({ number, status: 'active', reconciled: true });
  expect(bought.id).not.toBe('');
  expect(buys()).toBe(1);
  expect(reads()).toBe(1);
});

it('a buy that timed out but that the provider then completed is reconciled too', async () => {
  // The provider holds the buy until the client has given up on it, then completes it at once: the release runs
  // the held buy to its end before the provider reads another request, so the client's read of the purchased list,
  // sent after the timeout, finds the purchase there. No clock is raced but the client's own timeout.
  const impatient = clientFor(sandbox, {
    timeoutMs: 500,
    onRequest: ({ endpoint, error }) => {
      if (endpoint === '/buy-phone-number' && error === 'timeout') sandbox.faults.clear();
    },
  });
  try {
    const number = await availableNumber();
    const buys = counter(sandbox, 'buyNumber');
    const reads = counter(sandbox, 'listPurchasedNumbers');
    sandbox.faults.inject('buyNumber', { type: 'hold' }, { times: 1 });

    const bought = await impatient.buyNumber(number);

    expect(bought).toMatchObject({ number, status: 'active', reconciled: true });
    expect(buys()).toBe(1);
    expect(reads()).toBe(1);
  } finally {
    await impatient.close();
  }
});

describe('a purchase that did not happen is reported as NOT completed and safe to retry', () => {
  it.each([
    ['a dropped connection', 'network', { type: 'drop_connection' }],
    ['a 503', 'unavailable', { type: 'status', status: 503 }],
    ['a 500', 'unavailable', { type: 'status', status: 500 }],
    // A success whose body cannot be read is as good as lost: it may well have bought the number.
    ['a 200 that is not JSON', 'bad_response', { type: 'malformed_json' }],
    ['a 200 that breaks the contract', 'bad_response', { type: 'contract_violation' }],
  ] as const)('after %s', async (_what, kind, fault) => {
    const number = await availableNumber();
    const buys = counter(sandbox, 'buyNumber');
    sandbox.faults.inject('buyNumber', fault, { times: 1 });

    const error = await rejection(client.buyNumber(number));

    expect(error.kind).toBe(kind);
    expect(error.message).toContain(`The purchase of ${number} was NOT completed`);
    expect(error.message).toContain('safe to try again');
    expect(error.message).not.toContain('UNKNOWN');
    expect(buys()).toBe(1);
    expect(await isPurchased(number)).toBe(false);
  });
});

it('when the purchased list cannot be read either, the outcome is reported as UNKNOWN', async () => {
  const number = await availableNumber();
  const buys = counter(sandbox, 'buyNumber');
  const reads = counter(sandbox, 'listPurchasedNumbers');
  sandbox.faults.inject('buyNumber', { type: 'lose_answer' }, { times: 1 });
  sandbox.faults.inject('listPurchasedNumbers', { type: 'status', status: 503 });

  const error = await rejection(client.buyNumber(number));

  expect(error.kind).toBe('unavailable');
  expect(error.message).toContain(`The outcome of buying ${number} is UNKNOWN`);
  expect(error.message).toContain('/voice numbers');
  expect(error.message).not.toContain('NOT completed');
  expect(buys()).toBe(1);
  // The read is a GET, so it was retried before giving up.
  expect(reads()).toBe(3);
});

it('a buy that could not even connect is a plain network error: nothing was sent, nothing to reconcile', async () => {
  const nowhere = clientFor({ url: await closedPortUrl(), apiKey: 'any' });
  try {
    const error = await rejection(nowhere.buyNumber('+61255500001'));
    expect(error.kind).toBe('network');
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).not.toContain('UNKNOWN');
  } finally {
    await nowhere.close();
  }
});

it('a buy asked of a client already closed is a plain network error: nothing was sent, nothing to reconcile', async () => {
  const closed = clientFor(sandbox);
  await closed.close();
  const buys = counter(sandbox, 'buyNumber');
  const reads = counter(sandbox, 'listPurchasedNumbers');
  const error = await rejection(closed.buyNumber('+61255500002'));
  expect(error.kind).toBe('network');
  expect(error.message).not.toContain('UNKNOWN');
  expect(buys()).toBe(0);
  expect(reads()).toBe(0);
});

it('a refused buy (409) is reported as is, without reading the purchased list', async () => {
  const number = await availableNumber();
  await client.buyNumber(number);
  const reads = counter(sandbox, 'listPurchasedNumbers');
  const error = await rejection(client.buyNumber(number));
  expect(error.kind).toBe('conflict');
  expect(reads()).toBe(0);
});
