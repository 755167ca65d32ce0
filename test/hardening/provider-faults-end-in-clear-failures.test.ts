// A provider on a bad day, through the whole app: every change that meets a slow, failing, rate-limiting, garbled,
// contract-breaking or vanishing provider ends in a message the user can act on, an audit row with the outcome and
// the error code, and no half-done state (no routing record without a route, no announcement of a failure). A change
// whose answer did not come in time, and that the provider's lists do not show yet, may still happen: it is told so,
// stays open, and is settled (audited, announced if it happened, told) once the provider cannot still be at work.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from '../../src/sandbox/faults.js';
import { ACTION } from '../../src/slack/ids.js';
import {
  announcedWith,
  announcementCalls,
  askForConfirmation,
  auditRows,
  auditTrail,
  buyThroughApp,
  confirmAs,
  createAgentThroughApp,
  lastAuditRow,
  mapThroughApp,
  outcomeOf,
  press,
  respondedWith,
  sandboxAgents,
  sandboxNumbers,
  shownText,
  voiceNumber,
  WORKING,
} from '../e2e/support.js';
import { ADMIN, OPERATOR, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import { RESPONSE_URL, type SlackCall } from '../harness/fake-slack.js';
import { correlationOf, expectActionable, routeRecords, until } from './support.js';

/**
 * The app gives up on the provider after this long (VOICE_API_TIMEOUT_MS): long enough that a fault answered at once
 * is never taken for a timeout on a busy machine.
 */
const TIMEOUT_MS = 2_000;
/** A slow provider: it holds the request until the test lets it go, well after the app gave up and checked. */
const SLOW: Fault = { type: 'hold' };

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { VOICE_API_TIMEOUT_MS: String(TIMEOUT_MS) } });
});
afterEach(() => t.sandbox.faults.clear());
afterAll(async () => {
  await t?.close();
});

interface FaultCase {
  name: string;
  fault: Fault;
  /** The audit row's error_code. */
  code: string;
  /** What the user is told about a map or a release, in part. */
  says: RegExp;
  /** The provider may have made the change although the app could not read that it did. */
  uncertain: boolean;
}

/** Told of a buy, a creation or a release whose answer did not come in time and that no list shows yet. */
const MAY_STILL_HAPPEN = /did not answer the .+ in time.+it may still happen.+tells you what became of it/;

const FAULTS: FaultCase[] = [
  {
    name: 'slower than the timeout',
    fault: SLOW,
    code: 'timeout',
    says: /did not answer in time/,
    uncertain: true,
  },
  { name: 'a 503', fault: { type: 'status', status: 503 }, code: 'unavailable', says: /unavailable/, uncertain: true },
  {
    name: 'a 429 with Retry-After, every time',
    fault: { type: 'rate_limit', retryAfterSeconds: 0 },
    code: 'rate_limited',
    says: /limiting requests: try again shortly/,
    uncertain: false,
  },
  {
    name: 'malformed JSON',
    fault: { type: 'malformed_json' },
    code: 'bad_response',
    says: /outside its contract. The body is not JSON/,
    uncertain: true,
  },
  {
    name: 'a body that breaks the contract',
    fault: { type: 'contract_violation' },
    code: 'bad_response',
    says: /outside its contract. Field \w+: (missing|should be a \w+, not)/,
    uncertain: true,
  },
  {
    name: 'a dropped connection',
    fault: { type: 'drop_connection' },
    code: 'network',
    says: /could not be reached/,
    uncertain: true,
  },
];

let agents = 0;
const agentName = (what: string) => `${what} ${++agents}`;
let usNumbers = 0;

const escaped = (number: string) => new RegExp(number.replace('+', '\\+'));

/** Every check a failed change must pass: the message, the audit row, and no announcement. */
async function expectCleanFailure(
  shown: SlackCall,
  says: RegExp,
  code: string,
  correlationId: string,
  since: number,
): Promise<void> {
  const text = shownText(shown);
  expect(text).toMatch(/^:warning: /);
  expect(text).toMatch(says);
  expectActionable(text);
  const outcome = (await auditTrail(t, correlationId)).at(-1);
  expect(outcome, 'the last audit row of the request').toMatchObject({ outcome: 'failed', error_code: code });
  expect(outcome?.error_message ?? '').not.toBe('');
  expect(announcementCalls(t, since), 'no announcement of a failure').toEqual([]);
}

/**
 * A change that may still happen: said so and that it is being settled, audited as unknown (not as failed, nor as
 * done) yet, and not announced.
 */
