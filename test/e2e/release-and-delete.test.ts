// Releasing numbers and deleting agents: the confirmation states the exact effect and warns from the app's own
// routing records; the provider's refusal to delete a routed agent reaches the user as an explanation.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { ADMIN, startTestApp, type TestApp } from '../harness/app.js';
import {
  announced,
  announcedWith,
  announcementCalls,
  askForConfirmation,
  auditRows,
  auditTrail,
  blocksOf,
  buyThroughApp,
  confirmAs,
  createAgentThroughApp,
  hasElement,
  lastAuditRow,
  mapThroughApp,
  onlyButton,
  press,
  respondedWith,
  rowsOf,
  type SandboxAgent,
  sandboxAgents,
  sandboxNumbers,
  sandboxRequest,
  shownText,
  viewOf,
  voiceNumber,
} from './support.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await t.close();
});

/** An agent, a number bought for it and the route between them, all through the app. */
async function routedNumber(): Promise<{ agent: SandboxAgent; number: string; numberId: string }> {
  const { agent } = await createAgentThroughApp(t, ADMIN, 'Front desk');
  const number = await voiceNumber(t);
  await buyThroughApp(t, ADMIN, number);
  await mapThroughApp(t, ADMIN, number, agent.id);
  const numberId = (await sandboxNumbers(t)).find((entry) => entry.number === number)?.id ?? '';
  expect(numberId).toMatch(/^pn_/);
  return { agent, number, numberId };
}

async function routeRecord(number: string): Promise<{ agent_id: string } | undefined> {
  return (await rowsOf<{ agent_id: string }>(t, 'SELECT agent_id FROM routes WHERE phone_number = ?', [number]))[0];
}

async function confirmationCount(): Promise<number> {
  return (await rowsOf<{ n: number }>(t, 'SELECT count(*) AS n FROM confirmations'))[0]?.n ?? 0;
}

/** The outcomes of the newest request of `action`, in order, whatever its first row. */
async function outcomesOfLatestOf(action: string): Promise<string[]> {
  const newest = (await auditRows(t)).findLast((row) => row.action === action);
  return (await auditTrail(t, newest?.correlation_id ?? '')).map((row) => row.outcome);
}

/** The outcomes of the request whose `requested` row is the newest of `action`, in order. */
async function outcomesOfLatest(action: string): Promise<string[]> {
  const requested = await lastAuditRow(t, { action, outcome: 'requested' });
  expect(requested, `a requested ${action} row`).toBeDefined();
  return (await auditTrail(t, requested?.correlation_id ?? '')).map((row) => row.outcome);
}

