// Real SQLite files in a fresh temporary directory per test, closed and removed afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { type Database, openDatabase } from '../../src/store/db.js';

export function useTempDatabases() {
  let dir: string | undefined;
  const opened: Database[] = [];

  afterEach(() => {
    try {
      for (const db of opened.splice(0)) if (db.open) db.close();
    } finally {
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    }
  });

  const path = (name = 'store.db'): string => {
    dir ??= mkdtempSync(join(tmpdir(), 'voice-ops-store-'));
    return join(dir, name);
  };

  /** Closes the database after the test. */
  const track = (db: Database): Database => {
    opened.push(db);
    return db;
  };

  return {
    path,
    track,
    /** Opening the same name twice gives two connections to one file. */
    open: (name?: string): Database => track(openDatabase(path(name))),
  };
}

/** A clock that only moves when told to. */
export function manualClock(start = '2026-11-01T09:00:00.000Z') {
  let time = new Date(start).getTime();
  return {
    now: () => new Date(time),
    advance(ms: number): void {
      time += ms;
    },
    set(iso: string): void {
      time = new Date(iso).getTime();
    },
  };
}
