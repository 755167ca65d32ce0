// Liveness beside a SQLite file: each process holds an exclusive lock on a small database file of its own in the
// folder `<DATABASE_PATH>.replicas`. The lock is the operating system's (SQLite's POSIX locks), so it ends with the
// process however it ends. Another process tests it by asking for the same lock without waiting: refused means alive.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { type Liveness, newReplicaId } from './liveness.js';

const fileOf = (folder: string, replica: string) => join(folder, `${replica}.lock`);

/** Whether the file's lock is held by a process; a lock that nobody holds is given back at once. */
function lockHeld(file: string): boolean {
  if (!existsSync(file)) return false;
  const probe = new Sqlite(file, { timeout: 0 });
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

export function fileLiveness(databasePath: string): Liveness {
  const folder = `${databasePath}.replicas`;
  mkdirSync(folder, { recursive: true });
  const replica = newReplicaId();
  const held = new Sqlite(fileOf(folder, replica));
  // Held until the connection closes: no other connection, in any process, gets this file's lock meanwhile.
  held.exec('BEGIN EXCLUSIVE');
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
