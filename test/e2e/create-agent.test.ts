// Creating an AI agent: by modal and by command, with inline form errors, and the agent token shown once, to its
// creator only: never logged, stored, posted or published.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { OTHER_LOCALE } from '../../src/slack/views/locales.js';
import { NOTIFY_CHANNEL, OPERATOR, OPS_CHANNEL, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import { RESPONSE_URL, type SlackCall } from '../harness/fake-slack.js';
import { multiSelectInput, type StateValues, selectInput, textInput } from '../harness/payloads.js';
import { mrkdwnMarks } from '../harness/slack-mrkdwn.js';
import {
  announcedWith,
  announcementCalls,
  auditRows,
  blocksOf,
  buyThroughApp,
  createAgentThroughApp,
  EPHEMERAL,
  everyRowAsJson,
  hasElement,
  lastAuditRow,
  onlyButton,
  readable,
  sandboxAgents,
  shownText,
  suggested,
  viewOf,
  voiceNumber,
} from './support.js';

// Operators of their own for the test that compares two announcements: each opens a message of its own, of one shape.
const PLAIN_CREATOR = 'UPLAIN';
const STYLED_CREATOR = 'USTYLED';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ operators: [OPERATOR, PLAIN_CREATOR, STYLED_CREATOR] });
});
afterAll(async () => {
  await t.close();
});

/** The create form as submitted: name, picked language, typed "other" locale (null when left empty). */
function createForm(name: string | null, picked: string | null, other: string | null = null): StateValues {
  return {
    [INPUT.agentName.block]: { [INPUT.agentName.action]: textInput(name) },
    [INPUT.agentLanguage.block]: { [INPUT.agentLanguage.action]: selectInput(picked) },
    [INPUT.agentLanguageOther.block]: { [INPUT.agentLanguageOther.action]: textInput(other) },
  };
}

/** Opens the create modal with `/voice agents create` and returns what a submission must carry back. */
async function openCreateModal(user = OPERATOR) {
  const sent = await t.command('agents create', user);
  const opened = await t.slack.waitFor('views.open', (call) => call.body.trigger_id === sent.triggerId);
  return { sent, view: viewOf(opened) };
}

/** Every place a secret must never reach: the log, the database file, the channel, the Home tab. */
async function expectNowhereButWhereShown(token: string, shownIn: SlackCall) {
  expect(token.length).toBeGreaterThan(8);
  expect(t.logs.lines().length, 'the app logged something to search').toBeGreaterThan(0);
  expect(t.logs.text()).not.toContain(token);
  expect(await everyRowAsJson(t)).not.toContain(token);
  const leaks = t.slack.calls().filter((call) => call !== shownIn && JSON.stringify(call.body).includes(token));
  expect(leaks.map((call) => call.method)).toEqual([]);
  for (const method of ['chat.postMessage', 'chat.update', 'views.publish']) {
    for (const call of t.slack.calls(method)) expect(JSON.stringify(call.body)).not.toContain(token);
  }
}

