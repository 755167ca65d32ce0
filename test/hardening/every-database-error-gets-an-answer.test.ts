// Any database failure reaches the person with what is known, never a cause that did not happen and never a
// "Working on it…" left for good: a database that takes no writes (both engines), another session holding the audit
// chain's lock past the statement timeout (a single change, a bulk plan and its Apply), and a pool of one held by a
// change that waits on that lock (Postgres).
// Each failure counts in /metrics by kind. Locks are held and let go by the test: nothing races a clock.
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { CHAIN_LOCK } from '../../src/store/audit.js';
import {
  acknowledged,
  askForConfirmation,
  blocksOf,
  EPHEMERAL,
  onlyButton,
  outcomeOf,
  press,
  respondedWith,
  sandboxAgents,
  shownText,
  stopWrites,
  voiceNumber,
} from '../e2e/support.js';
import { OPERATOR, startTestApp, type TestApp, type TestAppOptions } from '../harness/app.js';
import { TEST_ENGINE } from '../harness/database.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { metricValue } from '../harness/metrics.js';
import { selectInput, textInput } from '../harness/payloads.js';
import { numbersAndAgent } from './process-support.js';
import { until } from './support.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function started(options: TestAppOptions = {}): Promise<TestApp> {
  t = await startTestApp(options);
  return t;
}

const faultsCounted = (app: TestApp, kind: string) =>
  metricValue(app.app.probesUrl, `voice_ops_database_faults_total{kind="${kind}"}`);

