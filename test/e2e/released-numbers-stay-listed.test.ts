// A provider may keep a released number in its purchased list, with status `released` (the sandbox's switch
// `listReleased`, since the spec does not say the number leaves the list). The app reads such a number as gone
// wherever it reads the list: `/voice numbers` does not show it, a release whose answer was lost is settled as made,
// a buy whose answer was lost is not taken for made by an earlier, released purchase of its number, and the
// reconciler notices a release made outside Voice Ops.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderClient } from '../../src/provider/index.js';
import { ADMIN, OPERATOR, type TestApp } from '../harness/app.js';
import {
  askForConfirmation,
  auditRows,
  confirmAs,
  type SandboxNumber,
  sandboxRequest,
  shownText,
  startSeededApp,
} from './support.js';

let t: TestApp;
let numbers: SandboxNumber[];
let outside: ProviderClient;

beforeAll(async () => {
  ({ t, numbers } = await startSeededApp({ agents: 1, numbers: 4, routed: 0 }));
  t.sandbox.faults.listReleased(true);
  // Someone with the provider's key, working in its dashboard: no Voice Ops involved.
  outside = new ProviderClient({ baseUrl: t.sandbox.url, apiKey: t.sandbox.apiKey, timeoutMs: 2_000 });
});
afterAll(async () => {
  await outside?.close();
  await t?.close();
});

const number = (index: number): string => {
  const found = numbers[index];
  if (!found) throw new Error(`no seeded number ${index}`);
  return found.number;
};

async function released(phoneNumber: string): Promise<string> {
  const { confirmationId } = await askForConfirmation(t, ADMIN, `numbers release ${phoneNumber}`);
  return shownText(await confirmAs(t, ADMIN, confirmationId));
}

const listed = async () => shownText(await t.respondedTo((await t.command('numbers', OPERATOR)).responseUrlId));

/** The statuses the provider's purchased list gives the number, as it answers. */
async function listedByProvider(phoneNumber: string): Promise<string[]> {
  const { body } = await sandboxRequest(t, 'GET', '/purchased-phone-numbers');
  const entries = body.data as SandboxNumber[];
  return entries.filter((entry) => entry.number === phoneNumber).map((entry) => entry.status);
}

describe('a provider that lists released numbers as released', () => {
  it('/voice numbers does not show a number released through the app', async () => {
    expect(await released(number(0))).toContain('Released');
    expect(await listedByProvider(number(0))).toEqual(['released']);
    const shown = await listed();
    expect(shown).toContain(number(3));
    expect(shown).not.toContain(number(0));
  });

  it('a release whose answer was lost is settled as made', async () => {
    t.sandbox.faults.inject('releaseNumber', { type: 'lose_answer' }, { times: 1 });
    expect(await released(number(1))).toContain('Released');
    const rows = (await auditRows(t)).filter((row) => row.target === number(1));
    expect(rows.map((row) => row.outcome).at(-1)).toBe('succeeded');
    expect(await listed()).not.toContain(number(1));
  });

  it('a buy whose answer was lost, never made, is not taken for made by the released purchase of its number', async () => {
    t.sandbox.faults.inject('buyNumber', { type: 'drop_connection' }, { times: 1 });
    const { confirmationId } = await askForConfirmation(t, OPERATOR, `numbers buy ${number(0)}`);
    const told = shownText(await confirmAs(t, OPERATOR, confirmationId));
    expect(told).toContain('NOT completed');
    expect(told).not.toContain('Bought');
    expect(await listedByProvider(number(0))).toEqual(['released']);
  });

  it('the reconciler notices a number released outside Voice Ops', async () => {
    await t.app.reconcile();
    const id = (await outside.listPurchasedNumbers()).find((entry) => entry.number === number(2))?.id ?? '';
    await outside.releaseNumber(id);
    await t.app.reconcile();
    const outsideRows = (await auditRows(t)).filter((row) => row.source === 'provider');
    expect(outsideRows.map((row) => [row.action, row.target])).toEqual([['number.release', number(2)]]);
  });
});
