// The app in Socket Mode (SLACK_APP_TOKEN set, as manifest.yml sets it up): it opens its connection with the app
// token, and the commands, buttons, forms and Home tab work over envelopes and acks as they do over HTTP.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { ADMIN, APP_TOKEN, OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { selectInput, textInput } from '../harness/payloads.js';
import {
  announcedWith,
  askForConfirmation,
  auditRows,
  blocksOf,
  buttonValues,
  confirmAs,
  readable,
  sandboxAgents,
  sandboxNumbers,
  shownText,
  suggested,
  viewOf,
  voiceNumber,
} from './support.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ socketMode: true });
});
afterAll(async () => {
  await t.close();
});

describe('connecting', () => {
  it('opens its connection with the app token and is ready once Slack has said hello', async () => {
    const opens = t.slack.calls('apps.connections.open');
    expect(opens.map((call) => call.token)).toEqual([APP_TOKEN]);
    expect(t.slack.socketMode.connections()).toBe(1);
    expect(t.slack.socketMode.connected()).toBe(true);
    // PORT serves the health routes only: requests come over the socket, never to an HTTP receiver.
    const events = await request(`${t.app.url}/slack/events`, { method: 'POST', body: 'command=%2Fvoice' });
    await events.body.dump();
    expect(events.statusCode).toBe(404);
    const messages = t.logs.entries().map((entry) => entry.msg);
    expect(messages.indexOf('Socket Mode: connected to Slack')).toBeGreaterThanOrEqual(0);
    expect(messages.indexOf('Voice Ops is ready')).toBeGreaterThan(messages.indexOf('Socket Mode: connected to Slack'));
  });
});

describe('commands and buttons over envelopes', () => {
  it('acks `/voice help` with the help as the envelope’s payload', async () => {
    const sent = await t.command('help', ADMIN);
    expect(sent.json).toMatchObject({ response_type: 'ephemeral', text: 'Voice Ops commands' });
    const answer = await t.respondedTo(sent.responseUrlId);
    expect(answer.inAck).toBe(true);
    expect(shownText(answer)).toContain('/voice agents');
  });

  it('acks `/voice agents` with an empty payload and answers on the response_url', async () => {
    const sent = await t.command('agents', ADMIN);
    expect(sent).toMatchObject({ status: 200, body: '' });
    const answer = await t.respondedTo(sent.responseUrlId);
    expect(answer).toMatchObject({ body: { response_type: 'ephemeral' } });
    expect(answer.inAck).toBeUndefined();
  });

  it('answers `/voice numbers search US` with the sandbox’s numbers and Buy buttons', async () => {
    const sent = await t.command('numbers search US', OPERATOR);
    const answer = await t.respondedTo(sent.responseUrlId);
    const buyable = buttonValues(blocksOf(answer), ACTION.buyNumber);
    expect(buyable.length).toBeGreaterThan(0);
    expect(buyable).toContain(await voiceNumber(t, 'US'));
  });

  it('buys a number after the Confirm button, audits each step and announces it', async () => {
    const number = await voiceNumber(t, 'GB');
    const { prompt, confirmationId } = await askForConfirmation(t, OPERATOR, `numbers buy ${number}`);
    expect(shownText(prompt)).toContain(number);
    expect((await sandboxNumbers(t)).map((entry) => entry.number)).not.toContain(number);

    const outcome = await confirmAs(t, OPERATOR, confirmationId);
    expect(shownText(outcome)).toContain(`Bought *${number}*`);
    expect((await sandboxNumbers(t)).map((entry) => entry.number)).toContain(number);
    await announcedWith(t, `bought *${number}* (GB`);
    const trail = (await auditRows(t)).filter((row) => row.action === 'number.buy' && row.target === number);
    expect(trail.map((row) => `${row.action} ${row.outcome}`)).toEqual([
      'number.buy requested',
      'number.buy confirmed',
      'number.buy succeeded',
    ]);
  });
});

describe('the type-ahead pickers over an interactive envelope', () => {
  it('answers a block_suggestion with the options in its ack', async () => {
    const bought = await sandboxNumbers(t);
    expect(bought.length).toBeGreaterThan(0);
    const offered = await suggested(t, INPUT.mapNumber, bought[0]?.number.slice(-4) ?? '');
    expect(offered.options.map((option) => option.value)).toContain(bought[0]?.number);
  });
});

describe('the create-agent form over envelopes', () => {
  const form = (name: string | null, language: string | null) => ({
    [INPUT.agentName.block]: { [INPUT.agentName.action]: textInput(name) },
    [INPUT.agentLanguage.block]: { [INPUT.agentLanguage.action]: selectInput(language) },
    [INPUT.agentLanguageOther.block]: { [INPUT.agentLanguageOther.action]: textInput(null) },
  });

  it('opens the modal, answers an empty name with an inline error in the ack, then creates the agent', async () => {
    const sent = await t.command('agents create', OPERATOR);
    const opened = await t.slack.waitFor('views.open', (call) => call.body.trigger_id === sent.triggerId);
    const modal = viewOf(opened);
    expect(modal.callback_id).toBe(CALLBACK.createAgent);
    const created = t.sandbox.requestCount('createAgent');

    const refused = await t.submit({
      userId: OPERATOR,
      callbackId: CALLBACK.createAgent,
      privateMetadata: modal.private_metadata,
      stateValues: form('', 'en-US'),
    });
    expect(refused.json).toMatchObject({ response_action: 'errors' });
    const errors = (refused.json as { errors: Record<string, string> }).errors;
    expect(Object.keys(errors)).toEqual([INPUT.agentName.block]);
    expect(t.sandbox.requestCount('createAgent')).toBe(created);

    const viewId = 'VSOCKETCREATE';
    const accepted = await t.submit({
      userId: OPERATOR,
      viewId,
      callbackId: CALLBACK.createAgent,
      privateMetadata: modal.private_metadata,
      stateValues: form('Night desk', 'en-GB'),
    });
    expect(accepted.json).toMatchObject({ response_action: 'update' });
    const shown = await t.slack.waitFor(
      'views.update',
      (call) => call.body.view_id === viewId && readable(blocksOf(call)).includes('Agent token'),
    );
    expect(readable(blocksOf(shown))).toContain('Night desk');
    expect((await sandboxAgents(t)).find((agent) => agent.name === 'Night desk')).toMatchObject({ status: 'active' });
  });
});

describe('the Home tab over an events_api envelope', () => {
  it('acks app_home_opened and publishes the dashboard for that user', async () => {
    const mark = t.slack.mark();
    const opened = await t.homeOpened(ADMIN);
    expect(opened).toMatchObject({ status: 200, body: '' });
    const published = await t.slack.waitFor('views.publish', (call) => call.body.user_id === ADMIN, { since: mark });
    const view = viewOf(published);
    expect(view.type).toBe('home');
    expect(view.blocks.filter((block) => block.type === 'header').map((block) => block.text?.text)).toEqual([
      'Voice AI',
      'Numbers',
      'Settings',
    ]);
    expect(readable(view.blocks)).toContain('Night desk');
  });
});