async function expectUnsettled(
  shown: SlackCall,
  correlationId: string,
  since: number,
  says = MAY_STILL_HAPPEN,
): Promise<void> {
  const text = shownText(shown);
  expect(text).toMatch(/^:warning: /);
  expect(text).toMatch(says);
  expect(text).toContain('It is being settled');
  expect(text).not.toMatch(/failed/i);
  expectActionable(text);
  const last = (await auditTrail(t, correlationId)).at(-1);
  expect(last, 'the last audit row of the request').toMatchObject({ outcome: 'unknown' });
  expect(announcementCalls(t, since), 'no announcement yet').toEqual([]);
}

/** The audit row that opened the newest request for this action and target (or whose params mention it). */
async function requestRow(action: string, mention: string) {
  const row = (await auditRows(t)).findLast(
    (candidate) =>
      candidate.action === action &&
      candidate.outcome === 'requested' &&
      (candidate.target === mention || (candidate.params ?? '').includes(mention)),
  );
  if (!row) throw new Error(`no ${action} request for ${mention} in the audit log`);
  return row;
}

/**
 * Runs reconciliation passes until the requester of the change `shown` answered is told how it ended (a pass settles
 * it once it is older than twice the provider timeout); the text they were told.
 */
async function settledFor(shown: SlackCall, says: RegExp): Promise<string> {
  const told = await until(
    async () => {
      await t.app.reconcile();
      return t.slack
        .calls(RESPONSE_URL)
        .filter(
          (call) => call.responseUrlId === shown.responseUrlId && shownText(call).includes('checked with the provider'),
        );
    },
    (calls) => calls.length > 0,
    'the requester to be told how the change ended',
  );
  const text = shownText(told[0] as SlackCall);
  expect(text).toMatch(says);
  expect(told).toHaveLength(1);
  return text;
}

/** A number bought, an agent created, and the number routed to it, all through the app. */
async function routedNumber(region: string) {
  const number = await voiceNumber(t, region, 0);
  await buyThroughApp(t, OPERATOR, number);
  const { agent } = await createAgentThroughApp(t, OPERATOR, agentName('Routed desk'));
  await mapThroughApp(t, OPERATOR, number, agent.id);
  return { number, agent };
}

