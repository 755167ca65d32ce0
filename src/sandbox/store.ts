// The sandbox's state: agents, purchased numbers and routes, in SQLite. Every change checks and writes in one
// immediate transaction, so two requests (or two processes sharing a file) can never both win a race.
// agent_token never reaches this module: secrets are not stored, not even here.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Agent, DeletedAgent, PurchasedNumber, ReleasedNumber, Routing } from '../provider/schemas.js';
import { ApiError } from './http.js';
import { Inventory } from './inventory.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS agents (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    language TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'deleted'))
  );
  CREATE TABLE IF NOT EXISTS purchased_numbers (
    id TEXT PRIMARY KEY,
    number TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'released'))
  );
  CREATE UNIQUE INDEX IF NOT EXISTS one_active_purchase ON purchased_numbers (number) WHERE status = 'active';
  CREATE TABLE IF NOT EXISTS routes (
    number_id TEXT PRIMARY KEY REFERENCES purchased_numbers (id),
    agent_id TEXT NOT NULL REFERENCES agents (id)
  );
`;

function newId(prefix: string): string {
  return `${prefix}${randomBytes(8).toString('hex')}`;
}

/** An account filled in at once, straight into SQLite, for tests and the benchmark at scale. */
export interface SandboxSeed {
  agents?: number;
  /** Purchased numbers, taken from the inventory a region at a time in turn (US, CA, GB, … then US again). */
  numbers?: number;
  /** The first this many seeded numbers route to the seeded agents in turn. */
  routed?: number;
}

const SEED_LANGUAGES = ['en-US', 'en-GB', 'fr-FR', 'de-DE', 'es-ES', 'ja-JP'];

export class SandboxStore {
  private readonly db: Database.Database;
  readonly inventory: Inventory;

  constructor(path = ':memory:', inventory = new Inventory()) {
    this.inventory = inventory;
    const inFile = path !== ':memory:';
    // A fresh checkout has no data/ directory yet.
    if (inFile) mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    if (inFile) this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.exec(SCHEMA);
  }

  close(): void {
    this.db.close();
  }

  createAgent(name: string, language: string): Agent {
    const agent = { id: newId('agt_'), name, status: 'active' };
    this.db
      .prepare('INSERT INTO agents (id, name, language, status) VALUES (?, ?, ?, ?)')
      .run(agent.id, name, language, agent.status);
    return agent;
  }

  listAgents(): Agent[] {
    return this.db
      .prepare<[], Agent>("SELECT id, name, status FROM agents WHERE status = 'active' ORDER BY rowid")
      .all();
  }

  deleteAgent(id: string): DeletedAgent {
    return this.db
      .transaction(() => {
        this.requireActiveAgent(id);
        const routed = this.db
          .prepare<[string], { number: string }>(
            'SELECT p.number FROM routes r JOIN purchased_numbers p ON p.id = r.number_id WHERE r.agent_id = ? ORDER BY p.number',
          )
          .all(id)
          .map((row) => row.number);
        if (routed.length > 0) {
          throw new ApiError(
            409,
            'agent_in_use',
            `agent ${id} is still routed from ${routed.join(', ')}; map those numbers to another agent or release them first`,
          );
        }
        this.db.prepare("UPDATE agents SET status = 'deleted' WHERE id = ?").run(id);
        return { id, status: 'deleted' };
      })
      .immediate();
  }

  /** The numbers currently purchased, which are therefore not for sale. */
  purchasedNumberSet(): Set<string> {
    const rows = this.db.prepare<[], { number: string }>(
      "SELECT number FROM purchased_numbers WHERE status = 'active'",
    );
    return new Set(rows.all().map((row) => row.number));
  }

  buyNumber(number: string): PurchasedNumber {
    if (!this.inventory.find(number)) {
      throw new ApiError(
        404,
        'number_not_found',
        `${number} is not in the inventory; buy a number that search returned`,
      );
    }
    return this.db
      .transaction(() => {
        if (this.findActiveNumber(number)) {
          throw new ApiError(409, 'number_unavailable', `${number} has already been purchased`);
        }
        const purchase = { id: newId('pn_'), number, status: 'active' };
        this.db
          .prepare('INSERT INTO purchased_numbers (id, number, status) VALUES (?, ?, ?)')
          .run(purchase.id, number, purchase.status);
        return purchase;
      })
      .immediate();
  }

  /** The active purchases; with `released`, the released ones too, each with its status. */
  listPurchasedNumbers(options: { released?: boolean } = {}): PurchasedNumber[] {
    const which = options.released ? '' : "WHERE status = 'active' ";
    return this.db
      .prepare<[], PurchasedNumber>(`SELECT id, number, status FROM purchased_numbers ${which}ORDER BY rowid`)
      .all();
  }

  /** Releases a number; its route goes with it, since nobody can call an agent through a number we gave up. */
  releaseNumber(id: string): ReleasedNumber {
    return this.db
      .transaction(() => {
        const released = this.db
          .prepare("UPDATE purchased_numbers SET status = 'released' WHERE id = ? AND status = 'active'")
          .run(id);
        if (released.changes === 0) {
          throw new ApiError(404, 'number_not_found', `no purchased number has the id ${id}`);
        }
        this.db.prepare('DELETE FROM routes WHERE number_id = ?').run(id);
        return { id, status: 'released' };
      })
      .immediate();
  }

  /** Routes a purchased number to an active agent, replacing any route it had. */
  mapNumber(phoneNumber: string, agentId: string): Routing {
    return this.db
      .transaction(() => {
        const purchase = this.findActiveNumber(phoneNumber);
        if (!purchase) {
          throw new ApiError(409, 'number_not_purchased', `${phoneNumber} is not a purchased number; buy it first`);
        }
        this.requireActiveAgent(agentId);
        this.db
          .prepare(
            'INSERT INTO routes (number_id, agent_id) VALUES (?, ?) ON CONFLICT (number_id) DO UPDATE SET agent_id = excluded.agent_id',
          )
          .run(purchase.id, agentId);
        return { phone_number: phoneNumber, route_type: 'ai_agent', agent_id: agentId, status: 'connected' };
      })
      .immediate();
  }

  /**
   * Fills an account that has never had an agent or a number: a store reopened on its file is left as it is. Ids are
   * deterministic (`agt_s0001`, `pn_s00001`), so tests and the benchmark can name what they find.
   */
  seed(seed: SandboxSeed): void {
    const { agents = 0, numbers = 0, routed = 0 } = seed;
    if (numbers > this.inventory.entries.length) {
      throw new RangeError(`cannot seed ${numbers} numbers from an inventory of ${this.inventory.entries.length}`);
    }
    if (routed > numbers || (routed > 0 && agents === 0)) {
      throw new RangeError('routed numbers need as many seeded numbers and at least one seeded agent');
    }
    this.db
      .transaction(() => {
        const used = this.db.prepare(
          'SELECT (SELECT count(*) FROM agents) + (SELECT count(*) FROM purchased_numbers) AS n',
        );
        if ((used.get() as { n: number }).n > 0) return;
        const addAgent = this.db.prepare("INSERT INTO agents (id, name, language, status) VALUES (?, ?, ?, 'active')");
        const agentIds = Array.from({ length: agents }, (_, index) => {
          const id = `agt_s${String(index + 1).padStart(4, '0')}`;
          addAgent.run(
            id,
            `Agent ${String(index + 1).padStart(4, '0')}`,
            SEED_LANGUAGES[index % SEED_LANGUAGES.length],
          );
          return id;
        });
        const buy = this.db.prepare("INSERT INTO purchased_numbers (id, number, status) VALUES (?, ?, 'active')");
        const route = this.db.prepare('INSERT INTO routes (number_id, agent_id) VALUES (?, ?)');
        seedOrder(this.inventory, numbers).forEach((number, index) => {
          const id = `pn_s${String(index + 1).padStart(5, '0')}`;
          buy.run(id, number);
          if (index < routed) route.run(id, agentIds[index % agentIds.length]);
        });
      })
      .immediate();
  }

  private findActiveNumber(number: string): { id: string } | undefined {
    return this.db
      .prepare<[string], { id: string }>("SELECT id FROM purchased_numbers WHERE number = ? AND status = 'active'")
      .get(number);
  }

  private requireActiveAgent(id: string): void {
    const found = this.db.prepare("SELECT 1 FROM agents WHERE id = ? AND status = 'active'").get(id);
    if (!found) throw new ApiError(404, 'agent_not_found', `no active agent has the id ${id}`);
  }
}

/** The first `count` inventory numbers, one region at a time in turn, so that a seeded account spans every region. */
function seedOrder(inventory: Inventory, count: number): string[] {
  const byRegion = inventory.regions.map((region) => inventory.entries.filter((entry) => entry.region === region));
  const order: string[] = [];
  for (let index = 0; order.length < count; index++) {
    for (const numbers of byRegion) {
      const entry = numbers[index];
      if (entry && order.length < count) order.push(entry.number);
    }
  }
  return order;
}
