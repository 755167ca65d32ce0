// Every change whose answer was lost is settled by what the provider has, as a buy is: a release and an agent's
// deletion by the lists (never sent again), an agent's creation by the one new agent of its name in the agents list,
// a map by sending it once more (the same number to the same agent has one effect). Made but unanswered (`lose_answer`) is done; never made (`drop_connection`) is NOT done and safe to retry;
// a list that cannot be read leaves the outcome UNKNOWN, said so.
import { describe, expect, it } from 'vitest';
import type { ProviderClient } from '../../src/provider/index.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { until } from '../hardening/support.js';
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

describe("an agent's creation", () => {
  const named = async (name: string) => (await client.listAgents()).filter((agent) => agent.name === name);

  it('made but unanswered is found in the agents list as the one new agent of its name, without its token', async () => {
    const before = await client.createAgent({ name: 'Twin desk', language: 'en-GB' });
    const creations = counter(sandbox, 'createAgent');
    sandbox.faults.inject('createAgent', { type: 'lose_answer' }, { times: 1 });
    const found = await client.createAgent({ name: 'Twin desk', language: 'en-GB' }, [before.id]);
    expect(found).toMatchObject({ name: 'Twin desk', status: 'active', tokenLost: true });
    expect(found).not.toHaveProperty('agent_token');
    expect(found.id).not.toBe(before.id);
    expect(creations()).toBe(1);
    expect((await named('Twin desk')).map((agent) => agent.id).sort()).toEqual([before.id, found.id].sort());
  });

  it('never made is reported NOT completed and safe to retry, and no agent of its name appeared', async () => {
    sandbox.faults.inject('createAgent', { type: 'drop_connection' }, { times: 1 });
    const error = await rejection(client.createAgent({ name: 'Never desk', language: 'en-GB' }, []));
    expect(error.message).toMatch(/The creation of "Never desk" was NOT completed.+safe to try again/);
    expect(await named('Never desk')).toEqual([]);
  });

  it('unanswered while someone else made one of the same name is UNKNOWN, and says so', async () => {
    sandbox.faults.inject('createAgent', { type: 'lose_answer' }, { times: 1 });
    sandbox.faults.inject('listAgents', { type: 'hold' }, { times: 1 });
    const lists = counter(sandbox, 'listAgents');
    const creating = client.createAgent({ name: 'Busy desk', language: 'en-GB' }, []);
    await until(lists, (count) => count > 0, 'the settling list read to reach the provider');
    // Someone else's creation of the same name lands while the list that settles the lost answer is held.
    await client.createAgent({ name: 'Busy desk', language: 'en-GB' });
    sandbox.faults.clear();
    const error = await rejection(creating);
    expect(error.message).toContain('The outcome of creating agent "Busy desk" is UNKNOWN');
    expect(error.message).toContain('2 new agents of that name are listed');
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
