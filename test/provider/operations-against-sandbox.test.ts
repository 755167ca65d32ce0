// Every client method, end to end against the sandbox over HTTP, through the states of provider-api.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderClient } from '../../src/provider/index.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { clientFor, counter, rejection } from './helpers.js';

let sandbox: Sandbox;
let client: ProviderClient;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  client = clientFor(sandbox);
});

afterAll(async () => {
  await client.close();
  await sandbox.close();
});

describe('agents', () => {
  it('creates an agent, lists it without its token, and deletes it', async () => {
    const created = await client.createAgent({ name: 'Front desk', language: 'en-US' });
    expect(created).toMatchObject({ name: 'Front desk', status: 'active' });
    expect(created.id).not.toBe('');
    expect(created.agent_token).not.toBe('');

    const listed = await client.listAgents();
    const entry = listed.find((agent) => agent.id === created.id);
    expect(entry).toEqual({ id: created.id, name: 'Front desk', status: 'active' });

    expect(await client.deleteAgent(created.id)).toEqual({ id: created.id, status: 'deleted' });
  });
});

describe('numbers', () => {
  it('searches one page of a region, and a smaller page with limit', async () => {
    const page = await client.searchNumbers({ region: 'GB' });
    expect(page.data).toHaveLength(20);
    expect(page.data.every((entry) => entry.region === 'GB')).toBe(true);
    expect(page.next_cursor).toEqual(expect.any(String));

    const small = await client.searchNumbers({ region: 'GB', limit: 5 });
    expect(small.data.map((entry) => entry.number)).toEqual(page.data.slice(0, 5).map((entry) => entry.number));
  });

  it('fetches the next page with the cursor it was given', async () => {
    const first = await client.searchNumbers({ region: 'DE' });
    const second = await client.searchNumbers({ region: 'DE', cursor: first.next_cursor ?? undefined });
    const firstNumbers = new Set(first.data.map((entry) => entry.number));
    expect(second.data.length).toBeGreaterThan(0);
    expect(second.data.some((entry) => firstNumbers.has(entry.number))).toBe(false);
  });

  it('buys a number, lists it as purchased, maps it to an agent and releases it', async () => {
    const [available] = (await client.searchNumbers({ region: 'US', limit: 1 })).data;
    if (!available) throw new Error('the sandbox offers no US number');
    const buys = counter(sandbox, 'buyNumber');

    const bought = await client.buyNumber(available.number);
    expect(bought).toMatchObject({ number: available.number, status: 'active', reconciled: false });
    expect(buys()).toBe(1);

    const purchased = await client.listPurchasedNumbers();
    expect(purchased).toContainEqual({ id: bought.id, number: available.number, status: 'active' });

    const agent = await client.createAgent({ name: 'Sales line', language: 'fr-FR' });
    expect(await client.mapNumber({ phone_number: available.number, agent_id: agent.id })).toEqual({
      phone_number: available.number,
      route_type: 'ai_agent',
      agent_id: agent.id,
      status: 'connected',
    });

    expect(await client.releaseNumber(bought.id)).toEqual({ id: bought.id, status: 'released' });
  });
});

describe('pagination', () => {
  it('follows next_cursor through every page of a region until it is null', async () => {
    const pages = [];
    for await (const page of client.searchNumberPages({ region: 'JP' })) pages.push(page);

    // 55 JP numbers in pages of 20: 20, 20, 15.
    expect(pages.map((page) => page.length)).toEqual([20, 20, 15]);
    const numbers = pages.flat().map((entry) => entry.number);
    expect(new Set(numbers).size).toBe(55);
    expect(pages.flat().every((entry) => entry.region === 'JP')).toBe(true);
  });

  it('stops after maxPages although more pages remain', async () => {
    const searches = counter(sandbox, 'searchNumbers');
    const pages = [];
    for await (const page of client.searchNumberPages({ region: 'IN', limit: 10 }, { maxPages: 2 })) pages.push(page);

    expect(pages.map((page) => page.length)).toEqual([10, 10]);
    expect(searches()).toBe(2);
  });

  it('reads at most 10 pages by default', async () => {
    const searches = counter(sandbox, 'searchNumbers');
    let pages = 0;
    for await (const _page of client.searchNumberPages({ limit: 1 })) pages++;
    expect(pages).toBe(10);
    expect(searches()).toBe(10);
  });
});

describe('ids in paths', () => {
  it('keeps an id with "/" inside its own path segment, so it reaches the delete route as an unknown agent', async () => {
    const deletes = counter(sandbox, 'deleteAgent');
    // Unencoded, the dot segments would turn this into DELETE /v1/purchased-phone-numbers.
    const error = await rejection(client.deleteAgent('agt_1/../../purchased-phone-numbers'));
    expect(error.kind).toBe('not_found');
    expect(deletes()).toBe(1);
  });

  it('keeps an id with "?" inside its own path segment, so it reaches the release route as an unknown number', async () => {
    const releases = counter(sandbox, 'releaseNumber');
    // Unencoded, the path would end in "/" and match no route at all.
    const error = await rejection(client.releaseNumber('?status=released'));
    expect(error.kind).toBe('not_found');
    expect(releases()).toBe(1);
  });
});