describe.each(FAULTS)('with the provider answering $name', (failure) => {
  it('a confirmed buy fails cleanly, says whether it happened, and buys nothing', async () => {
    const number = await voiceNumber(t, 'US', usNumbers++);
    const { confirmationId } = await askForConfirmation(t, OPERATOR, `numbers buy ${number}`);
    const since = t.slack.mark();
    const buys = t.sandbox.requestCount('buyNumber');
    t.sandbox.faults.inject('buyNumber', failure.fault);

    const shown = await confirmAs(t, OPERATOR, confirmationId);

    // When the provider may have bought it, the purchased list was read to tell the user which it is.
    const says = failure.uncertain ? /The purchase of .+ was NOT completed.+safe to try again/ : failure.says;
    if (failure.code === 'timeout') await expectUnsettled(shown, await correlationOf(t, confirmationId), since);
    else await expectCleanFailure(shown, says, failure.code, await correlationOf(t, confirmationId), since);
    if (failure.uncertain) expect(shownText(shown)).toMatch(escaped(number));
    if (failure.code === 'timeout') {
      // Let go, the held buy is made after all, and its requester is told once it is settled.
      t.sandbox.faults.clear();
      await settledFor(shown, /Bought/);
      return;
    }
    // A buy is never sent twice; only a 429, which the provider did not process, is repeated.
    expect(t.sandbox.requestCount('buyNumber') - buys).toBe(failure.code === 'rate_limited' ? 3 : 1);
    if (failure.fault.type !== 'hold') {
      expect((await sandboxNumbers(t)).map((entry) => entry.number)).not.toContain(number);
    }
  });

  it('creating an agent fails cleanly, says what to check before trying again, and announces nothing', async () => {
    const name = agentName(`Faulty ${failure.code}`);
    const since = t.slack.mark();
    t.sandbox.faults.inject('createAgent', failure.fault);

    const sent = await t.command(`agents create "${name}" en-US`, OPERATOR);
    const shown = await t.respondedTo(sent.responseUrlId);

    // The agents of its name were read before it was sent: one more afterwards would have been this creation.
    const says = failure.uncertain ? /The creation of ".+" was NOT completed.+safe to try again/ : failure.says;
    const { correlation_id: correlationId } = await requestRow('agent.create', name);
    if (failure.code === 'timeout') {
      await expectUnsettled(shown, correlationId, since);
      t.sandbox.faults.clear();
      await settledFor(shown, /Created agent/);
      return;
    }
    await expectCleanFailure(shown, says, failure.code, correlationId, since);
    if (failure.fault.type !== 'hold') {
      expect((await sandboxAgents(t)).map((agent) => agent.name)).not.toContain(name);
    }
  });

  it('a map fails cleanly and leaves no routing record, or, lost twice, is sent again until it is settled', async () => {
    const number = await voiceNumber(t, 'GB', 0);
    await buyThroughApp(t, OPERATOR, number);
    const { agent } = await createAgentThroughApp(t, OPERATOR, agentName('Map target'));
    const since = t.slack.mark();
    t.sandbox.faults.inject('mapNumber', failure.fault);

    const maps = t.sandbox.requestCount('mapNumber');
    const sent = await t.command(`map ${number} ${agent.id}`, OPERATOR);
    const shown = await t.respondedTo(sent.responseUrlId);

    // A map whose answer may have been lost is sent once more (it has one effect); lost again, its outcome is
    // unknown: it is being settled, and the reconciler sends it again until the provider answers.
    const correlationId = (await requestRow('routing.map', number)).correlation_id;
    expect((await routeRecords(t))[number], 'no routing record without a route').toBeUndefined();
    if (failure.fault.type !== 'hold' && failure.code !== 'rate_limited') {
      expect(t.sandbox.requestCount('mapNumber') - maps).toBe(failure.uncertain ? 2 : 1);
    }
    if (!failure.uncertain) {
      await expectCleanFailure(shown, failure.says, failure.code, correlationId, since);
      return;
    }
    await expectUnsettled(
      shown,
      correlationId,
      since,
      /The outcome of routing .+ is UNKNOWN: the answer was lost twice/,
    );
    t.sandbox.faults.clear();
    await settledFor(shown, /Routed/);
    expect((await routeRecords(t))[number]).toBe(agent.id);
    const outcomes = (await auditTrail(t, correlationId)).map((row) => row.outcome);
    expect(outcomes.filter((outcome) => outcome !== 'requested')).toEqual(['unknown', 'succeeded']);
  });

  it("a confirmed agent's deletion fails cleanly and keeps the agent", async () => {
    const { agent } = await createAgentThroughApp(t, OPERATOR, agentName('Kept desk'));
    const { confirmationId } = await askForConfirmation(t, ADMIN, `agents delete ${agent.id}`);
    const since = t.slack.mark();
    t.sandbox.faults.inject('deleteAgent', failure.fault);

    const shown = await confirmAs(t, ADMIN, confirmationId);

    // When the provider may have deleted it, the agents list was read to tell the user which it is.
    const says = failure.uncertain ? /The deletion of .+ was NOT completed.+safe to try again/ : failure.says;
    if (failure.code === 'timeout') {
      await expectUnsettled(shown, await correlationOf(t, confirmationId), since);
      t.sandbox.faults.clear();
      await settledFor(shown, /Deleted agent/);
      expect((await sandboxAgents(t)).map((listed) => listed.id)).not.toContain(agent.id);
      return;
    }
    await expectCleanFailure(shown, says, failure.code, await correlationOf(t, confirmationId), since);
    expect((await sandboxAgents(t)).map((listed) => listed.id)).toContain(agent.id);
  });

  it('a confirmed release fails cleanly and keeps the number and its routing record', async () => {
    const { number, agent } = await routedNumber('DE');
    const { confirmationId } = await askForConfirmation(t, ADMIN, `numbers release ${number}`);
    const since = t.slack.mark();
    t.sandbox.faults.inject('releaseNumber', failure.fault);

    const shown = await confirmAs(t, ADMIN, confirmationId);

    // When the provider may have released it, the purchased list was read to tell the user which it is.
    const says = failure.uncertain ? /The release of .+ was NOT completed.+safe to try again/ : failure.says;
    if (failure.code === 'timeout') {
      await expectUnsettled(shown, await correlationOf(t, confirmationId), since);
      t.sandbox.faults.clear();
      await settledFor(shown, /Released/);
      return;
    }
    await expectCleanFailure(shown, says, failure.code, await correlationOf(t, confirmationId), since);
    if (failure.fault.type !== 'hold') {
      expect((await sandboxNumbers(t)).map((entry) => entry.number)).toContain(number);
      expect((await routeRecords(t))[number], 'the route still stands, and so does its record').toBe(agent.id);
    }
  });
});

