// "Start over" clears what the playground itself made: the sandbox's database is removed, and the app's started afresh,
// keeping its audit log and settings. It runs only on databases the playground created (marked in the file's header)
// and no other process uses; otherwise, and on Postgres, it refuses, saying why, and changes nothing.
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import Sqlite from 'better-sqlite3';
import type { Config } from '../config.js';
import { PLAYGROUND_RESET } from '../ops/api.js';
import { sandboxDatabasePath } from '../server.js';
import type { AuditEntry } from '../store/audit.js';
import { replicasUsing } from '../store/sqlite-liveness.js';
import { PEOPLE } from './people.js';
import { TEAM_ID } from './workspace.js';

/** SQLite's own files beside a database: its write-ahead log, shared memory and rollback journal. */
const SQLITE_COMPANIONS = ['', '-wal', '-shm', '-journal'];

/** The playground's mark in a SQLite file's header (its application id, bytes 68 to 71): "VOPG". */
export const PLAYGROUND_MARK = 0x564f5047;
const SQLITE_MAGIC = 'SQLite format 3\u0000';

const IN_MEMORY = ':memory:';

/** What Start over would do now, and the sentences that say so before anyone confirms it. */
export type StartOverPlan =
  | { ok: true; databases: string[]; files: string[]; afresh?: string; says: string[] }
  | { ok: false; reason: string; says: string[] };

/** The SQLite files the playground keeps: its app's database (unless the app is on Postgres) and the sandbox's. */
function databasesOf(config: Config): string[] {
  const own = config.database.kind === 'sqlite' ? [config.databasePath] : [];
  return [...own, sandboxDatabasePath(config)].filter((path) => path !== IN_MEMORY);
}

/** Whether the file is a SQLite database the playground created (and marked). */
export function madeByPlayground(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  try {
    const header = Buffer.alloc(100);
    const read = readSync(fd, header, 0, header.length, 0);
    return read === header.length && header.toString('latin1', 0, 16) === SQLITE_MAGIC
      ? header.readInt32BE(68) === PLAYGROUND_MARK
      : false;
  } finally {
    closeSync(fd);
  }
}

/**
 * Creates, marked, each database that does not exist yet: what exists already was not made here. A file that cannot
 * be created is left to the app, which says why.
 */
export function markNewDatabases(config: Config): void {
  for (const path of databasesOf(config)) {
    if (existsSync(path)) continue;
    try {
      mkdirSync(dirname(path), { recursive: true });
      const db = new Sqlite(path);
      try {
        db.pragma(`application_id = ${PLAYGROUND_MARK}`);
      } finally {
        db.close();
      }
    } catch {
      // The app's own start reports an unwritable place.
    }
  }
}

const refused = (reason: string): StartOverPlan => ({
  ok: false,
  reason,
  says: [reason, 'Nothing is removed or restarted.'],
});

/** How the sandbox's numbers and agents go: its files removed, or its database in memory dropped with it. */
const sandboxGoes = (files: string[]): string =>
  files.length
    ? `it removes the sandbox’s database, ${files.join(' and ')} (with SQLite’s -wal, -shm and -journal files ` +
      'beside it);'
    : 'the sandbox’s database is in memory, and goes with the app;';

/** `ownReplicas`: the processes on the app's database that are this playground's own, so that any other is noticed. */
export function startOverPlan(config: Config, ownReplicas = 1): StartOverPlan {
  if (config.database.kind === 'postgres') {
    const sandbox = sandboxDatabasePath(config);
    const sandboxShared = sandbox === IN_MEMORY ? '' : `, and the sandbox’s file ${sandbox} is shared with them too`;
    return refused(
      'Start over does not run on Postgres: the database at DATABASE_URL is shared with every other replica of the ' +
        `app and keeps the audit log, which is append-only${sandboxShared}. To start afresh, point DATABASE_URL at ` +
        'a new, empty database and DATABASE_PATH at a new folder.',
    );
  }
  const databases = databasesOf(config);
  if (config.databasePath === IN_MEMORY && databases.length > 0) {
    return refused(
      `The app’s database is in memory but the sandbox’s is the file ${databases.join(', ')}, which Start over ` +
        'would leave holding what the app forgets.',
    );
  }
  const folder = resolve(dirname(config.databasePath));
  const outside = databases.filter((path) => {
    const within = relative(folder, resolve(path));
    return within === '' || within.startsWith('..') || isAbsolute(within);
  });
  if (outside.length > 0) {
    return refused(
      `Start over removes nothing here: ${outside.join(', ')} is outside the playground’s data folder ${folder}.`,
    );
  }
  const notOurs = databases.filter((path) => existsSync(path) && !madeByPlayground(path));
  if (notOurs.length > 0) {
    return refused(
      `Start over removes nothing here: ${notOurs.join(', ')} was not created by the playground (a database copied ` +
        'in, or one made before the playground marked its own), so it stays. To start afresh, set DATABASE_PATH to ' +
        'a file in a new folder.',
    );
  }
  const others = config.databasePath === IN_MEMORY ? 0 : replicasUsing(config.databasePath) - ownReplicas;
  if (others > 0) {
    return refused(
      `Start over does not run while another process uses ${config.databasePath}: removing it would leave that ` +
        'process on files that are gone. Stop the other process first.',
    );
  }
  const afresh = config.databasePath === IN_MEMORY ? undefined : config.databasePath;
  const removed = databases.filter((path) => path !== afresh);
  const files = removed.flatMap((path) => SQLITE_COMPANIONS.map((suffix) => resolve(path + suffix)));
  const says = afresh
    ? [
        `This clears the playground’s numbers, agents and routing: ${sandboxGoes(removed)} it clears the app’s ` +
          `records of them in ${afresh}, and removes every message on this page.`,
        'The audit log stays, append-only as everywhere, and records that the playground was reset; so do the ' +
          `settings. Everything else stays, in ${folder} and anywhere else. Nothing real is touched.`,
      ]
    : [
        'This starts a fresh app on a new database in memory, and removes every message on this page. The audit ' +
          'log was in memory too: it goes with the app.',
      ];
  return { ok: true, databases, files, ...(afresh ? { afresh } : {}), says };
}

export async function removeFiles(files: string[]): Promise<void> {
  for (const file of files) await rm(file, { force: true });
}

/** The audit row of a Start over: who confirmed it, and what it cleared. */
export const resetBy = (userId: string): AuditEntry => ({
  actorId: userId,
  actorName: PEOPLE.find((person) => person.id === userId)?.name,
  teamId: TEAM_ID,
  source: 'system',
  action: PLAYGROUND_RESET,
  params: { cleared: ['numbers', 'agents', 'routes', 'messages'] },
  outcome: 'succeeded',
  correlationId: randomUUID(),
});
