// Slack delivers a payload again when an acknowledgement is slow, people double-click, and two people can go for
// the same number: each change still reaches the provider once, and everyone else is told why nothing happened.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import {
  askForConfirmation,
  auditRows,
  auditTrail,
  buyThroughApp,
  confirmAs,
  createAgentThroughApp,
  EPHEMERAL,
  mapThroughApp,
  outcomeOf,
  press,
  sandboxAgents,
  sandboxNumbers,
  shownText,
  voiceNumber,
} from '../e2e/support.js';
import { ADMIN, OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import {
  blockAction,
  newTriggerId,
  selectInput,
  slashCommand,
  textInput,
  viewSubmission,
} from '../harness/payloads.js';
import { correlationOf, routeRecords } from './support.js';

let t: TestApp;
beforeAll(async () => {
  // Patient with the provider: a change the sandbox holds stays under way until the test lets it go.
  t = await startTestApp({ env: { VOICE_API_TIMEOUT_MS: '60000' } });
});
afterAll(async () => {
  await t?.close();
});

let responseUrls = 0;

/** A delivery as Slack would repeat it: one body, one trigger_id, one response_url. */
function confirmDelivery(user: string, confirmationId: string) {
  const responseUrlId = `dup${++responseUrls}`;
  const body = blockAction({
    userId: user,
    actionId: ACTION.confirmChange,
    value: confirmationId,
    container: EPHEMERAL,
    triggerId: newTriggerId(),
    responseUrl: t.slack.respondUrl(responseUrlId),
  });
  return { body, responseUrlId };
}

const repeatsDropped = () => t.logs.lines().filter((line) => line.includes('dropped a repeated delivery')).length;

const postsTo = (responseUrlId: string) =>
  t.slack.calls(RESPONSE_URL).filter((call) => call.responseUrlId === responseUrlId);

describe('the same delivery, twice', () => {
  it('a Confirm delivered twice at once buys once and answers once', async () => {
    const number = await voiceNumber(t, 'US', 0);
    const { confirmationId } = await askForConfirmation(t, OPERATOR, `numbers buy ${number}`);
    const { body, responseUrlId } = confirmDelivery(OPERATOR, confirmationId);
    const buys = t.sandbox.requestCount('buyNumber');
    const dropped = repeatsDropped();

    const answers = await Promise.all([t.post(body), t.post(body)]);

    // Both acknowledged; by then the repeat has been recognised and dropped, so nothing more can come of it.
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(repeatsDropped() - dropped).toBe(1);
    expect(shownText(await outcomeOf(t, responseUrlId))).toContain(`Bought *${number}*`);
    expect(t.sandbox.requestCount('buyNumber') - buys).toBe(1);
    expect(postsTo(responseUrlId).map(shownText)).toEqual([
      expect.stringContaining('Working on it'),
      expect.stringContaining('Bought'),
    ]);
    expect((await auditTrail(t, await correlationOf(t, confirmationId))).map((row) => row.outcome)).toEqual([
      'requested',
      'confirmed',
      'succeeded',
    ]);
  });

  it('a Confirm redelivered by Slack (x-slack-retry-num: 1) after the first is handled changes nothing more', async () => {
    const number = await voiceNumber(t, 'US', 0);
    const { confirmationId } = await askForConfirmation(t, OPERATOR, `numbers buy ${number}`);
    const { body, responseUrlId } = confirmDelivery(OPERATOR, confirmationId);
    const buys = t.sandbox.requestCount('buyNumber');

    expect((await t.post(body)).status).toBe(200);
    await outcomeOf(t, responseUrlId);
    const dropped = repeatsDropped();
    const retry = await t.post(body, { retryNum: 1 });

    expect(retry.status).toBe(200);
    expect(repeatsDropped() - dropped).toBe(1);
    expect(t.sandbox.requestCount('buyNumber') - buys).toBe(1);
    expect(postsTo(responseUrlId)).toHaveLength(2);
    expect(
      (await auditTrail(t, await correlationOf(t, confirmationId))).filter((row) => row.outcome === 'confirmed'),
    ).toHaveLength(1);
  });

  it('a slash command that creates an agent, delivered twice at once and then retried, creates one agent', async () => {
    const name = 'Echo desk';
    const body = slashCommand({
      text: `agents create "${name}" en-US`,
      userId: OPERATOR,
      triggerId: newTriggerId(),
      responseUrl: t.slack.respondUrl('dup-create'),
    });
    const creates = t.sandbox.requestCount('createAgent');
    const dropped = repeatsDropped();

    const answers = await Promise.all([t.post(body), t.post(body)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    await t.respondedTo('dup-create');
    expect((await t.post(body, { retryNum: 1 })).status).toBe(200);

    expect(repeatsDropped() - dropped).toBe(2);
    expect(t.sandbox.requestCount('createAgent') - creates).toBe(1);
    expect((await sandboxAgents(t)).filter((agent) => agent.name === name)).toHaveLength(1);
    expect(postsTo('dup-create')).toHaveLength(1);
    const audited = (await auditRows(t)).filter((row) => row.action === 'agent.create' && row.params?.includes(name));
    expect(audited.map((row) => row.outcome)).toEqual(['requested', 'succeeded']);
  });

  it('a create-agent form submitted twice with the same payload creates one agent', async () => {
    const name = 'Twice submitted desk';
    const body = viewSubmission({
      userId: OPERATOR,
      callbackId: CALLBACK.createAgent,
      triggerId: newTriggerId(),
      viewId: 'VDUPCREATE',
      privateMetadata: '{}',
      stateValues: {
        [INPUT.agentName.block]: { [INPUT.agentName.action]: textInput(name) },
        [INPUT.agentLanguage.block]: { [INPUT.agentLanguage.action]: selectInput('en-US') },
        [INPUT.agentLanguageOther.block]: { [INPUT.agentLanguageOther.action]: textInput(null) },
      },
    });
    const creates = t.sandbox.requestCount('createAgent');

    const answers = await Promise.all([t.post(body), t.post(body, { retryNum: 1 })]);

    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    await t.slack.waitFor(
      'views.update',
      (call) => call.body.view_id === 'VDUPCREATE' && /Created/.test(shownText(call)),
    );
    expect(t.sandbox.requestCount('createAgent') - creates).toBe(1);
    expect((await sandboxAgents(t)).filter((agent) => agent.name === name)).toHaveLength(1);
  });
});

describe('two people, one number', () => {
  it('two users who each confirm a Buy of the same number: one buys it, the other is told it was bought meanwhile', async () => {
    const number = await voiceNumber(t, 'GB', 0);
    const first = await askForConfirmation(t, OPERATOR, `numbers buy ${number}`);
    const second = await askForConfirmation(t, ADMIN, `numbers buy ${number}`);

    expect(shownText(await confirmAs(t, OPERATOR, first.confirmationId))).toContain(`Bought *${number}*`);
    const late = shownText(await confirmAs(t, ADMIN, second.confirmationId));

    expect(late).toContain(`${number} can no longer be bought: it was bought in the meantime.`);
    expect((await sandboxNumbers(t)).filter((entry) => entry.number === number)).toHaveLength(1);
    expect((await auditTrail(t, await correlationOf(t, second.confirmationId))).at(-1)).toMatchObject({
      actor_id: ADMIN,
      outcome: 'failed',
      error_code: 'conflict',
    });
  });

  it('two confirmations of a Buy of the same number confirmed at once: one reaches the provider, the other is told to wait', async () => {
    const number = await voiceNumber(t, 'DE', 0);
    const first = await askForConfirmation(t, OPERATOR, `numbers buy ${number}`);
    const second = await askForConfirmation(t, ADMIN, `numbers buy ${number}`);
    const buys = t.sandbox.requestCount('buyNumber');
    // Whichever confirmation goes first is held at the provider until the other has been answered.
    t.sandbox.faults.inject('buyNumber', { type: 'hold' }, { times: 1 });

    const clicks = await Promise.all([
      press(t, OPERATOR, ACTION.confirmChange, first.confirmationId),
      press(t, ADMIN, ACTION.confirmChange, second.confirmationId),
    ]);
    const answers = clicks.map((click) => outcomeOf(t, click.responseUrlId));
    // The one answered while the buy is held is the one that did not reach the provider.
    expect(shownText(await Promise.race(answers))).toContain(`Another change to ${number} is in progress`);
    t.sandbox.faults.clear();
    const shown = (await Promise.all(answers)).map(shownText);

    expect([...shown].sort()).toEqual([
      expect.stringContaining(`Another change to ${number} is in progress`),
      expect.stringContaining(`Bought *${number}*`),
    ]);
    // The refusal names the change it waits on: what it does, who confirmed it, since when.
    const refused = shown.findIndex((text) => text.includes('is in progress'));
    const holder = refused === 0 ? ADMIN : OPERATOR;
    expect(shown[refused]).toMatch(
      new RegExp(`in progress \\(buying, by <@${holder}> since \\d\\d:\\d\\d UTC, under a minute\\)\\.`),
    );
    expect(t.sandbox.requestCount('buyNumber') - buys).toBe(1);
    expect((await sandboxNumbers(t)).filter((entry) => entry.number === number)).toHaveLength(1);
    const outcomes = await Promise.all(
      [first, second].map(async (asked) => (await auditTrail(t, await correlationOf(t, asked.confirmationId))).at(-1)),
    );
    expect(outcomes.map((row) => `${row?.outcome} ${row?.error_code ?? ''}`).sort()).toEqual([
      'failed busy',
      'succeeded ',
    ]);
  });

  it('a release and a re-route of the same number confirmed at once: one reaches the provider, the other is refused', async () => {
    const number = await voiceNumber(t, 'FR', 0);
    await buyThroughApp(t, OPERATOR, number);
    const alpha = (await createAgentThroughApp(t, OPERATOR, 'Alpha line')).agent;
    const beta = (await createAgentThroughApp(t, OPERATOR, 'Beta line')).agent;
    await mapThroughApp(t, OPERATOR, number, alpha.id);
    const reroute = await askForConfirmation(t, OPERATOR, `map ${number} ${beta.id}`);
    const release = await askForConfirmation(t, ADMIN, `numbers release ${number}`);
    const changes = () => t.sandbox.requestCount('mapNumber') + t.sandbox.requestCount('releaseNumber');
    const before = changes();
    // Whichever change goes first is held at the provider until the other has been answered.
    t.sandbox.faults.inject('mapNumber', { type: 'hold' }, { times: 1 });
    t.sandbox.faults.inject('releaseNumber', { type: 'hold' }, { times: 1 });

    const clicks = await Promise.all([
      press(t, OPERATOR, ACTION.confirmChange, reroute.confirmationId),
      press(t, ADMIN, ACTION.confirmChange, release.confirmationId),
    ]);
    const answers = clicks.map((click) => outcomeOf(t, click.responseUrlId));
    const busy = `Another change to ${number} is in progress`;
    // The one answered while the other is held is the one that did not reach the provider.
    expect(shownText(await Promise.race(answers))).toContain(busy);
    t.sandbox.faults.clear();
    const [rerouted, released] = (await Promise.all(answers)).map(shownText);

    expect(changes() - before).toBe(1);
    const stillOurs = (await sandboxNumbers(t)).some((entry) => entry.number === number);
    if (stillOurs) {
      // The re-route won: the release was refused and changed nothing.
      expect(rerouted).toMatch(/Re-routed/);
      expect(released).toContain(busy);
      expect((await routeRecords(t))[number]).toBe(beta.id);
    } else {
      expect(released).toMatch(/Released/);
      expect(rerouted).toContain(busy);
      expect((await routeRecords(t))[number]).toBeUndefined();
    }
  });
});
