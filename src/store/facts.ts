// What the app learns about a number or an agent when it buys or creates it, which the provider's lists do not say:
// a number's capabilities (from the search results it was bought from) and an agent's language (from its creation).
import { z } from 'zod';
import type { Database } from './db.js';

const capabilityRow = z.object({
  phone_number: z.string(),
  capabilities: z
    .string()
    .transform((text) => JSON.parse(text) as unknown)
    .pipe(z.array(z.string())),
});
const languageRow = z.object({ agent_id: z.string(), language: z.string() });

export class LearnedFacts {
  readonly #now: () => Date;
  readonly #rememberNumber;
  readonly #forgetNumber;
  readonly #capabilities;
  readonly #rememberAgent;
  readonly #forgetAgent;
  readonly #languages;

  constructor(db: Database, options: { now?: () => Date } = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#rememberNumber = db.prepare<[string, string, string]>(
      `INSERT INTO number_facts (phone_number, capabilities, learned_at) VALUES (?, ?, ?)
       ON CONFLICT (phone_number) DO UPDATE SET capabilities = excluded.capabilities, learned_at = excluded.learned_at`,
    );
    this.#forgetNumber = db.prepare<[string]>('DELETE FROM number_facts WHERE phone_number = ?');
    // One query for a page of numbers, whatever its size.
    this.#capabilities = db.prepare<[string]>(
      'SELECT phone_number, capabilities FROM number_facts WHERE phone_number IN (SELECT value FROM json_each(?))',
    );
    this.#rememberAgent = db.prepare<[string, string, string]>(
      `INSERT INTO agent_facts (agent_id, language, learned_at) VALUES (?, ?, ?)
       ON CONFLICT (agent_id) DO UPDATE SET language = excluded.language, learned_at = excluded.learned_at`,
    );
    this.#forgetAgent = db.prepare<[string]>('DELETE FROM agent_facts WHERE agent_id = ?');
    this.#languages = db.prepare<[string]>(
      'SELECT agent_id, language FROM agent_facts WHERE agent_id IN (SELECT value FROM json_each(?))',
    );
  }

  rememberNumber(phoneNumber: string, capabilities: string[]): void {
    this.#rememberNumber.run(phoneNumber, JSON.stringify(capabilities), this.#now().toISOString());
  }

  /** After a release: the number may come back from the inventory with other capabilities. */
  forgetNumber(phoneNumber: string): void {
    this.#forgetNumber.run(phoneNumber);
  }

  /** The capabilities known of these numbers; a number bought outside the app (or before it learned) is absent. */
  capabilities(phoneNumbers: string[]): Map<string, string[]> {
    const rows = this.#capabilities.all(JSON.stringify(phoneNumbers)).map((row) => capabilityRow.parse(row));
    return new Map(rows.map((row) => [row.phone_number, row.capabilities]));
  }

  rememberAgent(agentId: string, language: string): void {
    this.#rememberAgent.run(agentId, language, this.#now().toISOString());
  }

  forgetAgent(agentId: string): void {
    this.#forgetAgent.run(agentId);
  }

  languages(agentIds: string[]): Map<string, string> {
    const rows = this.#languages.all(JSON.stringify(agentIds)).map((row) => languageRow.parse(row));
    return new Map(rows.map((row) => [row.agent_id, row.language]));
  }
}
