// Which agent each number routes to, as this app last set it. The provider API can set routing but not read it,
// so these records are what listings and warnings ("this number still routes to…") rely on.
import { z } from 'zod';
import { camelCased, jsonText, optionalText } from './columns.js';
import type { Dialect, Sql } from './sql.js';
import { storedLabels, type Tags } from './tags.js';

const routeRow = camelCased(
  z.object({
    phone_number: z.string(),
    agent_id: z.string(),
    number_id: optionalText,
    updated_at: z.string(),
    updated_by: z.string(),
  }),
);
export type RouteRecord = z.output<typeof routeRow>;

const toRecord = (row: unknown): RouteRecord => routeRow.parse(row);

/**
 * What the app's records say of one agent: the numbers routed to it, in number order, its language if known, and its
 * labels and owner if it has any.
 */
export interface AgentRecords {
  numbers: readonly string[];
  language?: string;
  tags?: Tags;
}

const UPSERT = `
  INSERT INTO routes (phone_number, agent_id, number_id, updated_at, updated_by)
  VALUES (@phoneNumber, @agentId, @numberId, @updatedAt, @updatedBy)
  ON CONFLICT (phone_number) DO UPDATE SET
    agent_id = excluded.agent_id, number_id = excluded.number_id,
    updated_at = excluded.updated_at, updated_by = excluded.updated_by`;
const FOR_NUMBER = 'SELECT * FROM routes WHERE phone_number = ?';
const FOR_AGENT = 'SELECT * FROM routes WHERE agent_id = ? ORDER BY phone_number';
const REMOVE_NUMBER = 'DELETE FROM routes WHERE phone_number = ?';
// A page of agents' numbers and the languages the app learnt for them (LearnedFacts writes those) in one read: one
// round trip to Postgres rather than two.
const agentsOf = (dialect: Dialect) => `
  SELECT agent_id, 'number' AS fact, phone_number AS value FROM routes WHERE agent_id ${dialect.inJsonArray('?')}
  UNION ALL
  SELECT agent_id, 'language' AS fact, language AS value FROM agent_facts WHERE agent_id ${dialect.inJsonArray('?')}
  UNION ALL
  SELECT subject, 'labels', labels FROM tags WHERE subject ${dialect.inJsonArray('?')}
  UNION ALL
  SELECT subject, 'owner', owner FROM tags WHERE owner IS NOT NULL AND subject ${dialect.inJsonArray('?')}
  ORDER BY value`;
const agentFact = z.object({
  agent_id: z.string(),
  fact: z.enum(['number', 'language', 'labels', 'owner']),
  value: z.string(),
});
const REMOVE_AGENT = 'DELETE FROM routes WHERE agent_id = ?';
const ALL = 'SELECT * FROM routes ORDER BY phone_number';
// Two text columns only, read without parsing: listings at 10,000 numbers read this on every page.
const AGENT_BY_NUMBER = 'SELECT phone_number, agent_id FROM routes';

export class RoutingRecords {
  readonly #now: () => Date;
  readonly #agents: string;

  constructor(
    private readonly sql: Sql,
    options: { now?: () => Date } = {},
  ) {
    this.#now = options.now ?? (() => new Date());
    this.#agents = agentsOf(sql.dialect);
  }

  /** Replaces any earlier record for the number. Returns the record built here (no RETURNING: see audit.ts). */
  async set(input: {
    phoneNumber: string;
    agentId: string;
    numberId?: string;
    updatedBy: string;
  }): Promise<RouteRecord> {
    const record = { ...input, updatedAt: this.#now().toISOString() };
    await this.sql.write(UPSERT, { ...record, numberId: record.numberId ?? null });
    return record;
  }

  async forNumber(phoneNumber: string): Promise<RouteRecord | undefined> {
    const row = await this.sql.get(FOR_NUMBER, [phoneNumber]);
    return row === undefined ? undefined : toRecord(row);
  }

  async forAgent(agentId: string): Promise<RouteRecord[]> {
    return (await this.sql.all(FOR_AGENT, [agentId])).map(toRecord);
  }

  /** The records of each of these agents, in one query (a page of agents); an agent with none is left out. */
  async ofAgents(agentIds: string[]): Promise<ReadonlyMap<string, AgentRecords>> {
    const ids = jsonText(agentIds);
    const agents = new Map<string, { numbers: string[]; language?: string; tags?: Tags }>();
    for (const row of (await this.sql.all(this.#agents, [ids, ids, ids, ids])).map((found) => agentFact.parse(found))) {
      const agent = agents.get(row.agent_id) ?? { numbers: [] };
      const tags = agent.tags ?? { labels: [] };
      if (row.fact === 'number') agent.numbers.push(row.value);
      else if (row.fact === 'language') agent.language = row.value;
      else if (row.fact === 'labels') agent.tags = { ...tags, labels: storedLabels.parse(JSON.parse(row.value)) };
      else agent.tags = { ...tags, owner: row.value };
      agents.set(row.agent_id, agent);
    }
    return agents;
  }

  /** After the number is released. */
  async removeNumber(phoneNumber: string): Promise<void> {
    await this.sql.write(REMOVE_NUMBER, [phoneNumber]);
  }

  /** After the agent is deleted: its numbers no longer route anywhere. */
  async removeAgent(agentId: string): Promise<void> {
    await this.sql.write(REMOVE_AGENT, [agentId]);
  }

  async all(): Promise<RouteRecord[]> {
    return (await this.sql.all(ALL)).map(toRecord);
  }

  /** Every routed number and the agent it routes to. */
  async agentByNumber(): Promise<Map<string, string>> {
    const rows = await this.sql.all<{ phone_number: string; agent_id: string }>(AGENT_BY_NUMBER);
    return new Map(rows.map((row) => [row.phone_number, row.agent_id]));
  }
}
