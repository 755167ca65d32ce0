// The provider's numbers and agents as the reconciler last read them: what a later read is compared with to find
// changes made outside Voice Ops. Kept in the database, so that changes made while the app was down are noticed too.
import { z } from 'zod';
import type { Sql } from './sql.js';

export interface ProviderState {
  /** Purchased numbers: E.164 → provider id. */
  numbers: Map<string, string>;
  /** Agents: id → name. */
  agents: Map<string, string>;
}

// `detail` is a number's provider id, or an agent's name.
const row = z.object({ kind: z.enum(['number', 'agent']), key: z.string(), detail: z.string() });

const TAKEN_AT = 'SELECT at FROM provider_snapshot_taken';
const ROWS = 'SELECT kind, key, detail FROM provider_snapshot';
const CLEAR = 'DELETE FROM provider_snapshot';
/** Rows per INSERT: a few statements for 10,000 numbers, each well within either engine's parameter limit. */
const BATCH_ROWS = 512;
const inserts = new Map<number, string>();

/** The INSERT of `count` rows, made once per count. */
function insertOf(count: number): string {
  let text = inserts.get(count);
  if (text === undefined) {
    text = `INSERT INTO provider_snapshot (kind, key, detail) VALUES ${Array(count).fill('(?, ?, ?)').join(', ')}`;
    inserts.set(count, text);
  }
  return text;
}

/**
 * Batches of BATCH_ROWS, then the rest in powers of two, so that the statements' texts (each prepared once on
 * SQLite) are a handful whatever the counts.
 */
function* batches<T>(rows: T[]): Generator<T[]> {
  let at = 0;
  for (; rows.length - at >= BATCH_ROWS; at += BATCH_ROWS) yield rows.slice(at, at + BATCH_ROWS);
  for (let size = BATCH_ROWS / 2; size >= 1; size /= 2) {
    if (rows.length - at < size) continue;
    yield rows.slice(at, at + size);
    at += size;
  }
}
const UNSTAMP = 'DELETE FROM provider_snapshot_taken';
const STAMP = 'INSERT INTO provider_snapshot_taken (at) VALUES (?)';

export class ProviderSnapshot {
  constructor(private readonly sql: Sql) {}

  /** When the snapshot was taken (the start of the read it holds); undefined before the first. */
  async takenAt(): Promise<string | undefined> {
    return (await this.sql.get<{ at: string }>(TAKEN_AT))?.at;
  }

  async read(): Promise<ProviderState> {
    const state: ProviderState = { numbers: new Map(), agents: new Map() };
    for (const { kind, key, detail } of (await this.sql.all(ROWS)).map((entry) => row.parse(entry))) {
      (kind === 'number' ? state.numbers : state.agents).set(key, detail);
    }
    return state;
  }

  /** Replaces the whole snapshot at once: a reader sees the old one or the new one, never a mix. */
  async replace(state: ProviderState, takenAt: Date): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await tx.write(CLEAR);
      const rows = [
        ...[...state.numbers].map(([number, id]) => ['number', number, id]),
        ...[...state.agents].map(([id, name]) => ['agent', id, name]),
      ];
      for (const batch of batches(rows)) await tx.write(insertOf(batch.length), batch.flat());
      await tx.write(UNSTAMP);
      await tx.write(STAMP, [takenAt.toISOString()]);
    });
  }
}