/** A session of the test's own that holds the audit chain's lock until `release`; `waiting` counts who waits for it. */
async function holdTheChain(app: TestApp): Promise<{ waiting(): Promise<number>; release(): Promise<void> }> {
  if (app.database.target.kind !== 'postgres') throw new Error('Postgres only');
  const client = new pg.Client({ connectionString: app.database.target.url });
  await client.connect();
  await client.query('BEGIN');
  await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [CHAIN_LOCK]);
  return {
    waiting: async () => {
      const { rows } = await client.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      return Number(rows[0]?.n ?? 0);
    },
    release: async () => {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

describe('a database that takes no writes', () => {
  it('answers a command and a click that it did nothing, and why, and counts it', async () => {
    const app = await started();
    const writable = await stopWrites(app);
    try {
      // Postgres ends the app's sessions first: the pool may meet a dead one before it opens a read-only one.
      const sent = await until(
        () => app.command('help', OPERATOR),
        (answer) => acknowledged(answer).includes('cannot write to its database'),
        'a command to be told the database takes no writes',
      );
      expect(acknowledged(sent)).toContain('so it did nothing. Tell whoever runs Voice Ops');
      const pressed = await app.action({ userId: OPERATOR, actionId: ACTION.searchNumbers, container: EPHEMERAL });
      const told = await app.respondedTo(pressed.responseUrlId);
      expect(shownText(told)).toContain('cannot write to its database just now, so it did nothing');
      expect(await faultsCounted(app, 'not writable')).toBeGreaterThanOrEqual(2);
    } finally {
      await writable();
    }
  });
});

describe.runIf(TEST_ENGINE === 'postgres')('a Postgres that is busy', () => {
  it('the audit chain held past the statement timeout: the Confirm is told the change was started and will be settled, and pressed again buys nothing twice', async () => {
    const app = await started({ env: { DATABASE_STATEMENT_TIMEOUT_MS: '500' } });
    const number = await voiceNumber(app, 'DE');
    const { confirmationId } = await askForConfirmation(app, OPERATOR, `numbers buy ${number}`);
    const buys = app.sandbox.requestCount('buyNumber');
    const chain = await holdTheChain(app);
    let outcome: string;
    let responseUrlId: string | undefined;
    try {
      const pressed = await press(app, OPERATOR, ACTION.confirmChange, confirmationId);
      responseUrlId = pressed.responseUrlId;
      outcome = shownText(await outcomeOf(app, responseUrlId));
      await app.settled();
    } finally {
      await chain.release();
    }
    // The claim and the change's intent were written before the chain's lock was asked for: the change is started,
    // and the reconciler settles it; nothing reached the provider.
    expect(outcome).toContain('found its database too busy');
    expect(outcome).toContain('after the change was started and before it reached the provider');
    expect(outcome).toContain('you will be told what became of it');
    expect(app.sandbox.requestCount('buyNumber')).toBe(buys);
    // The answer took the place of "Working on it…": it is the last word on that message.
    const posts = app.slack.calls(RESPONSE_URL).filter((call) => call.responseUrlId === responseUrlId);
    expect(posts.at(-1)?.body).toMatchObject({ replace_original: true });
    expect(shownText(posts.at(-1) as (typeof posts)[number])).toBe(outcome);
    // Pressed again, it is not bought twice.
    const again = await press(app, OPERATOR, ACTION.confirmChange, confirmationId);
    expect(shownText(await outcomeOf(app, again.responseUrlId))).toContain('under way');
    expect(app.sandbox.requestCount('buyNumber')).toBe(buys);
    expect(await faultsCounted(app, 'busy')).toBeGreaterThanOrEqual(1);
  });

  it('a bulk plan and its Apply, with the audit chain held past the statement timeout: each is answered in place of its "Working on it…"', async () => {
    const app = await started({ env: { DATABASE_STATEMENT_TIMEOUT_MS: '500' } });
    const agentId = await numbersAndAgent(app.sandbox, 'NL', 3, { name: 'Busy desk', language: 'nl-NL' });
    // What the person reads last where the request was answered.
    const lastWord = (responseUrlId: string | undefined) => {
      const last = app.slack
        .calls(RESPONSE_URL)
        .filter((call) => call.responseUrlId === responseUrlId)
        .at(-1);
      return last ? shownText(last) : '';
    };

    let chain = await holdTheChain(app);
    let planned: Awaited<ReturnType<TestApp['command']>>;
    try {
      planned = await app.command(`map NL to ${agentId}`, OPERATOR);
      await until(
        () => Promise.resolve(lastWord(planned.responseUrlId)),
        (text) => text.includes('too busy'),
        'the plan to be answered that the database is busy',
      );
      await app.settled();
    } finally {
      await chain.release();
    }
    const planAnswer = lastWord(planned.responseUrlId);
    expect(planAnswer).toContain('nothing was changed');
    expect(planAnswer).not.toMatch(/Working on it|Checking the plan/);

    const plan = await app.respondedTo((await app.command(`map NL to ${agentId}`, OPERATOR)).responseUrlId);
    const maps = app.sandbox.requestCount('mapNumber');
    chain = await holdTheChain(app);
    let applied: Awaited<ReturnType<typeof press>>;
    try {
      applied = await press(app, OPERATOR, ACTION.confirmBatch, onlyButton(blocksOf(plan), ACTION.confirmBatch));
      await until(
        () => Promise.resolve(lastWord(applied.responseUrlId)),
        (text) => text.includes('too busy'),
        'the Apply to be answered that the database is busy',
      );
      await app.settled();
    } finally {
      await chain.release();
    }
    const applyAnswer = lastWord(applied.responseUrlId);
    expect(applyAnswer).not.toMatch(/Working on it|Checking the plan|of \d+ done/);
    expect(applyAnswer).toContain('nothing was changed');
    expect(app.sandbox.requestCount('mapNumber')).toBe(maps);
    expect(await faultsCounted(app, 'busy')).toBeGreaterThanOrEqual(2);
    // Nothing was left half-done: the same plan, applied again once the database answers, routes every number.
    const again = await press(app, OPERATOR, ACTION.confirmBatch, onlyButton(blocksOf(plan), ACTION.confirmBatch));
    expect(shownText(await respondedWith(app, again.responseUrlId, 'Routed'))).toContain('Routed 3 of 3 numbers');
  });

  it('a form submitted with the audit chain held past the statement timeout: the modal shows the answer in place of its "Working on it…"', async () => {
    const app = await started({ env: { DATABASE_STATEMENT_TIMEOUT_MS: '500' } });
    const viewId = 'VBUSYFORM';
    const chain = await holdTheChain(app);
    try {
      const answer = await app.submit({
        userId: OPERATOR,
        callbackId: CALLBACK.createAgent,
        viewId,
        privateMetadata: '{}',
        stateValues: {
          [INPUT.agentName.block]: { [INPUT.agentName.action]: textInput('Busy form desk') },
          [INPUT.agentLanguage.block]: { [INPUT.agentLanguage.action]: selectInput('en-GB') },
          [INPUT.agentLanguageOther.block]: { [INPUT.agentLanguageOther.action]: textInput(null) },
        },
      });
      expect(answer.json).toMatchObject({ response_action: 'update' });
      const shown = await app.slack.waitFor(
        'views.update',
        (call) => call.body.view_id === viewId && shownText(call).includes('too busy'),
      );
      expect(shownText(shown)).toContain('nothing was changed');
      await app.settled();
    } finally {
      await chain.release();
    }
    const updates = app.slack.calls('views.update').filter((call) => call.body.view_id === viewId);
    expect(shownText(updates.at(-1) as (typeof updates)[number])).toContain('too busy');
    expect((await sandboxAgents(app)).map((agent) => agent.name)).not.toContain('Busy form desk');
  });

  /** A pool of one whose connection a confirmed buy holds, waiting for the chain that the test holds. */
  async function poolOfOneHeldByAChange() {
    const app = await started({ env: { DATABASE_POOL_SIZE: '1', DATABASE_STATEMENT_TIMEOUT_MS: '30000' } });
    const number = await voiceNumber(app, 'DE', 1);
    const { confirmationId } = await askForConfirmation(app, OPERATOR, `numbers buy ${number}`);
    const chain = await holdTheChain(app);
    try {
      await press(app, OPERATOR, ACTION.confirmChange, confirmationId);
      await until(
        () => chain.waiting(),
        (waiting) => waiting > 0,
        'the change to wait on the chain',
      );
    } catch (error) {
      await chain.release();
      throw error;
    }
    return { app, chain };
  }

  it('a pool of one held by a change waiting on the chain: a command is told the database is busy, not unreachable', async () => {
    const { app, chain } = await poolOfOneHeldByAChange();
    try {
      // The wait for a connection outlasts Slack's three seconds: the answer comes through the response_url.
      const sent = await app.command('help', OPERATOR);
      const told = shownText(await app.respondedTo(sent.responseUrlId));
      expect(told).toContain('found its database too busy just now, so it did nothing');
      expect(told).not.toContain('cannot reach');
    } finally {
      await chain.release();
    }
    await app.settled();
    expect(await faultsCounted(app, 'busy')).toBeGreaterThanOrEqual(1);
  });

  it('a pool of one freed after Slack’s three seconds: an answer too late for its acknowledgement comes on the response_url', async () => {
    const { app, chain } = await poolOfOneHeldByAChange();
    let responseUrlId: string | undefined;
    try {
      // Bolt answers for the app once three seconds pass unacknowledged; the wait for the pool lasts up to five.
      const sent = await app.command('help', OPERATOR);
      expect(sent).toMatchObject({ status: 404, body: '' });
      responseUrlId = sent.responseUrlId;
    } finally {
      await chain.release();
    }
    const answer = await app.respondedTo(responseUrlId);
    expect(answer.inAck).toBeUndefined();
    expect(shownText(answer)).toContain('Voice Ops commands');
  });
});
