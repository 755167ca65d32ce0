// Once per project, before any of its test files runs: the build (dist/) that tests starting the app's process run,
// as production does, so that no two of them build at the same time; and for the Postgres half of the engine matrix
// a Postgres server, on which each test makes databases of its own.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { REPO } from './harness/app-process.js';
import { startPostgres } from './harness/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The maintenance database of the project's Postgres server; empty on the SQLite project. */
    postgresUrl: string;
  }
}

// Each project runs this setup, in the one main process: the build is shared through a global, so that two projects
// never write dist/ at once.
const shared = globalThis as { voiceOpsBuild?: Promise<unknown> };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.voiceOpsBuild ??= promisify(execFile)(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: REPO });
  await shared.voiceOpsBuild;
  if (project.config.env?.TEST_DATABASE_ENGINE !== 'postgres') {
    project.provide('postgresUrl', '');
    return async () => {};
  }
  const server = await startPostgres();
  project.provide('postgresUrl', server.url());
  return () => server.remove();
}