describe('the create-agent modal', () => {
  it('opens on `/voice agents create` with name and language inputs, creating nothing yet', async () => {
    const created = t.sandbox.requestCount('createAgent');
    const { view } = await openCreateModal();
    expect(view.callback_id).toBe(CALLBACK.createAgent);
    const blockIds = view.blocks.map((block) => block.block_id);
    expect(blockIds).toEqual(
      expect.arrayContaining([INPUT.agentName.block, INPUT.agentLanguage.block, INPUT.agentLanguageOther.block]),
    );
    expect(readable(view.blocks)).toContain('shown once');
    expect(t.sandbox.requestCount('createAgent')).toBe(created);
  });

  it('tells a viewer which variable grants the operator role, instead of opening the modal', async () => {
    const sent = await t.command('agents create', VIEWER);
    const reply = await t.respondedTo(sent.responseUrlId);
    expect(shownText(reply)).toContain('VOICE_OPERATORS');
    expect(t.slack.calls('views.open').filter((call) => call.body.trigger_id === sent.triggerId)).toHaveLength(0);
    const denied = (await auditRows(t)).filter((row) => row.actor_id === VIEWER && row.action === 'access.denied');
    expect(denied.map((row) => [row.outcome, JSON.parse(row.params ?? '{}').attempted])).toEqual([
      ['denied', 'agent.create'],
    ]);
  });

  it.each([
    { why: 'an empty name', form: createForm('', 'en-US'), block: INPUT.agentName.block, says: 'Name' },
    { why: 'a blank name', form: createForm('   ', 'en-US'), block: INPUT.agentName.block, says: 'Name' },
    {
      why: 'a name with a line break',
      form: createForm('Desk\n:white_check_mark: Released *+14155550100*', 'en-US'),
      block: INPUT.agentName.block,
      says: 'Name must be one line of plain text, without line breaks, tabs or other control characters (found a line break',
    },
    {
      why: 'a name with a right-to-left override',
      form: createForm('Desk \u202eSU-ne', 'en-US'),
      block: INPUT.agentName.block,
      says: 'U+202E',
    },
    {
      why: 'a malformed locale',
      form: createForm('Support', OTHER_LOCALE, 'english'),
      block: INPUT.agentLanguageOther.block,
      says: 'english',
    },
    {
      why: 'a language’s name where its locale goes',
      form: createForm('Support', OTHER_LOCALE, 'German'),
      block: INPUT.agentLanguageOther.block,
      says: '"German" is not a locale tag. Did you mean de-DE (German, Germany), de-AT (German, Austria) or de-CH (German, Switzerland)?',
    },
    {
      why: 'a language’s own name where its locale goes',
      form: createForm('Support', OTHER_LOCALE, 'français'),
      block: INPUT.agentLanguageOther.block,
      says: 'Did you mean fr-FR (French, France) or fr-CA (French, Canada)?',
    },
    {
      why: 'a locale of the right shape that names no language or region',
      form: createForm('Support', OTHER_LOCALE, 'xx-YY'),
      block: INPUT.agentLanguageOther.block,
      says: 'xx-YY is not a locale: xx is not a language code and YY is not a region code.',
    },
    {
      why: '“Other locale” picked and none typed',
      form: createForm('Support', OTHER_LOCALE, null),
      block: INPUT.agentLanguageOther.block,
      says: 'Type the locale',
    },
    {
      why: 'a language picked and another typed',
      form: createForm('Support', 'en-US', 'sv-SE'),
      block: INPUT.agentLanguageOther.block,
      says: 'Pick “Other locale” under Language',
    },
    {
      why: 'no language at all',
      form: createForm('Support', null, null),
      block: INPUT.agentLanguage.block,
      says: 'language',
    },
  ])('answers $why with an inline error on that input, and creates nothing', async ({ form, block, says }) => {
    const { view } = await openCreateModal();
    const created = t.sandbox.requestCount('createAgent');
    const agentsBefore = await sandboxAgents(t);
    const auditBefore = (await auditRows(t)).length;
    const mark = t.slack.mark();

    const answer = await t.submit({
      userId: OPERATOR,
      callbackId: CALLBACK.createAgent,
      privateMetadata: view.private_metadata,
      stateValues: form,
    });

    expect(answer.status).toBe(200);
    const json = answer.json as { response_action?: string; errors?: Record<string, string> };
    expect(json.response_action).toBe('errors');
    expect(Object.keys(json.errors ?? {})).toEqual([block]);
    expect(json.errors?.[block]).toContain(says);
    expect(t.sandbox.requestCount('createAgent')).toBe(created);
    expect(await sandboxAgents(t)).toEqual(agentsBefore);
    expect((await auditRows(t)).slice(auditBefore).filter((row) => row.action === 'agent.create')).toEqual([]);
    // The form stays as it was: no update, no announcement.
    const after = t.slack.calls().slice(mark);
    expect(after.filter((call) => ['views.update', 'chat.postMessage', 'chat.update'].includes(call.method))).toEqual(
      [],
    );
  });

  it('creates the agent from a valid submission and shows its token in the modal itself', async () => {
    const { view } = await openCreateModal();
    const viewId = 'VCREATEMODAL';
    const mark = t.slack.mark();

    const answer = await t.submit({
      userId: OPERATOR,
      viewId,
      callbackId: CALLBACK.createAgent,
      privateMetadata: view.private_metadata,
      // The typed locale, used when "Other locale" is picked, is normalised.
      stateValues: createForm('  Night shift  ', OTHER_LOCALE, 'sv_se'),
    });

    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ response_action: 'update' });
    const shown = await t.slack.waitFor(
      'views.update',
      (call) => call.body.view_id === viewId && readable(blocksOf(call)).includes('Agent token'),
      { since: mark },
    );
    const token = /```([^`]+)```/.exec(readable(blocksOf(shown)))?.[1] ?? '';
    expect(readable(blocksOf(shown))).toContain('Night shift');
    expect(readable(blocksOf(shown))).toContain('Store this token now');

    const agent = (await sandboxAgents(t)).find((candidate) => candidate.name === 'Night shift');
    expect(agent).toMatchObject({ status: 'active' });
    const rows = (await auditRows(t)).filter((row) => row.action === 'agent.create' && row.actor_id === OPERATOR);
    expect(rows.map((row) => [row.outcome, row.source])).toEqual(
      expect.arrayContaining([
        ['requested', 'modal'],
        ['succeeded', 'modal'],
      ]),
    );
    expect(rows.find((row) => row.outcome === 'succeeded')?.target).toBe(agent?.id);
    expect(JSON.parse(rows.find((row) => row.outcome === 'requested')?.params ?? '{}')).toMatchObject({
      name: 'Night shift',
      language: 'sv-SE',
    });

    const announced = await announcedWith(t, `created agent *Night shift* (\`${agent?.id}\`, sv-SE)`);
    expect(announced.text).toContain(`<@${OPERATOR}>`);
    // The last thing the change does is to republish the creator's Home tab.
    await t.slack.waitFor(
      'views.publish',
      (call) => call.body.user_id === OPERATOR && readable(blocksOf(call)).includes('Night shift'),
      { since: mark },
    );
    await expectNowhereButWhereShown(token, shown);
  });
});

