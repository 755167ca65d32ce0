// Run before every test file (vitest.config.ts): files share their worker's loaded modules, so a kind of change a file
// registers for itself is still known to the files after it unless removed. Each file ends with the registry holding
// the app's kinds alone.
import { afterAll, expect } from 'vitest';
import { KIND, kindNames } from '../src/ops/kinds/index.js';

afterAll(() => {
  expect(kindNames(), 'a kind of change this file registered is still registered').toEqual(Object.values(KIND));
});