describe('/voice numbers release', () => {
  it('warns that a routed number routes to its agent, then releases it, removes the route, audits and announces', async () => {
    const { agent, number, numberId } = await routedNumber();
    expect((await routeRecord(number))?.agent_id).toBe(agent.id);

    const { prompt, confirmationId } = await askForConfirmation(t, ADMIN, `numbers release ${number}`);
    const asked = shownText(prompt);
    expect(asked).toContain(number);
    expect(asked).toContain(numberId);
    expect(asked).toContain(':warning:');
    expect(asked).toContain('Front desk');
    expect(asked).toContain(agent.id);
    expect(asked).toContain('callers will reach no agent');
    expect(t.sandbox.requestCount('releaseNumber')).toBe(0);

    const outcome = await confirmAs(t, ADMIN, confirmationId);
    expect(shownText(outcome)).toContain('Released');
    expect(shownText(outcome)).toContain(number);

    expect(t.sandbox.requestCount('releaseNumber')).toBe(1);
    expect((await sandboxNumbers(t)).map((entry) => entry.number)).not.toContain(number);
    expect(await routeRecord(number)).toBeUndefined();

    expect(await outcomesOfLatest('number.release')).toEqual(['requested', 'confirmed', 'succeeded']);
    const succeeded = await lastAuditRow(t, { action: 'number.release', outcome: 'succeeded' });
    expect(succeeded).toMatchObject({ actor_id: ADMIN, target: number });

    const release = `released *${number}* (US, id \`${numberId}\`): it no longer routes to *Front desk* (\`${agent.id}\`)`;
    const announcement = await announcedWith(t, release);
    expect(announcement.text).toContain(`<@${ADMIN}>`);
    await t.settled();
    expect(
      announced(t).filter((message) => message.text.includes(release)),
      'announced once',
    ).toHaveLength(1);
  });

  it('releases a number named by its provider id (pn_…)', async () => {
    const number = await voiceNumber(t);
    await buyThroughApp(t, ADMIN, number);
    const numberId = (await sandboxNumbers(t)).find((entry) => entry.number === number)?.id ?? '';
    expect(numberId).toMatch(/^pn_/);

    const { prompt, confirmationId } = await askForConfirmation(t, ADMIN, `numbers release ${numberId}`);
    expect(shownText(prompt)).toContain(number);
    expect(shownText(prompt)).toContain(numberId);
    expect(shownText(prompt)).not.toContain(':warning:');

    const outcome = await confirmAs(t, ADMIN, confirmationId);
    expect(shownText(outcome)).toContain('Released');
    expect(await sandboxNumbers(t)).toEqual([]);
    expect(await outcomesOfLatest('number.release')).toEqual(['requested', 'confirmed', 'succeeded']);
  });
  it('the Release button of `/voice numbers` leads to the same confirmation', async () => {
    const { agent, number, numberId } = await routedNumber();
    const listed = await t.command('numbers', ADMIN);
    const release = onlyButton(blocksOf(await t.respondedTo(listed.responseUrlId)), ACTION.releaseNumber);

    const pressed = await press(t, ADMIN, ACTION.releaseNumber, release);
    const prompt = await t.respondedTo(pressed.responseUrlId);
    expect(shownText(prompt)).toContain(numberId);
    expect(shownText(prompt)).toContain(`:warning: It routes to *Front desk* (\`${agent.id}\`)`);

    const outcome = await confirmAs(t, ADMIN, onlyButton(blocksOf(prompt), ACTION.confirmChange));
    expect(shownText(outcome)).toContain(`Released *${number}*`);
    expect(await sandboxNumbers(t)).toEqual([]);
    expect(await outcomesOfLatest('number.release')).toEqual(['requested', 'confirmed', 'succeeded']);
    expect((await lastAuditRow(t, { action: 'number.release', outcome: 'requested' }))?.source).toBe('button');
  });
});

