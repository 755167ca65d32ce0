// Checkpoints of the audit chain: positions up to which a read verified it, kept for every replica, so that the next
// read verifies only the rows after. Trusted only while its row keeps its hash; `npm run audit -- --verify` reads none
// (docs/decisions.md says what each check sees).
import { z } from 'zod';
import { turnsOnTime } from '../slices.js';
import { CHAIN_START, ChainBroken, type ChainLink, verifiedPages } from './audit-chain.js';
import type { Sql } from './sql.js';

/**
 * Rows read and hashed at a time. Smaller on SQLite, whose read runs on the event loop and whose pages a garbage
 * collection copies; on Postgres each page is a round trip.
 */
const VERIFY_PAGE_ROWS = { sqlite: 100, postgres: 250 } as const;

export interface VerifiedChain {
  /** The last row verified: the chain's end when the walk began (CHAIN_START for an empty log). */
  end: ChainLink;
  /** The checkpoint the walk went on from (CHAIN_START when there was none). */
  from: ChainLink;
  rows: number;
}

const LAST_CHECKPOINT = 'SELECT id, hash, verified_at FROM audit_checkpoints ORDER BY id DESC LIMIT 1';
const LAST_ROW = 'SELECT id FROM audit_events ORDER BY id DESC LIMIT 1';
const HASH_OF = 'SELECT hash FROM audit_events WHERE id = ?';
const WRITE = 'INSERT INTO audit_checkpoints (id, hash, verified_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING';

const checkpointRow = z.object({ id: z.number().int(), hash: z.string(), verified_at: z.string() }).optional();
const idRow = z.object({ id: z.number().int() }).optional();
const hashRow = z.object({ hash: z.string().nullable() }).optional();

/** The last checkpoint, once its row is found still to carry its hash; throws ChainBroken where it does not. */
async function lastTrusted(sql: Sql): Promise<ChainLink | undefined> {
  const checkpoint = checkpointRow.parse(await sql.get(LAST_CHECKPOINT));
  if (!checkpoint) return undefined;
  const row = hashRow.parse(await sql.get(HASH_OF, [checkpoint.id]));
  const since = `verified at ${checkpoint.verified_at}`;
  if (!row)
    throw new ChainBroken(checkpoint.id, `it is missing, though it was ${since}: deleted after being written`, 0);
  if (row.hash !== checkpoint.hash) {
    throw new ChainBroken(
      checkpoint.id,
      `its hash is not the one ${since}: it, or a row before it, was changed after being written`,
      0,
    );
  }
  return { id: checkpoint.id, hash: checkpoint.hash };
}

/** From the last checkpoint to the end, a slice at a time, checkpointing the end reached; throws ChainBroken. */
export async function verifyFromCheckpoint(sql: Sql, now: () => Date): Promise<VerifiedChain> {
  const from = await lastTrusted(sql);
  const upTo = idRow.parse(await sql.get(LAST_ROW))?.id ?? 0;
  let end = from ?? CHAIN_START;
  let rows = 0;
  const walk = { from, upTo, pageRows: VERIFY_PAGE_ROWS[sql.dialect.name], betweenPages: turnsOnTime() };
  for await (const page of verifiedPages(sql, walk)) {
    const last = page.at(-1);
    if (last) end = { id: last.id, hash: last.hash as string };
    rows += page.length;
  }
  if (rows > 0) await sql.run(WRITE, [end.id, end.hash, now().toISOString()]);
  return { end, from: from ?? CHAIN_START, rows };
}

/** One walk at a time per process: a read that comes during one takes its end (`rows` 0) rather than walk again. */
export class ChainVerifier {
  #walking: Promise<VerifiedChain> | undefined;

  constructor(private readonly now: () => Date) {}

  verify(sql: Sql): Promise<VerifiedChain> {
    const under = this.#walking;
    if (under !== undefined) return under.then((walked) => ({ ...walked, rows: 0 }));
    const walking = verifyFromCheckpoint(sql, this.now);
    const done = () => {
      if (this.#walking === walking) this.#walking = undefined;
    };
    walking.then(done, done);
    this.#walking = walking;
    return walking;
  }
}
