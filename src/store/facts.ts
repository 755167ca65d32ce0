// What the app learns about a number or an agent when it buys or creates it, which the provider's lists do not say:
// a number's capabilities (from the search results it was bought from) and an agent's language (from its creation).
import { z } from 'zod';
import { jsonText } from './columns.js';
import type { Dialect, Sql } from './sql.js';

const capabilityRow = z.object({
  phone_number: z.string(),
  capabilities: z
    .string()
    .transform((text) => JSON.parse(text) as unknown)
    .pipe(z.array(z.string())),
});

const REMEMBER_NUMBER = `
  INSERT INTO number_facts (phone_number, capabilities, learned_at) VALUES (?, ?, ?)
  ON CONFLICT (phone_number) DO UPDATE SET capabilities = excluded.capabilities, learned_at = excluded.learned_at`;
const FORGET_NUMBER = 'DELETE FROM number_facts WHERE phone_number = ?';
const REMEMBER_AGENT = `
  INSERT INTO agent_facts (agent_id, language, learned_at) VALUES (?, ?, ?)
  ON CONFLICT (agent_id) DO UPDATE SET language = excluded.language, learned_at = excluded.learned_at`;
const FORGET_AGENT = 'DELETE FROM agent_facts WHERE agent_id = ?';
// One query for a page of numbers, whatever its size: the page's keys go in as one JSON array (agents' languages are
// read with their numbers, by RoutingRecords.ofAgents).
const capabilitiesOf = (dialect: Dialect) =>
  `SELECT phone_number, capabilities FROM number_facts WHERE phone_number ${dialect.inJsonArray('?')}`;

export class LearnedFacts {
  readonly #now: () => Date;
  readonly #capabilities: string;

  constructor(
    private readonly sql: Sql,
    options: { now?: () => Date } = {},
  ) {
    this.#now = options.now ?? (() => new Date());
    this.#capabilities = capabilitiesOf(sql.dialect);
  }

  async rememberNumber(phoneNumber: string, capabilities: string[]): Promise<void> {
    await this.sql.write(REMEMBER_NUMBER, [phoneNumber, jsonText(capabilities), this.#now().toISOString()]);
  }

  /** After a release: the number may come back from the inventory with other capabilities. */
  async forgetNumber(phoneNumber: string): Promise<void> {
    await this.sql.write(FORGET_NUMBER, [phoneNumber]);
  }

  /** The capabilities known of these numbers; a number bought outside the app (or before it learned) is absent. */
  async capabilities(phoneNumbers: string[]): Promise<Map<string, string[]>> {
    const rows = (await this.sql.all(this.#capabilities, [jsonText(phoneNumbers)])).map((row) =>
      capabilityRow.parse(row),
    );
    return new Map(rows.map((row) => [row.phone_number, row.capabilities]));
  }

  async rememberAgent(agentId: string, language: string): Promise<void> {
    await this.sql.write(REMEMBER_AGENT, [agentId, language, this.#now().toISOString()]);
  }

  async forgetAgent(agentId: string): Promise<void> {
    await this.sql.write(FORGET_AGENT, [agentId]);
  }
}
