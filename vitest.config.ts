import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
  },
});
