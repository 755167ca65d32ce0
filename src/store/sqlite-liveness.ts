// Liveness beside a SQLite file: each process holds an exclusive lock on a small database file of its own in the
// folder `<DATABASE_PATH>.replicas`. The lock is the operating system's (SQLite's POSIX locks), so it ends with the
// process however it ends. Another process tests it by asking for the same lock without waiting: refused means alive.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { type Liveness, newReplicaId } from './liveness.js';

const fileOf = (folder: string, replica: string) => join(folder, `${replica}.lock`);

/** Whether the file's lock is held by a process; a lock that nobody holds is given back at once. */
function lockHeld(file: string): boolean {
  let probe: Sqlite.Database;
  try {
    // Never made by the test: a file that is not there (any more) is a process that ended.
    probe = new Sqlite(file, { timeout: 0, fileMustExist: true });
  } catch {
    return false;
  }
  try {
    probe.exec('BEGIN IMMEDIATE');
    probe.exec('ROLLBACK');
    return false;
  } catch (error) {
    if (error instanceof Sqlite.SqliteError && error.code === 'SQLITE_BUSY') return true;
    throw error;
  } finally {
    probe.close();
  }
}

/** Removes the files of processes that ended without removing their own (killed), so that they do not pile up. */
function removeEnded(folder: string): void {
  for (const name of readdirSync(folder)) {
    const file = join(folder, name);
    if (name.endsWith('.lock') && !lockHeld(file)) rmSync(file, { force: true });
  }
}

export function fileLiveness(databasePath: string): Liveness {
  const folder = `${databasePath}.replicas`;
  mkdirSync(folder, { recursive: true });
  removeEnded(folder);
  const replica = newReplicaId();
  // Made under another name and renamed once locked (the lock stays with the file), so that a process starting at
  // the same moment never finds it unlocked and takes it for a dead one's.
  const starting = join(folder, `${replica}.starting`);
  const held = new Sqlite(starting);
  // Held until the connection closes: no other connection, in any process, gets this file's lock meanwhile.
  held.exec('BEGIN EXCLUSIVE');
  renameSync(starting, fileOf(folder, replica));
  return {
    replica,
    // The operating system keeps the lock while the process runs: it cannot be lost meanwhile.
    held: true,
    epoch: 0,
    async isAlive(other) {
      if (other === replica) return true;
      const file = fileOf(folder, other);
      if (lockHeld(file)) return true;
      rmSync(file, { force: true });
      return false;
    },
    async close() {
      held.close();
      rmSync(fileOf(folder, replica), { force: true });
    },
  };
}

/** How many processes hold their liveness beside the SQLite file now: how many replicas use it. */
export function replicasUsing(databasePath: string): number {
  const folder = `${databasePath}.replicas`;
  if (!existsSync(folder)) return 0;
  return readdirSync(folder).filter((name) => name.endsWith('.lock') && lockHeld(join(folder, name))).length;
}
