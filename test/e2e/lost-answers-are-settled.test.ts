// A change whose answer the provider lost (it made the change, then dropped the connection: the sandbox's
// `lose_answer`) is settled by what the provider has, singly and inside a batch: the person is told it happened, and
// the audit, the routing records and the provider agree. Never made (`drop_connection`), a release is told as not
// done and safe to try again, and nothing says otherwise. An outcome still not known (a map lost twice, a list that
// cannot be read) is audited `unknown` and told as being settled, never as failed, until the reconciler settles it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { correlationOf, routeRecords, until } from '../hardening/support.js';
import { ADMIN, OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { RESPONSE_URL, type SlackCall } from '../harness/fake-slack.js';
import { metricValue } from '../harness/metrics.js';
import { textInput } from '../harness/payloads.js';
import {
  announced,
  applyPlan,
  askForConfirmation,
  auditRows,
  auditTrail,
  blocksOf,
  buyThroughApp,
  confirmAs,
  createAgentThroughApp,
  onlyButton,
  outputNumbers,
  press,
  respondedWith,
  sandboxAgents,
  sandboxNumbers,
  shownText,
  startSeededApp,
  stepEnd,
  stepEndCalls,
  stepPlan,
  viewOf,
  voiceNumber,
} from './support.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const succeeded = async (action: string, target: string) =>
  (await auditRows(t)).filter((row) => row.action === action && row.target === target && row.outcome === 'succeeded');

describe('a single change whose answer was lost', () => {
  it('a release is found done: told released, audited once, gone at the provider', async () => {
    const number = await voiceNumber(t, 'GB', 5);
    await buyThroughApp(t, ADMIN, number);
    const { confirmationId } = await askForConfirmation(t, ADMIN, `numbers release ${number}`);
    t.sandbox.faults.inject('releaseNumber', { type: 'lose_answer' }, { times: 1 });
    const outcome = shownText(await confirmAs(t, ADMIN, confirmationId));
    expect(outcome).toContain('Released');
    expect(await succeeded('number.release', number)).toHaveLength(1);
    expect((await sandboxNumbers(t)).map((entry) => entry.number)).not.toContain(number);
  });

  it('a release never made is told as not done and safe to try again, and the number stays', async () => {
    const number = await voiceNumber(t, 'GB', 6);
    await buyThroughApp(t, ADMIN, number);
    const { confirmationId } = await askForConfirmation(t, ADMIN, `numbers release ${number}`);
    t.sandbox.faults.inject('releaseNumber', { type: 'drop_connection' }, { times: 1 });
    const outcome = shownText(await confirmAs(t, ADMIN, confirmationId));
    expect(outcome).toContain('was NOT completed');
    expect(outcome).toContain('safe to try again');
    expect(await succeeded('number.release', number)).toEqual([]);
    expect((await sandboxNumbers(t)).map((entry) => entry.number)).toContain(number);
  });

  it('a map is sent once more: told routed, and the routing record says so', async () => {
    const number = await voiceNumber(t, 'GB', 7);
    await buyThroughApp(t, ADMIN, number);
    const { agent } = await createAgentThroughApp(t, ADMIN, 'Lost and found');
    const maps = t.sandbox.requestCount('mapNumber');
    t.sandbox.faults.inject('mapNumber', { type: 'lose_answer' }, { times: 1 });
    const sent = await t.command(`map ${number} ${agent.id}`, OPERATOR);
    await respondedWith(t, sent.responseUrlId, 'Routed');
    await t.settled();
    expect(t.sandbox.requestCount('mapNumber') - maps).toBe(2);
    expect(await succeeded('routing.map', number)).toHaveLength(1);
    expect((await routeRecords(t))[number]).toBe(agent.id);
    const shown = shownText(
      await respondedWith(t, (await t.command(`numbers ${number}`, OPERATOR)).responseUrlId, number),
    );
    expect(shown).toContain(agent.id);
  });

  it("an agent's deletion is found done: told deleted, audited once, gone at the provider", async () => {
    const { agent } = await createAgentThroughApp(t, ADMIN, 'Short lived');
    const { confirmationId } = await askForConfirmation(t, ADMIN, `agents delete ${agent.id}`);
    t.sandbox.faults.inject('deleteAgent', { type: 'lose_answer' }, { times: 1 });
    const outcome = shownText(await confirmAs(t, ADMIN, confirmationId));
    expect(outcome).toContain('Deleted');
    expect(await succeeded('agent.delete', agent.id)).toHaveLength(1);
    expect((await sandboxAgents(t)).map((listed) => listed.id)).not.toContain(agent.id);
  });
});

describe('an agent created whose answer was lost', () => {
  it('is found in the agents list: told created, that its token is gone and what to do, audited once', async () => {
    await createAgentThroughApp(t, OPERATOR, 'Echo desk');
    const creations = t.sandbox.requestCount('createAgent');
    t.sandbox.faults.inject('createAgent', { type: 'lose_answer' }, { times: 1 });
    const sent = await t.command('agents create "Echo desk" en-US', OPERATOR);
    const told = shownText(await t.respondedTo(sent.responseUrlId));
    await t.settled();
    const echoes = (await sandboxAgents(t)).filter((agent) => agent.name === 'Echo desk');
    expect(echoes).toHaveLength(2);
    const created = echoes.at(-1);
    expect(told).toContain('Created agent');
    expect(told).toContain(created?.id);
    expect(told).toContain('its token went with the answer and cannot be shown again');
    expect(told).not.toMatch(/```/);
    expect(t.sandbox.requestCount('createAgent') - creations).toBe(1);
    expect(await succeeded('agent.create', created?.id ?? '')).toHaveLength(1);
  });

  it('never made is told as not done and safe to try again, and no agent appears', async () => {
    t.sandbox.faults.inject('createAgent', { type: 'drop_connection' }, { times: 1 });
    const sent = await t.command('agents create "Ghost desk" en-US', OPERATOR);
    const told = shownText(await t.respondedTo(sent.responseUrlId));
    await t.settled();
    expect(told).toContain('was NOT completed');
    expect(told).toContain('safe to try again');
    expect((await sandboxAgents(t)).filter((agent) => agent.name === 'Ghost desk')).toEqual([]);
    const creations = (await auditRows(t)).filter((row) => row.action === 'agent.create');
    expect(creations.at(-1)?.outcome).toBe('failed');
  });
});

describe('a bulk release whose items lose their answers', () => {
  it('counts them released: the result, the audit and the provider agree', async () => {
    const numbers = [await voiceNumber(t, 'JP', 3), await voiceNumber(t, 'JP', 4), await voiceNumber(t, 'JP', 5)];
    for (const number of numbers) await buyThroughApp(t, ADMIN, number);
    const planned = await t.respondedTo((await t.command('numbers release JP', ADMIN)).responseUrlId);
    const batchId = onlyButton(blocksOf(planned), ACTION.confirmBatchTyped);
    const since = t.slack.mark();
    const pressed = await press(t, ADMIN, ACTION.confirmBatchTyped, batchId);
    const opened = viewOf(
      await t.slack.waitFor('views.open', (call) => call.body.trigger_id === pressed.triggerId, { since }),
    );
    const releases = t.sandbox.requestCount('releaseNumber');
    // Each release is made, and its answer lost.
    t.sandbox.faults.inject('releaseNumber', { type: 'lose_answer' }, { times: numbers.length });
    await t.submit({
      userId: ADMIN,
      callbackId: CALLBACK.confirmBatch,
      privateMetadata: opened.private_metadata,
      stateValues: { [INPUT.typedConfirmation.block]: { [INPUT.typedConfirmation.action]: textInput('3') } },
    });
    await t.slack.waitFor('views.update', (call) => shownText(call).includes('Released 3 of 3 numbers'), { since });
    await t.settled();
    expect(t.sandbox.requestCount('releaseNumber') - releases).toBe(numbers.length);
    const owned = (await sandboxNumbers(t)).map((entry) => entry.number);
    for (const number of numbers) {
      expect(owned).not.toContain(number);
      expect(await succeeded('number.release', number)).toHaveLength(1);
    }
  });
});

describe('a batch whose item times out', () => {
  it('waits until the provider cannot still be at work on it: a buy made late is counted bought, audited once', async () => {
    // A provider timeout of its own, so that the batch's wait is short.
    const app = await startTestApp({ env: { VOICE_API_TIMEOUT_MS: '1000' } });
    try {
      const planned = await app.respondedTo((await app.command('numbers buy GB 2', OPERATOR)).responseUrlId);
      const timedOut = () =>
        metricValue(
          app.app.probesUrl,
          'voice_ops_provider_request_failures_total{method="POST",endpoint="/buy-phone-number",kind="timeout"}',
        );
      const listed = () =>
        metricValue(
          app.app.probesUrl,
          'voice_ops_provider_request_seconds_count{method="GET",endpoint="/purchased-phone-numbers"}',
        );
      app.sandbox.faults.inject('buyNumber', { type: 'hold' }, { times: 1 });
      const buys = app.sandbox.requestCount('buyNumber');
      const pressed = await press(
        app,
        OPERATOR,
        ACTION.confirmBatch,
        onlyButton(blocksOf(planned), ACTION.confirmBatch),
      );
      await until(
        () => app.sandbox.requestCount('buyNumber'),
        (count) => count > buys,
        'the held buy to reach the provider',
      );
      // While the app waits for the held buy's answer, nothing reads the purchased list for it yet.
      const before = await listed();
      await until(timedOut, (count) => count === 1, 'the held buy to time out');
      await until(listed, (count) => count > before, 'the purchased list to be read, without the held buy');
      // The held buy is made now, after the app gave up on its answer and found it missing from the list.
      app.sandbox.faults.clear();

      const result = shownText(await respondedWith(app, pressed.responseUrlId, /Bought \d+ of 2/));
      await app.settled();
      expect(result).toContain('Bought 2 of 2 numbers');
      expect(app.logs.text()).toContain('a batch item waits until the provider cannot still be at work on it');
      expect(app.sandbox.requestCount('buyNumber')).toBe(2);
      const owned = (await sandboxNumbers(app)).map((entry) => entry.number);
      const bought = (await auditRows(app)).filter((row) => row.action === 'number.buy' && row.outcome === 'succeeded');
      expect(bought).toHaveLength(2);
      for (const row of bought) expect(owned).toContain(row.target);
    } finally {
      await app.close();
    }
  });
});

describe('a batch whose item loses its answer', () => {
  it('routes every number: the result, the audit and the routing records agree with the provider', async () => {
    const numbers = [await voiceNumber(t, 'NL', 5), await voiceNumber(t, 'NL', 6), await voiceNumber(t, 'NL', 7)];
    for (const number of numbers) await buyThroughApp(t, ADMIN, number);
    const { agent } = await createAgentThroughApp(t, ADMIN, 'Batch desk');
    const plan = await t.respondedTo((await t.command(`map unrouted NL to ${agent.id}`, OPERATOR)).responseUrlId);
    const maps = t.sandbox.requestCount('mapNumber');
    // One answer lost: with items under way at once, two could fall on one item's map and its resend.
    t.sandbox.faults.inject('mapNumber', { type: 'lose_answer' }, { times: 1 });
    const pressed = await press(t, OPERATOR, ACTION.confirmBatch, onlyButton(blocksOf(plan), ACTION.confirmBatch));
    await respondedWith(t, pressed.responseUrlId, `Routed ${numbers.length} of ${numbers.length}`);
    await t.settled();
    // The map whose answer was lost was sent once more.
    expect(t.sandbox.requestCount('mapNumber') - maps).toBe(numbers.length + 1);
    const records = await routeRecords(t);
    for (const number of numbers) {
      expect(await succeeded('routing.map', number)).toHaveLength(1);
      expect(records[number]).toBe(agent.id);
    }
  });
});

describe('a bulk map whose answers are lost twice, and late', () => {
  it('ends with every item routed: being settled until the provider answers, then audited, announced and told once', async () => {
    // A provider timeout of its own, so that an item's check and the reconciler's back-off are short.
    const { t: app, agent } = await startSeededApp(
      { agents: 1, numbers: 20, routed: 0 },
      { env: { VOICE_API_TIMEOUT_MS: '1000' } },
    );
    try {
      const target = agent(0);
      const plan = await app.respondedTo((await app.command(`map unrouted to ${target.id}`, OPERATOR)).responseUrlId);
      const since = app.slack.mark();
      const maps = app.sandbox.requestCount('mapNumber');
      // Items run four at a time, and each waits for its own answers: the first four items' maps, their resends and
      // their checks a timeout later are all lost (16 answers). Two answers of the next items come late; the rest of
      // the batch's maps (16, and 2 resends) are answered; then the reconciler's first resend of each of the four
      // items is lost twice again, and it tries them again after a back-off.
      const faults = app.sandbox.faults;
      faults.inject('mapNumber', { type: 'lose_answer' }, { times: 16 });
      faults.inject('mapNumber', { type: 'delay', ms: 1_500 }, { times: 2 });
      faults.inject('mapNumber', { type: 'delay', ms: 0 }, { times: 18 });
      faults.inject('mapNumber', { type: 'lose_answer' }, { times: 8 });

      const result = shownText(await applyPlan(app, plan));
      expect(result).toMatch(/Routed \d+ of 20 numbers/);
      expect(result).toMatch(
        /; [1-9]\d* being settled: the provider has not answered for them yet, and you will be told/,
      );
      expect(result).not.toMatch(/failed/i);

      // The reconciler sends each one again until the provider answers, then tells the requester how the batch ended.
      const told = await until(
        () =>
          app.slack
            .calls()
            .slice(since)
            .filter((call) => shownText(call).includes(NOW_ANSWERED)),
        (calls) => calls.length > 0,
        'the requester to be told how the batch ended',
        30_000,
      );
      await app.settled();
      expect(told).toHaveLength(1);
      expect(shownText(told[0] as SlackCall)).toContain('Routed 20 of 20 numbers');

      const rows = (await auditRows(app)).filter((row) => row.action === 'routing.map');
      expect(rows.filter((row) => row.outcome === 'unknown').length).toBeGreaterThan(0);
      expect(rows.filter((row) => row.outcome === 'failed')).toEqual([]);
      const records = await routeRecords(app);
      for (const number of Object.keys(records)) expect(records[number]).toBe(target.id);
      expect(Object.keys(records)).toHaveLength(20);
      const routed = rows.filter((row) => row.outcome === 'succeeded');
      expect(new Set(routed.map((row) => row.target)).size).toBe(20);
      expect(routed).toHaveLength(20);

      // The batch's final word is audited and announced once, naming every number.
      const batch = (await auditRows(app)).filter((row) => row.action === 'batch.map');
      expect(batch.map((row) => row.outcome)).toEqual(['requested', 'confirmed', 'unknown', 'succeeded']);
      expect(JSON.parse(batch.at(-1)?.params ?? '{}')).toMatchObject({ succeeded: 20, failed: 0 });
      const announcements = announced(app).filter((message) => message.text.includes('routed 20 numbers'));
      expect(announcements).toHaveLength(1);
      expect(app.logs.text()).toContain('the outcome of a change is unknown: it is being settled');
      // The reconciler's first resends were lost too: it tried them again, later.
      expect(app.logs.text()).toContain('the provider did not answer the reconciliation pass');
      expect(app.sandbox.requestCount('mapNumber') - maps).toBeGreaterThanOrEqual(16 + 18 + 8 + 4);
    } finally {
      await app.close();
    }
  });
});

const NOW_ANSWERED = 'The provider has now answered for every number of your batch that was being settled.';

describe('a workflow step whose batch has items being settled', () => {
  it('ends once they are settled, with every number routed among its outputs', async () => {
    const {
      t: app,
      numbers,
      agent,
    } = await startSeededApp({ agents: 1, numbers: 2, routed: 0 }, { env: { VOICE_API_TIMEOUT_MS: '1000' } });
    try {
      const routed = numbers.map((entry) => entry.number);
      const { execution } = await app.runStep('route_numbers', {
        user_id: OPERATOR,
        numbers: routed.join('\n'),
        agent_id: agent(0).id,
      });
      const plan = await stepPlan(app, execution, OPERATOR);
      // Both items' maps, their resends, and their checks a timeout later: every answer lost.
      app.sandbox.faults.inject('mapNumber', { type: 'lose_answer' }, { times: 8 });
      const since = app.slack.mark();
      await app.action({
        userId: OPERATOR,
        actionId: ACTION.confirmBatch,
        value: plan.batchId,
        container: plan.container,
      });
      const end = await stepEnd(app, execution);
      expect(outputNumbers(end).sort()).toEqual([...routed].sort());
      expect(stepEndCalls(app, execution)).toHaveLength(1);
      // It ended after the reconciler settled them, not when the batch's runner moved past them.
      const settled = app.slack
        .calls()
        .slice(since)
        .findIndex((call) => shownText(call).includes(NOW_ANSWERED));
      const ended = app.slack
        .calls()
        .slice(since)
        .findIndex((call) => call.method.startsWith('functions.complete'));
      expect(settled).toBeGreaterThanOrEqual(0);
      expect(ended).toBeGreaterThan(settled);
    } finally {
      await app.close();
    }
  });
});

describe('a release whose answer is lost and whose list cannot be read', () => {
  it('is being settled, audited unknown, then found released by the reconciler: told once, audited succeeded', async () => {
    // A provider timeout of its own, so that the reconciler's settling time is short.
    const app = await startTestApp({ env: { VOICE_API_TIMEOUT_MS: '1000' } });
    try {
      const number = await voiceNumber(app, 'GB', 5);
      await buyThroughApp(app, ADMIN, number);
      const { confirmationId } = await askForConfirmation(app, ADMIN, `numbers release ${number}`);
      app.sandbox.faults.inject('releaseNumber', { type: 'lose_answer' }, { times: 1 });
      app.sandbox.faults.inject('listPurchasedNumbers', { type: 'status', status: 503 });
      const shown = await confirmAs(app, ADMIN, confirmationId);
      expect(shownText(shown)).toMatch(/The outcome of releasing .+ is UNKNOWN.+It is being settled/);
      expect(shownText(shown)).not.toMatch(/failed/i);
      const correlationId = await correlationOf(app, confirmationId);
      expect((await auditTrail(app, correlationId)).at(-1)?.outcome).toBe('unknown');

      // The list reads again: the reconciler finds the number gone, and tells the requester on the same message.
      app.sandbox.faults.clear();
      const told = await until(
        () =>
          app.slack
            .calls(RESPONSE_URL)
            .filter((call) => call.responseUrlId === shown.responseUrlId && shownText(call).includes('checked with')),
        (calls) => calls.length > 0,
        'the requester to be told how the release ended',
      );
      await app.settled();
      expect(told).toHaveLength(1);
      expect(shownText(told[0] as SlackCall)).toContain('Released');
      const outcomes = (await auditTrail(app, correlationId)).map((row) => row.outcome);
      expect(outcomes.slice(outcomes.indexOf('unknown'))).toEqual(['unknown', 'succeeded']);
      expect((await sandboxNumbers(app)).map((entry) => entry.number)).not.toContain(number);
    } finally {
      await app.close();
    }
  });
});
