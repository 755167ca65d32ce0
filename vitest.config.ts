import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Most test files wait on sockets and child processes rather than compute, so twice as many files as cores run
    // at once. No test file mocks modules or globals, and each builds its own app, sandbox and database, so files
    // share a worker's loaded modules instead of importing Bolt, undici and zod afresh for each one.
    maxWorkers: Math.min(8, 2 * availableParallelism()),
    isolate: false,
  },
});
