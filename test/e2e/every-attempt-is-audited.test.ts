// Every attempt leaves a row, refusals before any confirmation included: bad input, unknown ids, a number already
// owned or not owned, a provider failing while the request is checked, and a map that would change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import {
  type AuditRow,
  auditRows,
  buyThroughApp,
  createAgentThroughApp,
  mapThroughApp,
  respondedWith,
  voiceNumber,
} from './support.js';

let t: TestApp;
let owned: string;
let agentId: string;
beforeAll(async () => {
  t = await startTestApp();
  owned = await voiceNumber(t, 'JP');
  await buyThroughApp(t, OPERATOR, owned);
  agentId = (await createAgentThroughApp(t, OPERATOR, 'Audit desk')).agent.id;
  await mapThroughApp(t, OPERATOR, owned, agentId);
});
afterAll(async () => {
  await t?.close();
});

/** Sends the command and returns the one audit row it left. */
async function attemptRow(user: string, text: string, says: string): Promise<AuditRow> {
  const before = (await auditRows(t)).length;
  const sent = await t.command(text, user);
  await respondedWith(t, sent.responseUrlId, says);
  await t.settled();
  const rows = (await auditRows(t)).slice(before);
  expect(rows, `one row for /voice ${text}`).toHaveLength(1);
  return rows[0] as AuditRow;
}

describe('refused before any confirmation', () => {
  it.each([
    ['an invalid number', OPERATOR, 'numbers buy +0123', 'number.buy', 'invalid', 'must be'],
    [
      'a number too short for its country',
      OPERATOR,
      'numbers buy +49 123',
      'number.buy',
      'invalid',
      '"+49123" is too short for a phone number in its country: nothing to buy',
    ],
    [
      'a number too short for its country, to release',
      ADMIN,
      'numbers release +49 123',
      'number.release',
      'invalid',
      '"+49123" is too short for a phone number in its country: nothing to release',
    ],
    [
      'a number too short for its country, to map',
      OPERATOR,
      'map +49 123 AGENT',
      'routing.map',
      'invalid',
      '"+49123" is too short for a phone number in its country: nothing to map',
    ],
    ['a number already owned', OPERATOR, 'numbers buy OWNED', 'number.buy', 'conflict', 'already one of your numbers'],
    [
      'an unknown number to release',
      ADMIN,
      'numbers release +12125550199',
      'number.release',
      'not_found',
      'not one of',
    ],
    ['an unknown agent to delete', ADMIN, 'agents delete agt_nobody', 'agent.delete', 'not_found', 'No agent is named'],
    ['a number not bought, to map', OPERATOR, 'map +12125550198 AGENT', 'routing.map', 'not_found', 'buy it first'],
    ['an unknown agent to map to', OPERATOR, 'map OWNED agt_nobody', 'routing.map', 'not_found', 'No agent is named'],
  ])('%s is audited as rejected, with the reason', async (_what, user, text, action, code, says) => {
    const command = text.replace('OWNED', owned).replace('AGENT', agentId);
    const row = await attemptRow(user, command, says);
    expect(row).toMatchObject({ action, outcome: 'rejected', error_code: code, actor_id: user });
    expect(row.error_message).toContain(says);
  });

  it.each([
    ['a buy with no number', OPERATOR, 'numbers buy', 'number.buy', 'Give the number to buy'],
    ['a release with no number', ADMIN, 'numbers release', 'number.release', 'Give the number or its id'],
    ['a deletion of no agent', ADMIN, 'agents delete', 'agent.delete', 'Give the agent, its id or its name'],
    ['an agent name over two lines', OPERATOR, 'agents create Desk\nTwo en-US', 'agent.create', 'one line'],
  ])('%s, refused for its form, is audited as rejected, invalid', async (_what, user, text, action, says) => {
    const row = await attemptRow(user, text, says);
    expect(row).toMatchObject({ action, outcome: 'rejected', error_code: 'invalid', actor_id: user });
    expect(row.error_message).toContain(says);
  });

  it('a map that would change nothing is audited as rejected, unchanged', async () => {
    const row = await attemptRow(OPERATOR, `map ${owned} ${agentId}`, 'already routes to');
    expect(row).toMatchObject({ action: 'routing.map', outcome: 'rejected', error_code: 'unchanged', target: owned });
  });
});

describe('a provider failing while a request is checked', () => {
  it.each([
    ['a buy', OPERATOR, 'numbers buy +12125550197', 'number.buy'],
    ['a release', ADMIN, 'numbers release OWNED', 'number.release'],
  ])('%s is audited as failed, with the provider’s error', async (_what, user, text, action) => {
    t.sandbox.faults.inject('listPurchasedNumbers', { type: 'status', status: 503 });
    try {
      const row = await attemptRow(user, text.replace('OWNED', owned), 'unavailable');
      expect(row).toMatchObject({ action, outcome: 'failed', error_code: 'unavailable' });
    } finally {
      t.sandbox.faults.clear();
    }
  });
});