describe('answers that arrive late or not at all', () => {
  it('a buy the provider finishes after the timeout is never bought twice: a retry is refused as already yours', async () => {
    const number = await voiceNumber(t, 'FR', 0);
    const { confirmationId } = await askForConfirmation(t, OPERATOR, `numbers buy ${number}`);
    const buys = t.sandbox.requestCount('buyNumber');
    t.sandbox.faults.inject('buyNumber', SLOW, { times: 1 });
    const shown = await confirmAs(t, OPERATOR, confirmationId);
    expect(shownText(shown)).toMatch(MAY_STILL_HAPPEN);
    t.sandbox.faults.clear();

    await until(sandboxNumbers.bind(null, t), (list) => list.some((entry) => entry.number === number), 'the late buy');
    // Once the provider cannot still be at work on it, the buy is settled and its requester told.
    await settledFor(shown, new RegExp(`Bought \\*\\${number}\\*`));
    const retried = await t.command(`numbers buy ${number}`, OPERATOR);
    const answer = shownText(await t.respondedTo(retried.responseUrlId));
    expect(answer).toMatch(/is already one of your numbers: nothing to buy/);
    // Refused before any confirmation: the one buy sent was the late one.
    expect(t.sandbox.requestCount('buyNumber') - buys).toBe(1);
    expect((await sandboxNumbers(t)).filter((entry) => entry.number === number)).toHaveLength(1);
  });

  it('an agent the provider creates after the timeout is settled later: its requester is told it exists, token lost', async () => {
    const name = agentName('Late desk');
    t.sandbox.faults.inject('createAgent', SLOW, { times: 1 });
    const sent = await t.command(`agents create "${name}" en-US`, OPERATOR);
    const shown = await t.respondedTo(sent.responseUrlId);
    expect(shownText(shown)).toMatch(MAY_STILL_HAPPEN);
    t.sandbox.faults.clear();

    await until(sandboxAgents.bind(null, t), (list) => list.some((agent) => agent.name === name), 'the late agent');
    const told = await settledFor(shown, /Created agent/);
    expect(told).toContain(name);
    expect(told).toContain('its token went with the answer');
    const { correlation_id: correlationId } = await requestRow('agent.create', name);
    expect((await auditTrail(t, correlationId)).at(-1)).toMatchObject({ outcome: 'succeeded', source: 'system' });
  });

  it('a map that timed out is sent once more and routes, with its record; the late first one changes nothing', async () => {
    const number = await voiceNumber(t, 'ES', 0);
    await buyThroughApp(t, OPERATOR, number);
    const { agent } = await createAgentThroughApp(t, OPERATOR, agentName('Retry target'));
    const maps = t.sandbox.requestCount('mapNumber');
    t.sandbox.faults.inject('mapNumber', SLOW, { times: 1 });
    const first = await t.command(`map ${number} ${agent.id}`, OPERATOR);
    expect(shownText(await respondedWith(t, first.responseUrlId, 'Routed'))).not.toContain('did not answer in time');
    expect((await routeRecords(t))[number]).toBe(agent.id);
    expect(t.sandbox.requestCount('mapNumber') - maps).toBe(2);
    t.sandbox.faults.clear();
    await t.settled();
    expect((await routeRecords(t))[number]).toBe(agent.id);
  });

  it('a release the provider finishes after the timeout leaves no stale routing record once the reconciler looks', async () => {
    const { number, agent } = await routedNumber('IT');
    const { confirmationId } = await askForConfirmation(t, ADMIN, `numbers release ${number}`);
    t.sandbox.faults.inject('releaseNumber', SLOW, { times: 1 });
    // Checked at once, as a buy is: the number is still listed, and the release may still happen.
    const shown = await confirmAs(t, ADMIN, confirmationId);
    expect(shownText(shown)).toMatch(MAY_STILL_HAPPEN);
    expect((await routeRecords(t))[number], 'not known to be released yet').toBe(agent.id);
    t.sandbox.faults.clear();

    await until(sandboxNumbers.bind(null, t), (list) => !list.some((entry) => entry.number === number), 'the release');
    await settledFor(shown, /Released/);
    expect((await routeRecords(t))[number], 'no routing record without a route').toBeUndefined();
    expect(await lastAuditRow(t, { action: 'number.release', target: number })).toMatchObject({
      outcome: 'succeeded',
      source: 'system',
    });
    const agentsListed = await t.command('agents', ADMIN);
    const row = shownText(await t.respondedTo(agentsListed.responseUrlId));
    expect(row).toContain(agent.id);
    expect(row).not.toContain(number);
  });

  it('a buy whose answer is lost is reported bought, verified, audited as succeeded and announced once', async () => {
    const number = await voiceNumber(t, 'NL', 0);
    const { confirmationId } = await askForConfirmation(t, OPERATOR, `numbers buy ${number}`);
    const since = t.slack.mark();
    const buys = t.sandbox.requestCount('buyNumber');
    t.sandbox.faults.inject('buyNumber', { type: 'lose_answer' }, { times: 1 });

    const shown = shownText(await confirmAs(t, OPERATOR, confirmationId));

    expect(shown).toMatch(/Bought/);
    expect(shown).toMatch(escaped(number));
    expect(shown).toContain("The provider's answer was lost; the purchase was verified in the purchased list.");
    expectActionable(shown);
    expect(t.sandbox.requestCount('buyNumber') - buys).toBe(1);
    expect((await auditTrail(t, await correlationOf(t, confirmationId))).map((row) => row.outcome)).toEqual([
      'requested',
      'confirmed',
      'succeeded',
    ]);
    await announcedWith(t, `bought *${number}*`);
    await t.settled();
    expect(announcementCalls(t, since), 'one post or rewrite of the channel').toHaveLength(1);
  });

  it('a buy whose connection drops is reported not bought and safe to retry; the retry buys it once', async () => {
    const number = await voiceNumber(t, 'AU', 0);
    const { confirmationId } = await askForConfirmation(t, OPERATOR, `numbers buy ${number}`);
    t.sandbox.faults.inject('buyNumber', { type: 'drop_connection' }, { times: 1 });
    const shown = shownText(await confirmAs(t, OPERATOR, confirmationId));
    expect(shown).toMatch(/NOT completed.+not in the purchased list, so it is safe to try again/);
    expect((await sandboxNumbers(t)).map((entry) => entry.number)).not.toContain(number);

    await buyThroughApp(t, OPERATOR, number);
    expect((await sandboxNumbers(t)).filter((entry) => entry.number === number)).toHaveLength(1);
  });

  it('a 429 is retried after its Retry-After, and the buy then happens once', async () => {
    const number = await voiceNumber(t, 'CA', 0);
    const { confirmationId } = await askForConfirmation(t, OPERATOR, `numbers buy ${number}`);
    const buys = t.sandbox.requestCount('buyNumber');
    t.sandbox.faults.inject('buyNumber', { type: 'rate_limit', retryAfterSeconds: 1 }, { times: 1 });

    const started = performance.now();
    const shown = shownText(await confirmAs(t, OPERATOR, confirmationId));

    expect(shown).toMatch(/Bought/);
    expect(performance.now() - started, 'waited as the provider asked').toBeGreaterThanOrEqual(1000);
    expect(t.sandbox.requestCount('buyNumber') - buys).toBe(2);
    expect((await sandboxNumbers(t)).filter((entry) => entry.number === number)).toHaveLength(1);
    expect((await auditTrail(t, await correlationOf(t, confirmationId))).at(-1)?.outcome).toBe('succeeded');
  });
});

