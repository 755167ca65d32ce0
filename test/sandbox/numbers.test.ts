import { describe, expect, it } from 'vitest';
import { Inventory, DEFAULT_NUMBERS_PER_REGION as NUMBERS_PER_REGION } from '../../src/sandbox/inventory.js';
import { expectError, type Provider, useSandbox } from './helpers.js';

const api = useSandbox();
const INVENTORY = new Inventory().entries;

/** Follows next_cursor until it is null and returns every number seen, in order. */
async function walk(provider: Provider, query: Record<string, string>): Promise<string[]> {
  const numbers: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await provider.search(cursor ? { ...query, cursor } : query);
    numbers.push(...page.data.map((entry) => entry.number));
    cursor = page.next_cursor;
  } while (cursor !== null);
  return numbers;
}

describe('sandbox number search', () => {
  it('serves pages of 20 by default with a next_cursor, each entry complete', async () => {
    const page = await api().search({ region: 'US' });
    expect(page.data).toHaveLength(20);
    expect(page.next_cursor).toEqual(expect.any(String));
    expect(page.data[0]).toEqual({
      id: 'avl_US_000',
      number: '+12125550100',
      region: 'US',
      capabilities: ['voice', 'sms'],
    });
  });

  it('walks every page of a region with next_cursor and finds all its numbers exactly once', async () => {
    const numbers = await walk(api(), { region: 'GB' });
    expect(numbers.length).toBeGreaterThanOrEqual(50);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(numbers).toEqual(INVENTORY.filter((entry) => entry.region === 'GB').map((entry) => entry.number));
  });

  it('honours limit up to 100 and walks the whole inventory without a region', async () => {
    const page = await api().search({ region: 'FR', limit: '7' });
    expect(page.data).toHaveLength(7);
    const all = await walk(api(), { limit: '100' });
    expect(all).toEqual(INVENTORY.map((entry) => entry.number));
  });

  it('ends with next_cursor null on the last page', async () => {
    const page = await api().search({ region: 'JP', limit: String(NUMBERS_PER_REGION) });
    expect(page.data).toHaveLength(NUMBERS_PER_REGION);
    expect(page.next_cursor).toBeNull();
  });

  it('answers an unknown but well-formed region with an empty page', async () => {
    expect(await api().search({ region: 'ZZ' })).toEqual({ data: [], next_cursor: null });
  });

  it('rejects a malformed region, limit or cursor with 400 naming the parameter', async () => {
    const search = (query: string) => api().call('GET', `/v1/list-available-numbers?${query}`);
    expect(expectError(await search('region=us'), 400, 'validation_error')).toMatch(/^region: /);
    expect(expectError(await search('region=USA'), 400, 'validation_error')).toMatch(/^region: /);
    for (const limit of ['0', '101', 'ten', '2.5', '']) {
      expect(expectError(await search(`limit=${limit}`), 400, 'validation_error')).toMatch(/^limit: /);
    }
    expect(expectError(await search('cursor=garbage'), 400, 'invalid_cursor')).toMatch(/^cursor: /);
    const forged = Buffer.from('after:avl_XX_999').toString('base64url');
    expectError(await search(`cursor=${forged}`), 400, 'invalid_cursor');
  });

  it('neither skips nor repeats a number when one is bought between two pages', async () => {
    const first = await api().search({ region: 'DE', limit: '5' });
    await api().buy(first.data[0]?.number ?? '');
    const second = await api().search({ region: 'DE', limit: '5', cursor: first.next_cursor ?? '' });
    const german = INVENTORY.filter((entry) => entry.region === 'DE');
    expect(second.data.map((entry) => entry.id)).toEqual(german.slice(5, 10).map((entry) => entry.id));
  });
});

describe('sandbox number purchase and release', () => {
  it('buys a number: active, in the purchased list, gone from search', async () => {
    const bought = await api().buy('+12125550100');
    expect(bought).toEqual({
      id: expect.stringMatching(/^pn_[0-9a-f]{16}$/),
      number: '+12125550100',
      status: 'active',
    });
    expect(await api().purchased()).toEqual([bought]);
    const numbers = (await walk(api(), { region: 'US' })).filter((number) => number === '+12125550100');
    expect(numbers).toEqual([]);
  });

  it('refuses a number already purchased with 409 and one never in the inventory with 404', async () => {
    await api().buy('+442079460000');
    const again = await api().call('POST', '/v1/buy-phone-number', { body: { number: '+442079460000' } });
    expect(expectError(again, 409, 'number_unavailable')).toContain('+442079460000');
    const unknown = await api().call('POST', '/v1/buy-phone-number', { body: { number: '+15005550006' } });
    expectError(unknown, 404, 'number_not_found');
    const malformed = await api().call('POST', '/v1/buy-phone-number', { body: { number: '0044 20 7946 0000' } });
    expect(expectError(malformed, 400, 'validation_error')).toMatch(/^number: must be an E\.164 number/);
    expect(await api().purchased()).toHaveLength(1);
  });

  it('releases a number: released, off the purchased list, back in search, buyable again under a new id', async () => {
    const bought = await api().buy('+61255500000');
    const released = await api().call('DELETE', `/v1/release-phone-number/${bought.id}`);
    expect(released.status).toBe(200);
    expect(released.json).toEqual({ id: bought.id, status: 'released' });
    expect(await api().purchased()).toEqual([]);
    expect((await api().search({ region: 'AU', limit: '1' })).data[0]?.number).toBe('+61255500000');
    const rebought = await api().buy('+61255500000');
    expect(rebought.id).not.toBe(bought.id);
    expect(await api().purchased()).toEqual([rebought]);
  });

  it('answers 404 when releasing an unknown or already released id', async () => {
    expectError(await api().call('DELETE', '/v1/release-phone-number/pn_nope'), 404, 'number_not_found');
    const bought = await api().buy('+81355550000');
    await api().call('DELETE', `/v1/release-phone-number/${bought.id}`);
    expectError(await api().call('DELETE', `/v1/release-phone-number/${bought.id}`), 404, 'number_not_found');
  });

  it('lets exactly one of two simultaneous buys of the same number succeed', async () => {
    const buy = () => api().call('POST', '/v1/buy-phone-number', { body: { number: '+33199000000' } });
    const answers = await Promise.all([buy(), buy()]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(await api().purchased()).toHaveLength(1);
  });
});
