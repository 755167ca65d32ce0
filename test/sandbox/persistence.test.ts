import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { provider } from './helpers.js';

let directory: string;
let databasePath: string;
const running: Sandbox[] = [];

async function start(): Promise<Sandbox> {
  const sandbox = await startSandbox({ databasePath });
  running.push(sandbox);
  return sandbox;
}

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'sandbox-db-'));
  databasePath = join(directory, 'nested', 'sandbox.db');
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((sandbox) => sandbox.close()));
  rmSync(directory, { recursive: true, force: true });
});

/** Every row of every table, as text. */
function dumpRows(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    expect(tables.map((table) => table.name).sort()).toEqual(['agents', 'purchased_numbers', 'routes']);
    return tables.map(({ name }) => JSON.stringify(db.prepare(`SELECT * FROM "${name}"`).all())).join('\n');
  } finally {
    db.close();
  }
}

/** The raw bytes of the database and its WAL and shared-memory files. */
function rawFiles(): string {
  const folder = dirname(databasePath);
  return readdirSync(folder)
    .map((file) => readFileSync(join(folder, file)).toString('latin1'))
    .join('\n');
}

describe('sandbox database file', () => {
  // The file sits in a directory that does not exist yet, as data/ in a fresh checkout.
  it('never stores agent_token, in any row or any file byte', async () => {
    const api = provider(await start());
    const agent = await api.createAgent('Token keeper');
    await api.buy('+12125550100');
    await api.map('+12125550100', agent.id);

    const whileRunning = rawFiles();
    expect(whileRunning).toContain(agent.id);
    expect(whileRunning).not.toContain(agent.agent_token);
    expect(whileRunning).not.toContain(agent.agent_token.slice(4));

    await api.sandbox.close();
    const rows = dumpRows(databasePath);
    expect(rows).toContain(agent.id);
    expect(rows).toContain('Token keeper');
    expect(rows).not.toContain(agent.agent_token);
    expect(rows).not.toContain(agent.agent_token.slice(4));
    expect(rawFiles()).not.toContain(agent.agent_token);
  });

  it('keeps agents, purchases and routes across a restart', async () => {
    const first = provider(await start());
    const agent = await first.createAgent('Survivor');
    const bought = await first.buy('+493023125000');
    await first.map('+493023125000', agent.id);
    await first.sandbox.close();

    const second = provider(await start());
    expect(await second.listAgents()).toEqual([{ id: agent.id, name: 'Survivor', status: 'active' }]);
    expect(await second.purchased()).toEqual([bought]);
    expect((await second.call('DELETE', `/v1/ai-agents/${agent.id}`)).status).toBe(409);
  });
});
