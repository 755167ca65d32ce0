// A database the app cannot write stops it at start, with a sentence naming DATABASE_PATH and exit code 1, instead of
// a ready app whose every request fails before its ack. A read-only file with an up-to-date schema opens and migrates
// without a complaint, so this takes the app's own write check. When the tests run as root, for whom no file is
// read-only, the app keeps root's identity (and so reaches the checkout, wherever it is) but not root's power over
// file modes.
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openDatabase } from '../../src/store/db.js';
import { appEnvironment, atLeast, killLeftovers, spawnApp } from '../harness/app-process.js';
import { type FakeSlack, startFakeSlack } from '../harness/fake-slack.js';

let slack: FakeSlack;
let sandbox: Sandbox;
let dir: string;
/** The directory the database lives in. */
let data: string;

beforeAll(async () => {
  slack = await startFakeSlack();
  sandbox = await startSandbox({ port: 0 });
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'voice-ops-unwritable-'));
  data = join(dir, 'data');
  await mkdir(data);
  await chmod(dir, 0o755);
});
afterEach(async () => {
  killLeftovers();
  await chmod(data, 0o755);
  await rm(dir, { recursive: true, force: true });
});
afterAll(async () => {
  await sandbox?.close();
  await slack?.close();
});

/** A database as an earlier run of the app left it: schema up to date, nothing else beside it. */
async function existingDatabase(): Promise<string> {
  const path = join(data, 'voice-ops.db');
  (await openDatabase(path)).close();
  return path;
}

async function startExpectingFailure(dbPath: string) {
  const app = spawnApp({ via: 'node', env: appEnvironment(slack, sandbox, dbPath), fileModesApply: true });
  const startedAnyway = app.ready.then(() => {
    throw new Error(`the app started on an unusable database:\n${app.output()}`);
  });
  const exit = await Promise.race([app.exited, startedAnyway]);
  return { exit, entries: app.entries(), output: app.output() };
}

it('a read-only database file stops start-up with a sentence naming DATABASE_PATH', async () => {
  const path = await existingDatabase();
  await chmod(path, 0o444);
  await chmod(data, 0o777);

  const { exit, entries, output } = await startExpectingFailure(path);

  expect(exit, output).toEqual({ code: 1, signal: null });
  expect(atLeast(entries, 60), output).toEqual([
    expect.objectContaining({
      msg: `Voice Ops could not start: The database ${path} cannot be written (the file or its directory is read-only): give the app write access to both, or set DATABASE_PATH to a writable place.`,
    }),
  ]);
  expect(output).not.toContain('Voice Ops is ready');
});

it('a database in a read-only directory stops start-up the same way', async () => {
  const path = await existingDatabase();
  await chmod(path, 0o666);
  await chmod(data, 0o555);

  const { exit, entries, output } = await startExpectingFailure(path);

  expect(exit, output).toEqual({ code: 1, signal: null });
  expect(atLeast(entries, 60), output).toEqual([
    expect.objectContaining({ msg: expect.stringContaining(`The database ${path} cannot be written`) }),
  ]);
  expect(output).not.toContain('Voice Ops is ready');
});

it('a database that cannot be created stops start-up with a sentence naming DATABASE_PATH', async () => {
  await chmod(data, 0o555);
  const path = join(data, 'new', 'voice-ops.db');

  const { exit, entries, output } = await startExpectingFailure(path);

  expect(exit, output).toEqual({ code: 1, signal: null });
  expect(atLeast(entries, 60), output).toEqual([
    expect.objectContaining({
      msg: `Voice Ops could not start: The database ${path} cannot be opened or created: set DATABASE_PATH to a file in a directory the app can write.`,
    }),
  ]);
});
