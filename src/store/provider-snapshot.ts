// The provider's numbers and agents as the reconciler last read them: what a later read is compared with to find
// changes made outside Voice Ops. Kept in SQLite, so that changes made while the app was down are noticed too.
import { z } from 'zod';
import type { Database } from './db.js';

export interface ProviderState {
  /** Purchased numbers: E.164 → provider id. */
  numbers: Map<string, string>;
  /** Agents: id → name. */
  agents: Map<string, string>;
}

// `detail` is a number's provider id, or an agent's name.
const row = z.object({ kind: z.enum(['number', 'agent']), key: z.string(), detail: z.string() });

export class ProviderSnapshot {
  readonly #db: Database;
  readonly #taken;
  readonly #rows;
  readonly #clear;
  readonly #insert;
  readonly #stamp;

  constructor(db: Database) {
    this.#db = db;
    this.#taken = db.prepare<[], { at: string }>('SELECT at FROM provider_snapshot_taken');
    this.#rows = db.prepare('SELECT kind, key, detail FROM provider_snapshot');
    this.#clear = db.prepare('DELETE FROM provider_snapshot');
    this.#insert = db.prepare<[string, string, string]>(
      'INSERT INTO provider_snapshot (kind, key, detail) VALUES (?, ?, ?)',
    );
    this.#stamp = db.prepare<[string]>('INSERT INTO provider_snapshot_taken (at) VALUES (?)');
  }

  /** When the snapshot was taken (the start of the read it holds); undefined before the first. */
  takenAt(): string | undefined {
    return this.#taken.get()?.at;
  }

  read(): ProviderState {
    const state: ProviderState = { numbers: new Map(), agents: new Map() };
    for (const { kind, key, detail } of this.#rows.all().map((entry) => row.parse(entry))) {
      (kind === 'number' ? state.numbers : state.agents).set(key, detail);
    }
    return state;
  }

  replace(state: ProviderState, takenAt: Date): void {
    this.#db.transaction(() => {
      this.#clear.run();
      for (const [number, id] of state.numbers) this.#insert.run('number', number, id);
      for (const [id, name] of state.agents) this.#insert.run('agent', id, name);
      this.#db.prepare('DELETE FROM provider_snapshot_taken').run();
      this.#stamp.run(takenAt.toISOString());
    })();
  }
}
