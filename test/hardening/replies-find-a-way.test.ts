// A reply that the response_url cannot carry takes another private route: an ephemeral message in the channel,
// then a direct message from the app. An agent token reaches its creator alone, or the audit says it reached no
// one. A form Slack does not open is answered with what to type instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { announcedWith, announcementCalls, auditRows, shownText } from '../e2e/support.js';
import { OPERATOR, OPS_CHANNEL, startTestApp, type TestApp } from '../harness/app.js';
import { RESPONSE_URL, type SlackCall } from '../harness/fake-slack.js';
import { freePort } from './process-support.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

let agents = 0;

/** `/voice agents create` with the response_url failing; resolves once the app is done with the request. */
async function createAgentWithoutResponseUrl(): Promise<{ name: string; since: number }> {
  const name = `Fallback desk ${++agents}`;
  const since = t.slack.mark();
  t.slack.failNext(RESPONSE_URL, 'expired_url');
  await t.command(`agents create "${name}" en-US`, OPERATOR);
  await announcedWith(t, name);
  await t.settled();
  return { name, since };
}

const tokenIn = (call: SlackCall) => /```([^`]+)```/.exec(shownText(call))?.[1];

/** Every Slack call since `since` that carries a code block: where a token could have gone. */
const tokenCarriers = (since: number) =>
  t.slack
    .calls()
    .slice(since)
    .filter((call) => tokenIn(call) !== undefined);

describe('an agent token whose response_url fails', () => {
  it('reaches its creator in an ephemeral message in the channel, and nowhere else', async () => {
    const { since } = await createAgentWithoutResponseUrl();
    const carriers = tokenCarriers(since);
    expect(carriers.map((call) => call.method)).toEqual([RESPONSE_URL, 'chat.postEphemeral']);
    const [, ephemeral] = carriers;
    expect(ephemeral?.body).toMatchObject({ channel: OPS_CHANNEL, user: OPERATOR });
  });

  it('reaches its creator by direct message when the channel refuses ephemerals too', async () => {
    t.slack.failNext('chat.postEphemeral', 'not_in_channel');
    const { since } = await createAgentWithoutResponseUrl();
    const carriers = tokenCarriers(since);
    expect(carriers.map((call) => call.method)).toEqual([RESPONSE_URL, 'chat.postEphemeral', 'chat.postMessage']);
    expect(carriers.at(-1)?.body.channel, "the app's direct message with its creator").toBe(OPERATOR);
  });

  it('reaching no one is audited, and the token is kept nowhere', async () => {
    t.slack.failNext('chat.postEphemeral', 'not_in_channel');
    t.slack.failNext('chat.postMessage', 'cannot_dm_bot');
    t.slack.failNext(RESPONSE_URL, 'expired_url');
    t.slack.failNext('chat.postEphemeral', 'not_in_channel');
    t.slack.failNext('chat.postMessage', 'cannot_dm_bot');
    const { name } = await createAgentWithoutResponseUrl();
    const created = (await auditRows(t)).findLast(
      (row) => row.action === 'agent.create' && row.outcome === 'succeeded',
    );
    const undelivered = (await auditRows(t)).findLast((row) => row.action === 'agent.token');
    expect(undelivered).toMatchObject({
      outcome: 'failed',
      target: created?.target,
      correlation_id: created?.correlation_id,
      error_code: 'undelivered',
    });
    expect(undelivered?.error_message).toContain('reached no one');
    // The announcement still went out: the agent exists, whoever could see its token.
    await announcedWith(t, `created agent *${name}*`);
  });
});

describe('a response_url nobody answers', () => {
  it('is left for an ephemeral message, and the log says what failed under the post', async () => {
    const since = t.slack.mark();
    const closed = `http://127.0.0.1:${await freePort()}/respond/nobody`;
    await t.command('agents', OPERATOR, { responseUrl: closed });
    await t.slack.waitFor('chat.postEphemeral', (call) => call.body.user === OPERATOR, { since });
    await t.settled();
    const fallback = t.logs
      .entries()
      .filter((entry) => entry.msg === 'reply delivered by a fallback')
      .at(-1);
    expect(fallback).toMatchObject({ route: 'ephemeral' });
    expect(String((fallback?.failures as string[] | undefined)?.[0])).toMatch(
      /^response_url: the request failed: .*ECONNREFUSED/,
    );
  });
});

describe('a form Slack does not open', () => {
  it('is answered with what happened and the command that does the same', async () => {
    t.slack.failNext('views.open', 'expired_trigger_id');
    const sent = await t.command('agents create', OPERATOR);
    const reply = await t.respondedTo(sent.responseUrlId);
    expect(shownText(reply)).toContain('Slack did not open the form (`expired_trigger_id`)');
    expect(shownText(reply)).toContain('/voice agents create NAME LANGUAGE');
  });

  it('from the Home tab, shows the confirmation in a direct message instead', async () => {
    const since = t.slack.mark();
    t.slack.failNext('views.open', 'expired_trigger_id');
    await t.action({
      userId: OPERATOR,
      actionId: ACTION.buyNumber,
      value: '+14155550100',
      container: { type: 'view', viewId: 'VHOME', viewType: 'home' },
    });
    const direct = await t.slack.waitFor('chat.postMessage', (call) => call.body.channel === OPERATOR, { since });
    expect(shownText(direct)).toContain('+14155550100');
    expect(announcementCalls(t, since)).toEqual([]);
  });
});
