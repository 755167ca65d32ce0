// "Start over" removes what the playground has kept: its app's database and the embedded sandbox's, each with the
// files SQLite keeps beside it. Only those files, and only inside the folder that holds the app's database (the
// playground's data folder, data/playground/ by default): a path configured elsewhere is left alone and named.
import { rm } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import type { Config } from '../config.js';
import { sandboxDatabasePath } from '../server.js';

/** SQLite's own files beside a database: its write-ahead log, shared memory and rollback journal. */
const SQLITE_COMPANIONS = ['', '-wal', '-shm', '-journal'];

export type DataFiles = { ok: true; files: string[] } | { ok: false; reason: string };

/** The files Start over removes, or why it may not remove them. An in-memory database has none. */
export function playgroundDataFiles(config: Config): DataFiles {
  if (config.databasePath === ':memory:') return { ok: true, files: [] };
  const folder = resolve(dirname(config.databasePath));
  const databases = [config.databasePath, sandboxDatabasePath(config)].filter((path) => path !== ':memory:');
  const outside = databases.filter((path) => {
    const within = relative(folder, resolve(path));
    return within === '' || within.startsWith('..') || isAbsolute(within);
  });
  if (outside.length > 0) {
    return { ok: false, reason: `${outside.join(', ')} is outside the playground's data folder ${folder}.` };
  }
  return { ok: true, files: databases.flatMap((path) => SQLITE_COMPANIONS.map((suffix) => resolve(path + suffix))) };
}

export async function removeFiles(files: string[]): Promise<void> {
  for (const file of files) await rm(file, { force: true });
}