describe('/voice agents create NAME LANGUAGE', () => {
  it('creates the agent at once and shows the token only in the requester’s ephemeral reply', async () => {
    const mark = t.slack.mark();
    const { agent, token, reply } = await createAgentThroughApp(t, OPERATOR, 'Front desk', 'en-US');

    expect(agent.status).toBe('active');
    expect(reply.method).toBe(RESPONSE_URL);
    expect(reply.body.response_type).toBe('ephemeral');
    expect(readable(blocksOf(reply))).toContain('Front desk');
    expect(readable(blocksOf(reply))).toContain(agent.id);
    expect(readable(blocksOf(reply))).toContain('Store this token now');
    // The way on to routing numbers is under the token, as after the form.
    expect(onlyButton(blocksOf(reply), ACTION.routeNumbersToAgent)).toBe(agent.id);
    expect(t.sandbox.requestCount('createAgent')).toBeGreaterThan(0);

    await announcedWith(t, `created agent *Front desk* (\`${agent.id}\`, en-US)`);
    // The creator's Home tab follows the change.
    await t.slack.waitFor(
      'views.publish',
      (call) => call.body.user_id === OPERATOR && readable(blocksOf(call)).includes('Front desk'),
      { since: mark },
    );

    await expectNowhereButWhereShown(token, reply);
    const rows = (await auditRows(t)).filter((row) => row.target === agent.id);
    expect(rows.map((row) => [row.action, row.outcome, row.source])).toEqual([
      ['agent.create', 'succeeded', 'command'],
    ]);
  });

  it('refuses a locale that names no language or region, before anything reaches the provider', async () => {
    const created = t.sandbox.requestCount('createAgent');
    const sent = await t.command('agents create Support xx-YY', OPERATOR);
    const reply = await t.respondedTo(sent.responseUrlId);
    expect(shownText(reply)).toContain('xx-YY is not a locale: xx is not a language code and YY is not a region code.');
    expect(t.sandbox.requestCount('createAgent')).toBe(created);
    expect(await lastAuditRow(t, { action: 'agent.create', actor_id: OPERATOR })).toMatchObject({
      outcome: 'rejected',
    });
  });

  it('answers a language named where its locale goes with the locales it stands for, creating nothing', async () => {
    const created = t.sandbox.requestCount('createAgent');
    const mark = t.slack.mark();
    const sent = await t.command('agents create Support german', OPERATOR);
    const reply = await t.respondedTo(sent.responseUrlId);
    expect(shownText(reply)).toContain(
      'Did you mean `de-DE` (German, Germany), `de-AT` (German, Austria) or `de-CH` (German, Switzerland)? ' +
        'For example: `/voice agents create Support de-DE`.',
    );
    expect(t.sandbox.requestCount('createAgent')).toBe(created);
    expect(
      t.slack
        .calls()
        .slice(mark)
        .filter((call) => call.method === 'views.open'),
    ).toEqual([]);
    // In quotes, the two words are the name, and the form asks for the language.
    const quoted = await t.command('agents create "Support german"', OPERATOR);
    const opened = await t.slack.waitFor('views.open', (call) => call.body.trigger_id === quoted.triggerId);
    expect(JSON.stringify(viewOf(opened))).toContain('Support german');
  });

  it('refuses a name with a line break, naming it, before anything reaches the provider or the channel', async () => {
    const created = t.sandbox.requestCount('createAgent');
    const mark = t.slack.mark();
    const sent = await t.command('agents create "Desk\n:white_check_mark: Released *+14155550100*" en-US', OPERATOR);
    const reply = await t.respondedTo(sent.responseUrlId);

    expect(shownText(reply)).toContain(
      'The agent name must be one line of plain text, without line breaks, tabs or other control characters ' +
        '(found a line break, U+000A).',
    );
    expect(t.sandbox.requestCount('createAgent')).toBe(created);
    expect(announcementCalls(t, mark)).toEqual([]);
  });

  it('shows formatting characters in a name as typed, formatting nothing in the reply or the announcement', async () => {
    const announcementOf = (agentId: string, since: number) =>
      t.slack.waitFor(
        'chat.postMessage',
        (call) => call.body.channel === NOTIFY_CHANNEL && JSON.stringify(call.body).includes(agentId),
        { since },
      );
    let mark = t.slack.mark();
    const plain = await createAgentThroughApp(t, PLAIN_CREATOR, 'Plain desk', 'en-US');
    const plainAnnouncement = await announcementOf(plain.agent.id, mark);
    mark = t.slack.mark();
    const styled = await createAgentThroughApp(t, STYLED_CREATOR, '*Desk* _night_ ~old~ `v2` > on', 'en-US');
    const styledAnnouncement = await announcementOf(styled.agent.id, mark);

    expect(mrkdwnMarks(styled.reply.body)).toEqual(mrkdwnMarks(plain.reply.body));
    // The two announcements differ only in whom they mention, each its creator.
    const marksBy = (call: SlackCall, creator: string) =>
      mrkdwnMarks(JSON.parse(JSON.stringify(call.body).replaceAll(creator, 'UCREATOR')));
    expect(marksBy(styledAnnouncement, STYLED_CREATOR)).toEqual(marksBy(plainAnnouncement, PLAIN_CREATOR));
    expect(shownText(styledAnnouncement)).toContain(
      '\u2217Desk\u2217 \u02CDnight\u02CD \u223Cold\u223C \u02CBv2\u02CB &gt; on',
    );
  });

  it('escapes the agent name in the announcement, so that it can never ping the channel', async () => {
    const mark = t.slack.mark();
    const { agent, token, reply } = await createAgentThroughApp(t, OPERATOR, '<!channel> Bot', 'en-GB');
    expect(JSON.stringify(reply.body)).toContain('&lt;!channel&gt; Bot');
    expect(JSON.stringify(reply.body)).not.toContain('<!channel>');
    // The provider keeps the name as typed; only Slack's rendering is escaped.
    expect(agent.name).toBe('<!channel> Bot');

    await announcedWith(t, agent.id);
    const posted = JSON.stringify(announcementCalls(t, mark).map((call) => call.body));
    expect(posted).toContain('&lt;!channel&gt; Bot');
    expect(posted).not.toContain('<!channel>');
    expect(posted).not.toContain(token);
  });
});

