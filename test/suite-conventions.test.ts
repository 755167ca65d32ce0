// What the suite's own set-up relies on (vitest.config.ts): test files share a worker's loaded modules, so none may
// replace a module, a global or the clock for the files that run after it in the same worker.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const SHARED_STATE_CHANGERS = /\bvi\.(mock|doMock|stubGlobal|stubEnv|useFakeTimers|setSystemTime)\(/;

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

it('no test file mocks a module, stubs a global or fakes the clock', async () => {
  const offenders: string[] = [];
  for (const file of await filesUnder('test')) {
    if (SHARED_STATE_CHANGERS.test(await readFile(file, 'utf8'))) offenders.push(file);
  }
  expect(offenders).toEqual([]);
});
