// Run before every test file (vitest.config.ts): files share their worker's loaded modules, so a kind of change, or a
// provider endpoint the sandbox serves, that a file registers for itself is still known to the files after it unless
// removed. Each file ends with the registries holding the app's kinds and the provider's eight endpoints alone.
import { afterAll, expect } from 'vitest';
import { KIND, kindNames } from '../src/ops/kinds/index.js';
import { PROVIDER_ENDPOINTS } from '../src/provider/endpoints.js';
import { servedRoutes } from '../src/sandbox/routes.js';

afterAll(() => {
  expect(kindNames(), 'a kind of change this file registered is still registered').toEqual(Object.values(KIND));
  expect(
    servedRoutes().map((route) => route.endpoint.name),
    'an endpoint this file registered is still served',
  ).toEqual(PROVIDER_ENDPOINTS.map((endpoint) => endpoint.name));
});
