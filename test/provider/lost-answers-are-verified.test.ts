// Every change whose answer was lost is settled by what the provider has, as a buy is: a release and an agent's
// deletion by the lists (never sent again), a map by sending it once more (the same number to the same agent has one
// effect). Made but unanswered (`lose_answer`) is done; never made (`drop_connection`) is NOT done and safe to retry;
// a list that cannot be read leaves the outcome UNKNOWN, said so.
import { describe, expect, it } from 'vitest';
import type { ProviderClient } from '../../src/provider/index.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { counter, rejection, useSandboxAndClient } from './helpers.js';

let sandbox: Sandbox;
let client: ProviderClient;

useSandboxAndClient((started) => {
  ({ sandbox, client } = started);
});

async function boughtNumber(): Promise<{ id: string; number: string }> {
  const [entry] = (await client.searchNumbers({ region: 'AU', limit: 1 })).data;
  if (!entry) throw new Error('the sandbox has no AU number left');
  return client.buyNumber(entry.number);
}

const newAgent = () => client.createAgent({ name: 'Desk', language: 'en-AU' });

const stillPurchased = async (id: string) =>
  (await client.listPurchasedNumbers()).some((entry) => entry.id === id && entry.status !== 'released');
const stillListed = async (id: string) => (await client.listAgents()).some((agent) => agent.id === id);

describe('a release', () => {
  it('made but unanswered is found gone from the purchased list, and reported released; sent once', async () => {
    const { id } = await boughtNumber();
    const releases = counter(sandbox, 'releaseNumber');
    sandbox.faults.inject('releaseNumber', { type: 'lose_answer' }, { times: 1 });
    expect(await client.releaseNumber(id)).toEqual({ id, status: 'released' });
    expect(releases()).toBe(1);
    expect(await stillPurchased(id)).toBe(false);
  });

  it.each(['drop_connection', 'contract_violation'] as const)(
    'never made (%s) is reported NOT completed and safe to retry, and the number is still there',
    async (fault) => {
      const { id } = await boughtNumber();
      sandbox.faults.inject('releaseNumber', { type: fault }, { times: 1 });
      const error = await rejection(client.releaseNumber(id));
      expect(error.message).toMatch(/The release of .+ was NOT completed.+safe to try again/);
      expect(await stillPurchased(id)).toBe(true);
    },
  );

  it('whose list cannot be read is UNKNOWN, and says where to look', async () => {
    const { id } = await boughtNumber();
    sandbox.faults.inject('releaseNumber', { type: 'lose_answer' }, { times: 1 });
    sandbox.faults.inject('listPurchasedNumbers', { type: 'status', status: 401 }, { times: 1 });
    const error = await rejection(client.releaseNumber(id));
    expect(error.message).toContain(`The outcome of releasing ${id} is UNKNOWN`);
    expect(error.message).toContain('Check /voice numbers');
  });
});

describe("an agent's deletion", () => {
  it('made but unanswered is found gone from the agents list, and reported deleted; sent once', async () => {
    const { id } = await newAgent();
    const deletions = counter(sandbox, 'deleteAgent');
    sandbox.faults.inject('deleteAgent', { type: 'lose_answer' }, { times: 1 });
    expect(await client.deleteAgent(id)).toEqual({ id, status: 'deleted' });
    expect(deletions()).toBe(1);
    expect(await stillListed(id)).toBe(false);
  });

  it('never made is reported NOT completed and safe to retry, and the agent is still there', async () => {
    const { id } = await newAgent();
    sandbox.faults.inject('deleteAgent', { type: 'drop_connection' }, { times: 1 });
    const error = await rejection(client.deleteAgent(id));
    expect(error.message).toMatch(/The deletion of .+ was NOT completed.+safe to try again/);
    expect(await stillListed(id)).toBe(true);
  });
});

describe('a map', () => {
  it('unanswered, made or not, is sent once more, and its second answer is the outcome', async () => {
    const [{ number }, agent] = await Promise.all([boughtNumber(), newAgent()]);
    for (const fault of ['lose_answer', 'drop_connection'] as const) {
      const maps = counter(sandbox, 'mapNumber');
      sandbox.faults.inject('mapNumber', { type: fault }, { times: 1 });
      const routed = await client.mapNumber({ phone_number: number, agent_id: agent.id });
      expect(routed).toMatchObject({ phone_number: number, agent_id: agent.id, status: 'connected' });
      expect(maps()).toBe(2);
    }
  });

  it('unanswered twice is UNKNOWN, and says so', async () => {
    const [{ number }, agent] = await Promise.all([boughtNumber(), newAgent()]);
    sandbox.faults.inject('mapNumber', { type: 'lose_answer' }, { times: 2 });
    const error = await rejection(client.mapNumber({ phone_number: number, agent_id: agent.id }));
    expect(error.message).toContain(`The outcome of routing ${number} to ${agent.id} is UNKNOWN`);
  });
});