describe('/voice agents delete', () => {
  it('refuses an agent that numbers route to before any confirmation, audited, offering Map on each number', async () => {
    const { agent, number } = await routedNumber();
    const confirmations = await confirmationCount();

    const sent = await t.command(`agents delete ${agent.id}`, ADMIN);
    const refused = await t.respondedTo(sent.responseUrlId);
    const said = shownText(refused);
    expect(said).toContain(`Agent *Front desk* (\`${agent.id}\`) cannot be deleted: 1 number still routes to it`);
    expect(hasElement(blocksOf(refused), ACTION.confirmChange), 'no confirmation is offered').toBe(false);
    expect(onlyButton(blocksOf(refused), ACTION.mapNumber)).toBe(number);
    expect(await confirmationCount()).toBe(confirmations);
    expect(t.sandbox.requestCount('deleteAgent')).toBe(0);
    expect(await outcomesOfLatestOf('agent.delete')).toEqual(['rejected']);
    expect(await lastAuditRow(t, { action: 'agent.delete', outcome: 'rejected' })).toMatchObject({
      actor_id: ADMIN,
      target: agent.id,
      error_code: 'agent_in_use',
    });

    // Map opens the map form with that number picked; routed elsewhere, the agent can go.
    const mark = t.slack.mark();
    const pressed = await press(t, ADMIN, ACTION.mapNumber, number);
    const form = await t.slack.waitFor('views.update', (call) => viewOf(call).callback_id === CALLBACK.mapNumber, {
      since: mark,
    });
    expect(pressed.status).toBe(200);
    const picker = viewOf(form).blocks.find((block) => block.block_id === INPUT.mapNumber.block)?.element;
    expect(picker?.initial_option?.value).toBe(number);
    const { agent: other } = await createAgentThroughApp(t, ADMIN, 'Back desk');
    const reroute = await askForConfirmation(t, ADMIN, `map ${number} ${other.id}`);
    await confirmAs(t, ADMIN, reroute.confirmationId);

    const second = await askForConfirmation(t, ADMIN, `agents delete ${agent.id}`);
    expect(shownText(second.prompt)).toContain('Delete agent *Front desk*');
    const deleted = await confirmAs(t, ADMIN, second.confirmationId);
    expect(shownText(deleted)).toContain('Deleted agent');
    expect(t.sandbox.requestCount('deleteAgent')).toBe(1);
    expect((await sandboxAgents(t)).map((entry) => entry.id)).not.toContain(agent.id);
    expect(await outcomesOfLatest('agent.delete')).toEqual(['requested', 'confirmed', 'succeeded']);
    await announcedWith(t, `deleted agent *Front desk* (\`${agent.id}\`)`);
  });

  it('explains the provider’s refusal after the confirmation when a number routes there without the app knowing', async () => {
    const { agent } = await createAgentThroughApp(t, ADMIN, 'Side desk');
    const number = await voiceNumber(t);
    await buyThroughApp(t, ADMIN, number);
    // Routed at the provider directly: the app's own records do not know of it.
    const routed = await sandboxRequest(t, 'POST', '/phone-number-routing', {
      phone_number: number,
      route_type: 'ai_agent',
      agent_id: agent.id,
    });
    expect(routed.status).toBe(200);

    const asked = await askForConfirmation(t, ADMIN, `agents delete ${agent.id}`);
    const quiet = t.slack.mark();
    const refused = await confirmAs(t, ADMIN, asked.confirmationId);
    // The app's explanation, then the provider's own words (its 409 body names the routed number).
    expect(shownText(refused)).toContain('a number still routes to it');
    expect(shownText(refused)).toContain(`still routed from ${number}`);
    expect(t.sandbox.requestCount('deleteAgent')).toBe(1);
    expect(await outcomesOfLatest('agent.delete')).toEqual(['requested', 'confirmed', 'failed']);
    expect(await lastAuditRow(t, { action: 'agent.delete', outcome: 'failed' })).toMatchObject({
      target: agent.id,
      error_code: 'conflict',
    });
    await t.settled();
    expect(announcementCalls(t, quiet)).toEqual([]);
  });
});

describe('unknown numbers and agents', () => {
  it.each([
    ['numbers release +12125550100', '+12125550100 is not one of your numbers', 'not_found'],
    ['numbers release pn_doesnotexist', 'pn_doesnotexist is not one of your numbers', 'not_found'],
    ['agents delete agt_doesnotexist', 'No agent is named "agt_doesnotexist"', 'not_found'],
    // Longer than a Slack button or option can carry.
    [`agents delete ${'a'.repeat(151)}`, 'Agent ids and names are at most 150 characters', 'invalid'],
    [`numbers release ${'p'.repeat(151)}`, 'Number or id must be at most 150 characters', 'invalid'],
  ])(
    '`/voice %s` is refused with the reason, asks for no confirmation, and audits the attempt as rejected',
    async (text, message, code) => {
      const rowsBefore = (await auditRows(t)).length;
      const sent = await t.command(text, ADMIN);
      const answer = await respondedWith(t, sent.responseUrlId, message);
      expect(hasElement(blocksOf(answer), ACTION.confirmChange)).toBe(false);
      expect(await confirmationCount()).toBe(0);
      const [row, ...more] = (await auditRows(t)).slice(rowsBefore);
      expect(more).toEqual([]);
      expect(row).toMatchObject({ actor_id: ADMIN, outcome: 'rejected', error_code: code });
      expect(row?.error_message).toContain(message);
      expect(t.sandbox.requestCount('releaseNumber') + t.sandbox.requestCount('deleteAgent')).toBe(0);
    },
  );
});
