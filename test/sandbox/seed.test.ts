// A sandbox account filled in at start, straight into SQLite: the size tests and the benchmark run at.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { expectError, provider } from './helpers.js';

const running: Sandbox[] = [];
const directory = mkdtempSync(join(tmpdir(), 'sandbox-seed-'));
afterAll(async () => {
  await Promise.all(running.splice(0).map((sandbox) => sandbox.close()));
  rmSync(directory, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startSandbox>[0]) {
  const sandbox = await startSandbox(options);
  running.push(sandbox);
  return provider(sandbox);
}

describe('a seeded sandbox', () => {
  it('holds 10,000 purchased numbers across every region and 1,000 agents, served by its own API', async () => {
    const api = await start({ numbersPerRegion: 1000, seed: { agents: 1000, numbers: 10_000, routed: 12 } });
    const agents = await api.listAgents();
    expect(agents).toHaveLength(1000);
    expect(agents[0]).toEqual({ id: 'agt_s0001', name: 'Agent 0001', status: 'active' });
    const purchased = await api.purchased();
    expect(purchased).toHaveLength(10_000);
    expect(new Set(purchased.map((entry) => entry.number)).size).toBe(10_000);
    expect(purchased[0]).toEqual({ id: 'pn_s00001', number: '+12125550100', status: 'active' });
    // One region at a time in turn: the first twelve are one of each.
    expect(new Set(purchased.slice(0, 12).map((entry) => entry.number.slice(0, 3))).size).toBeGreaterThan(8);

    // Seeded numbers are no longer for sale.
    const owned = new Set(purchased.map((entry) => entry.number));
    const forSale = await api.search({ region: 'US', limit: '100' });
    for (const entry of forSale.data) expect(owned.has(entry.number), entry.number).toBe(false);

    // The routed ones route to the seeded agents in turn: the provider refuses to delete such an agent.
    expectError(await api.call('DELETE', '/v1/ai-agents/agt_s0001'), 409, 'agent_in_use');
    expect((await api.call('DELETE', '/v1/ai-agents/agt_s0999')).status).toBe(200);
  });

  it('seeds only an account that never had anything: a reopened file keeps its own state', async () => {
    const databasePath = join(directory, 'seeded.db');
    const first = await start({ databasePath, seed: { agents: 2, numbers: 3 } });
    await first.buy((await first.search({ region: 'JP' })).data[0]?.number ?? '');
    await first.sandbox.close();
    const second = await start({ databasePath, seed: { agents: 2, numbers: 3 } });
    expect(await second.listAgents()).toHaveLength(2);
    expect(await second.purchased()).toHaveLength(4);
  });

  it('refuses a seed its inventory cannot hold', async () => {
    await expect(startSandbox({ numbersPerRegion: 10, seed: { numbers: 121 } })).rejects.toThrow(/inventory of 120/);
    await expect(startSandbox({ seed: { numbers: 5, routed: 5 } })).rejects.toThrow(/seeded agent/);
  });
});
