// What replicas compare comes from the database: its clock, and each replica's liveness. The clock is the database's
// own (on SQLite the host's, read by SQLite, which every process on the file shares), carried between reads on the
// process's monotonic clock; and no code that replicas share reads the host's wall clock for a time another process
// compares. Liveness ends with the process or its session, and nothing else.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatabaseClock } from '../../src/store/database-clock.js';
import { openStore } from '../../src/store/open-store.js';
import { until } from '../hardening/support.js';
import { REPO } from '../harness/app-process.js';
import { TEST_ENGINE, useTempDatabases } from './helpers.js';

const temp = useTempDatabases();

async function databaseMs(sql: Awaited<ReturnType<typeof temp.open>>): Promise<number> {
  return Number((await sql.get<{ ms: number | string }>(sql.dialect.clock))?.ms);
}

describe(`the database's clock (${TEST_ENGINE})`, () => {
  it("is the database's, not this host's: a database an hour ahead gives a clock an hour ahead", async () => {
    const sql = await temp.open();
    const HOUR = 3_600_000;
    // The same database, answering the clock's read an hour later than it is.
    const ahead = {
      dialect: { ...sql.dialect, clock: sql.dialect.clock.replace(' AS ms', ` + ${HOUR} AS ms`) },
      get: sql.get.bind(sql),
    };
    const clock = await DatabaseClock.start(ahead, 60_000);
    try {
      const offset = clock.now().getTime() - (await databaseMs(sql));
      expect(offset).toBeGreaterThan(HOUR - 5_000);
      expect(offset).toBeLessThan(HOUR + 5_000);
    } finally {
      await clock.stop();
    }
  });

  it("reads the database's time and carries it forward between reads", async () => {
    const sql = await temp.open();
    const clock = await DatabaseClock.start(sql, 60_000);
    try {
      const before = await databaseMs(sql);
      const shown = clock.now().getTime();
      const after = await databaseMs(sql);
      // Within the reads around it, give or take a millisecond of rounding on each side.
      expect(shown).toBeGreaterThanOrEqual(before - 2);
      expect(shown).toBeLessThanOrEqual(after + 2);
    } finally {
      await clock.stop();
    }
  });

  it("reads the database's time again and again: when the database's clock moves, the clock follows", async () => {
    const sql = await temp.open();
    // The same database, its clock moved by what the table `skew` holds, as a host's clock is stepped.
    await sql.write('CREATE TABLE skew (ms BIGINT NOT NULL)');
    await sql.write('INSERT INTO skew (ms) VALUES (0)');
    const skewed = {
      dialect: { ...sql.dialect, clock: sql.dialect.clock.replace(' AS ms', ' + (SELECT ms FROM skew) AS ms') },
      get: sql.get.bind(sql),
    };
    const HOUR = 3_600_000;
    const clock = await DatabaseClock.start(skewed, 20);
    const offset = async () => clock.now().getTime() - (await databaseMs(sql));
    const near = (expected: number) => (ms: number) => Math.abs(ms - expected) < 5_000;
    try {
      expect(near(0)(await offset())).toBe(true);
      for (const moved of [HOUR, -HOUR, 0]) {
        await sql.write('UPDATE skew SET ms = ?', [moved]);
        await until(offset, near(moved), `the clock to follow the database's moved by ${moved} ms`);
      }
    } finally {
      await clock.stop();
    }
  });

  it("is the store's clock: what it writes and compares, unless a test names another", async () => {
    const store = await openStore(await temp.target());
    try {
      await store.leases.take('lock:+15550100', 'a change', 60_000);
      const sql = await temp.open();
      const row = await sql.get<{ expires_at: string }>("SELECT expires_at FROM leases WHERE name = 'lock:+15550100'");
      const expiresMs = Date.parse(row?.expires_at ?? '');
      const nowMs = await databaseMs(sql);
      expect(expiresMs - nowMs).toBeGreaterThan(55_000);
      expect(expiresMs - nowMs).toBeLessThanOrEqual(60_000);
    } finally {
      await store.close();
    }
  });
});

// Code that runs in the app and compares times with other processes: everything but the sandbox and the playground,
// which are programs of their own.
const SHARED = ['ops', 'reconcile', 'slack', 'store'];
// Times that are this process's alone: Slack's signature window (Slack's clock against this host's), how old a cached
// Slack answer is, when to retry a checkpoint, when a person exported the settings, how long ago this process asked
// for its own leases (the wall clock beside the monotonic one, so that a host's suspension still lapses them).
// Repositories fall back to the host's clock only when built without one (tools and tests); the store always gives
// them the database's.
const LOCAL_TIMES = new Set([
  'ops/locks.ts',
  'slack/receiver.ts',
  'slack/identity.ts',
  'store/checkpoints.ts',
  'store/settings-cli.ts',
]);
const REPOSITORY_FALLBACK = 'options.now ?? (() => new Date())';

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(folder, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(folder, entry.name)]
        : [],
  );
}

it("no shared code reads the host's clock for a time other replicas compare", () => {
  const src = join(REPO, 'src');
  const readers = SHARED.flatMap((folder) => sources(join(src, folder)))
    .filter((file) => !LOCAL_TIMES.has(relative(src, file)))
    .filter((file) => /Date\.now\(\)|new Date\(\)/.test(readFileSync(file, 'utf8').replaceAll(REPOSITORY_FALLBACK, '')))
    .map((file) => relative(src, file));
  expect(readers).toEqual([]);
});

describe(`liveness (${TEST_ENGINE})`, () => {
  it('is held while a process runs and ends the moment it is killed', async () => {
    const target = await temp.target();
    const store = await openStore(target);
    // Another process holds its liveness on the same database, prints its replica, and waits to be killed.
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/store/fixtures/hold-liveness.ts', target.kind === 'sqlite' ? target.path : target.url],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const [line] = (await once(holder.stdout, 'data')) as [Buffer];
      const replica = line.toString().trim();
      expect(await store.liveness.isAlive(replica)).toBe(true);
      holder.kill('SIGKILL');
      await once(holder, 'exit');
      // The server ends a dead client's session as soon as it notices the connection gone.
      await until(
        () => store.liveness.isAlive(replica),
        (alive) => !alive,
        'the killed process to be seen dead',
      );
      expect(await store.liveness.isAlive('a replica that never ran')).toBe(false);
    } finally {
      holder.kill('SIGKILL');
      await store.close();
    }
  });
});
