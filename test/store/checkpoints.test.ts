// SQLite's checkpoints, off the app's connection: the app's own commits never copy the WAL back into the database
// file (the sync to disk that held the event loop for 5–15 ms), and a worker thread with a connection of its own does,
// once the WAL has grown past its threshold. The WAL file's size tells, read without touching the database.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WalCheckpoints } from '../../src/store/checkpoints.js';
import { openDatabase } from '../../src/store/db.js';

const PAGE_BYTES = 4096;
const dirs: string[] = [];
const closing: (() => unknown)[] = [];

afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'voice-ops-checkpoints-'));
  dirs.push(dir);
  return join(dir, 'voice-ops.db');
}

/** The app's connection; `walLimit` is the size its WAL file is cut back to when it starts over. */
async function appDatabase(path = tempPath(), walLimit?: number) {
  const db = await openDatabase(path);
  closing.push(() => db.close());
  if (walLimit !== undefined) db.pragma(`journal_size_limit = ${walLimit}`);
  db.exec('CREATE TABLE filler (body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO filler (body) VALUES (?)');
  // One commit a small row, as the app commits a row at a time: a page written to the WAL each, a few more where a
  // page splits.
  const writePages = (pages: number) => {
    for (let i = 0; i < pages; i++) insert.run('x'.repeat(200));
  };
  return { path, writePages };
}

/** The WAL file's size in pages (frames), read without touching the database. */
function walPages(path: string): number {
  return Math.floor((statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) / PAGE_BYTES);
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('WAL checkpoints', () => {
  it("leave the app's connection alone past the 1,000 pages at which SQLite would checkpoint on a commit", async () => {
    const { path, writePages } = await appDatabase();
    writePages(1_100);
    // Had a commit checkpointed at 1,000 pages, the next one would have started the WAL over, cut back to 1 MiB (256
    // pages), and the hundred pages since would not have grown it again.
    expect(walPages(path)).toBeGreaterThanOrEqual(1_100);
  });

  it('run in a worker once the WAL passes its threshold, so that the WAL starts over', async () => {
    const { path, writePages } = await appDatabase(tempPath(), 0);
    const errors: Error[] = [];
    const checkpoints = new WalCheckpoints(path, {
      onError: (error) => errors.push(error),
      walBytes: 200 * PAGE_BYTES,
      checkEveryMs: 10,
    });
    closing.push(() => checkpoints.stop());
    writePages(300);
    expect(walPages(path)).toBeGreaterThan(300);

    // Once the worker has copied every frame back, the app's next commit starts the WAL over (cut back to nothing).
    await until(() => {
      writePages(1);
      return walPages(path) < 50;
    });
    expect(errors).toEqual([]);
  });

  it('say when a checkpoint fails, and start a new worker for the next one', async () => {
    const path = tempPath();
    // A WAL with no database beside it: the worker cannot open the file.
    writeFileSync(`${path}-wal`, '');
    const errors: Error[] = [];
    const checkpoints = new WalCheckpoints(path, {
      onError: (error) => errors.push(error),
      walBytes: 0,
      checkEveryMs: 10,
      retryAfterMs: 10,
    });
    closing.push(() => checkpoints.stop());
    await until(() => errors.length > 0);
    expect(errors[0]).toBeInstanceOf(Error);

    rmSync(`${path}-wal`);
    const { writePages } = await appDatabase(path, 0);
    writePages(100);
    await until(() => {
      writePages(1);
      return walPages(path) < 50;
    });
  });
});
