import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { POSTGRES_MISSING, postgresBinaries } from './test/harness/postgres.js';

// The engine matrix: everything runs on SQLite, the default; the tests of what the app keeps (store, end to end,
// hardening) run again on a real Postgres server. Without Postgres installed that half is left out, except in CI,
// where its absence fails the run (test/global-setup.ts).
const ON_POSTGRES = ['test/store/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/hardening/**/*.test.ts'];
const withPostgres = Boolean(process.env.CI) || postgresBinaries() !== undefined;
if (!withPostgres) process.stderr.write(`${POSTGRES_MISSING} The Postgres half of the engine matrix is left out.\n`);

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // Tests wait for events, not for time: a limit only ends a test that is stuck, so it is generous enough for a
    // machine busy with other work (a second copy of the suite, say) to start and restart app processes.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Most test files wait on sockets and child processes rather than compute, so twice as many files as cores run
    // at once. No test file mocks modules or globals, and each builds its own app, sandbox and database, so files
    // share a worker's loaded modules instead of importing Bolt, undici and zod afresh for each one.
    maxWorkers: Math.min(8, 2 * availableParallelism()),
    isolate: false,
    // Isolation is kept off rather than turned on for the files that register a kind of change of their own: each such
    // file removes its kind again (registerKind returns what does), and this check ends every file with the registry
    // holding the app's kinds alone.
    setupFiles: ['test/kinds-left-as-found.ts'],
    projects: [
      {
        extends: true as const,
        test: { name: 'sqlite', include: ['test/**/*.test.ts'], env: { TEST_DATABASE_ENGINE: 'sqlite' } },
      },
      ...(withPostgres
        ? [
            {
              extends: true as const,
              test: { name: 'postgres', include: ON_POSTGRES, env: { TEST_DATABASE_ENGINE: 'postgres' } },
            },
          ]
        : []),
    ],
  },
});