describe('after the create form', () => {
  it('leaves the agent’s name and id (never its token) in the channel, with a button to route numbers to it', async () => {
    const { view } = await openCreateModal();
    const viewId = 'VCREATEDPOSTS';
    const mark = t.slack.mark();
    await t.submit({
      userId: OPERATOR,
      viewId,
      callbackId: CALLBACK.createAgent,
      privateMetadata: view.private_metadata,
      stateValues: createForm('Evening desk', 'en-US'),
    });
    const shown = await t.slack.waitFor(
      'views.update',
      (call) => call.body.view_id === viewId && readable(blocksOf(call)).includes('Agent token'),
      { since: mark },
    );
    const token = /```([^`]+)```/.exec(readable(blocksOf(shown)))?.[1] ?? '';
    const agent = (await sandboxAgents(t)).find((candidate) => candidate.name === 'Evening desk');
    const left = await t.slack.waitFor('chat.postEphemeral', (call) => call.body.user === OPERATOR, { since: mark });
    expect(left.body.channel).toBe(OPS_CHANNEL);
    expect(shownText(left)).toContain('Evening desk');
    expect(shownText(left)).toContain(`\`${agent?.id}\``);
    expect(onlyButton(blocksOf(left), ACTION.routeNumbersToAgent)).toBe(agent?.id);
    await t.settled();
    await expectNowhereButWhereShown(token, shown);

    // Its button opens a form that picks several numbers at once, those that route nowhere first, then one plan.
    const first = await voiceNumber(t);
    await buyThroughApp(t, OPERATOR, first);
    const second = await voiceNumber(t);
    await buyThroughApp(t, OPERATOR, second);
    const pressed = await t.action({
      userId: OPERATOR,
      actionId: ACTION.routeNumbersToAgent,
      value: agent?.id ?? '',
      container: EPHEMERAL,
    });
    // Opened at once, loading, then filled in with the agent's name.
    await t.slack.waitFor('views.open', (call) => call.body.trigger_id === pressed.triggerId);
    const form = viewOf(
      await t.slack.waitFor('views.update', (call) => viewOf(call).callback_id === CALLBACK.routeNumbers, {
        since: mark,
      }),
    );
    expect(form.callback_id).toBe(CALLBACK.routeNumbers);
    expect(readable(form.blocks)).toContain('Evening desk');
    const picker = form.blocks.find((block) => block.block_id === INPUT.routeNumbers.block)?.element;
    expect(picker?.type).toBe('multi_external_select');
    const offered = await suggested(t, INPUT.routeNumbers, '');
    expect(offered.groups[0]).toMatch(/^Not routed/);
    expect(offered.options.map((option) => option.value)).toEqual(expect.arrayContaining([first, second]));

    const planned = t.slack.mark();
    const answer = await t.submit({
      userId: OPERATOR,
      callbackId: CALLBACK.routeNumbers,
      privateMetadata: form.private_metadata,
      stateValues: { [INPUT.routeNumbers.block]: { [INPUT.routeNumbers.action]: multiSelectInput([first, second]) } },
    });
    expect(answer.json).toMatchObject({ response_action: 'clear' });
    const plan = await t.slack.waitFor(
      'chat.postEphemeral',
      (call) => hasElement(blocksOf(call), ACTION.confirmBatch),
      {
        since: planned,
      },
    );
    expect(readable(blocksOf(plan))).toContain('2 numbers to route');
    expect(readable(blocksOf(plan))).toContain('Evening desk');
  });

  it('asks for at least one number before it plans', async () => {
    const answer = await t.submit({
      userId: OPERATOR,
      callbackId: CALLBACK.routeNumbers,
      privateMetadata: JSON.stringify({ agentId: 'agt_any', channelId: OPS_CHANNEL }),
      stateValues: { [INPUT.routeNumbers.block]: { [INPUT.routeNumbers.action]: multiSelectInput([]) } },
    });
    expect(answer.json).toMatchObject({
      response_action: 'errors',
      errors: { [INPUT.routeNumbers.block]: 'Pick at least one number.' },
    });
  });
});