describe('one user stuck on a slow provider', () => {
  it("does not hold up another user's command: it is acknowledged and answered while the first still waits", async () => {
    // Its own app, patient enough that only the test decides when the stuck call goes through.
    const patient = await startTestApp({ env: { VOICE_API_TIMEOUT_MS: '60000' } });
    try {
      const number = await voiceNumber(patient, 'JP', 0);
      const { confirmationId } = await askForConfirmation(patient, OPERATOR, `numbers buy ${number}`);
      patient.sandbox.faults.inject('buyNumber', { type: 'hold' }, { times: 1 });
      const confirmed = await press(patient, OPERATOR, ACTION.confirmChange, confirmationId);
      expect(confirmed.status).toBe(200);
      await until(
        () => patient.sandbox.requestCount('buyNumber'),
        (count) => count > 0,
        'the buy to reach the provider',
      );

      // The provider holds the first user's buy until the faults are cleared below: everything the second user
      // gets in between was not queued behind it.
      const other = await patient.command('numbers search GB', VIEWER);
      expect(other.status).toBe(200);
      expect(shownText(await patient.respondedTo(other.responseUrlId))).toContain('GB');
      const firstSoFar = patient.slack
        .calls('response_url')
        .filter((call) => call.responseUrlId === confirmed.responseUrlId)
        .map(shownText);
      expect(firstSoFar, 'the first user is still waiting').toEqual([expect.stringContaining(WORKING)]);

      patient.sandbox.faults.clear();
      const outcome = await outcomeOf(patient, confirmed.responseUrlId);
      expect(shownText(outcome)).toMatch(/Bought/);
    } finally {
      await patient.close();
    }
  });
});
