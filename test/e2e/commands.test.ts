// The `/voice` command surface: help by role, listings, the audit log, the health check, and the Home tab as the
// team's dashboard whose buttons lead into the same flows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_NAMES } from '../../src/sandbox/faults.js';
import { ACTION, CALLBACK, SETTINGS } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import {
  auditRows,
  type Block,
  blocksOf,
  buttonValues,
  buyThroughApp,
  createAgentThroughApp,
  elementsOf,
  hasElement,
  readable,
  type SandboxAgent,
  type SandboxNumber,
  sandboxAvailable,
  sandboxNumbers,
  shownText,
  viewOf,
} from './support.js';

let t: TestApp;
let number: SandboxNumber;
let agent: SandboxAgent;

beforeAll(async () => {
  t = await startTestApp();
  const [available] = (await sandboxAvailable(t, 'US')).filter((entry) => entry.capabilities.includes('voice'));
  await buyThroughApp(t, OPERATOR, available?.number ?? '');
  [number] = (await sandboxNumbers(t)) as [SandboxNumber];
  agent = (await createAgentThroughApp(t, OPERATOR, 'Reception')).agent;
  // A denied attempt, so that the audit log holds more than one kind of outcome.
  await t.respondedTo((await t.command(`numbers release ${number.number}`, VIEWER)).responseUrlId);
});
afterAll(async () => {
  await t.close();
});

/** The usages the help lists, e.g. `/voice numbers search [REGION]`. */
function helpUsages(blocks: Block[]): string[] {
  return [...readable(blocks).matchAll(/`(\/voice[^`]*)`/g)].map((match) => match[1] ?? '');
}

async function reply(text: string, user = ADMIN) {
  const sent = await t.command(text, user);
  expect(sent.status).toBe(200);
  return t.respondedTo(sent.responseUrlId);
}

const VIEWER_USAGES = [
  '/voice help',
  '/voice agents [TEXT|AGENT_ID]',
  '/voice numbers [unrouted|routed|REGION|agent AGENT|DIGITS|+NUMBER]',
  '/voice numbers search [REGION [DIGITS]]',
  '/voice export [as of TIME]',
  '/voice changes since TIME',
  '/voice history NUMBER | AGENT',
  '/voice audit [@user|USER_ID|NUMBER|AGENT|failed|settings]',
  '/voice access [@user|USER_ID]',
];
const OPERATOR_USAGES = [
  ...VIEWER_USAGES,
  '/voice agents create [NAME LANGUAGE]',
  '/voice numbers buy NUMBER | REGION COUNT [DIGITS]',
  '/voice map [NUMBER AGENT | FILTER to AGENT]',
  '/voice label numbers FILTER +LABEL -LABEL',
  '/voice own numbers FILTER @TEAM|nobody',
  '/voice plan',
  '/voice label NUMBER|agent AGENT +LABEL -LABEL…',
  '/voice own NUMBER|agent AGENT @TEAM|nobody',
];
const ADMIN_USAGES = [
  ...OPERATOR_USAGES,
  '/voice agents delete AGENT',
  '/voice numbers release NUMBER_OR_ID | FILTER',
  '/voice settings',
  '/voice subscribe [KIND…] [+label:LABEL] [-label:LABEL] [owner:@team] [quiet]',
  '/voice unsubscribe',
  '/voice subscriptions',
];

describe('help', () => {
  it.each(['', 'help', '  HELP  '])('answers `/voice %s` with the help, ephemerally', async (text) => {
    const answer = await reply(text);
    expect(answer.body.response_type).toBe('ephemeral');
    expect(shownText(answer)).toContain('Voice Ops commands');
    expect(helpUsages(blocksOf(answer)).sort()).toEqual([...ADMIN_USAGES].sort());
  });

  it('answers junk with the reason, and where help is, not the whole help', async () => {
    const answer = await reply('frobnicate the numbers');
    const [firstBlock] = blocksOf(answer);
    expect(firstBlock?.text?.text).toContain("I don't know `frobnicate`");
    expect(String(answer.body.text)).toContain('frobnicate');
    expect(shownText(answer)).not.toContain('Voice Ops commands');
    expect(shownText(answer)).toContain('`/voice help` lists every command.');
  });

  it('answers a mistake in a command with the one line of help that applies', async () => {
    const answer = await reply('numbers search US GB', VIEWER);
    expect(shownText(answer)).toContain('Give one two-letter region code, then digits if you like');
    expect(shownText(answer)).not.toContain('Voice Ops commands');
    expect(shownText(answer)).toContain('`/voice numbers search [REGION [DIGITS]]` — Search available numbers');
  });

  it('refuses a number no country has before reading the account, in the words a plan uses', async () => {
    const listed = t.sandbox.requestCount('listPurchasedNumbers');
    const answer = await reply('numbers +49 123', VIEWER);
    expect(shownText(answer)).toContain('"+49123" is too short for a phone number in its country: nothing to show.');
    expect(t.sandbox.requestCount('listPurchasedNumbers')).toBe(listed);
  });

  it.each([
    ['numbers by DE 1', '/voice numbers buy DE 1'],
    ['agents creat Foo de-DE', '/voice agents create Foo de-DE'],
    ['numbers relase +14155550100', '/voice numbers release +14155550100'],
    ['serch US', '/voice numbers search US'],
  ])('answers the slip `/voice %s` with "did you mean `%s`", listing and changing nothing', async (text, meant) => {
    const requests = () => ROUTE_NAMES.reduce((sum, route) => sum + t.sandbox.requestCount(route), 0);
    const before = requests();
    const audited = (await auditRows(t)).length;
    const answer = await reply(text, ADMIN);
    expect(shownText(answer)).toContain(`Did you mean \`${meant}\`?`);
    await t.settled();
    expect(requests()).toBe(before);
    expect((await auditRows(t)).length).toBe(audited);
  });

  it.each([
    { role: 'viewer', user: VIEWER, usages: VIEWER_USAGES, note: 'VOICE_OPERATORS' },
    { role: 'operator', user: OPERATOR, usages: OPERATOR_USAGES, note: 'Your role: *operator*' },
    { role: 'admin', user: ADMIN, usages: ADMIN_USAGES, note: 'Your role: *admin*' },
  ])('lists only what a $role may run', async ({ user, usages, note }) => {
    const answer = await reply('help', user);
    expect(helpUsages(blocksOf(answer)).sort()).toEqual([...usages].sort());
    expect(shownText(answer)).toContain(note);
  });
});

describe('listings', () => {
  it('lists the agents with id, name, status and routed numbers', async () => {
    const answer = await reply('agents', VIEWER);
    expect(answer.body.response_type).toBe('ephemeral');
    const row = readable(blocksOf(answer))
      .split('\n*')
      .find((text) => text.includes('Reception'));
    expect(row).toContain(agent.id);
    // The language the agent was created with: the provider's list does not say it, the app kept it.
    expect(row).toContain('Status: active · Language: en-US');
    expect(row).toContain('no numbers routed');
    // A viewer is shown no buttons that lead to changes.
    expect(buttonValues(blocksOf(answer), ACTION.deleteAgent)).toEqual([]);
    expect(buttonValues(blocksOf(answer), ACTION.createAgent)).toEqual([]);
  });

  it('lists the purchased numbers with id, number, status and route, with the buttons the role allows', async () => {
    const answer = await reply('numbers', ADMIN);
    const shown = shownText(answer);
    // Region from the calling code, capabilities as the search said when it was bought.
    expect(shown).toContain(`*${number.number}*  \`${number.id}\` · active · US · voice, sms`);
    expect(shown).toContain('Not routed');
    expect(buttonValues(blocksOf(answer), ACTION.releaseNumber)).toEqual([number.id]);
    expect(buttonValues(blocksOf(answer), ACTION.mapNumber)).toEqual([number.number]);

    const viewed = await reply('numbers', VIEWER);
    expect(shownText(viewed)).toContain(number.number);
    expect(buttonValues(blocksOf(viewed), ACTION.releaseNumber)).toEqual([]);
    expect(buttonValues(blocksOf(viewed), ACTION.mapNumber)).toEqual([]);
    expect(buttonValues(blocksOf(viewed), ACTION.searchNumbers)).toEqual([]);
  });

  it('shows the audit log one line per change, newest first, each with its latest outcome', async () => {
    const rows = await auditRows(t);
    const changes = [...new Set(rows.map((row) => row.correlation_id))];
    expect(changes.length).toBeGreaterThanOrEqual(3);
    const answer = await reply('audit', VIEWER);
    expect(answer.body.response_type).toBe('ephemeral');
    expect(shownText(answer)).toContain('one line per change, newest first');
    expect(shownText(answer)).toContain(`Page 1 of 1 · ${changes.length} changes`);

    const lines = readable(blocksOf(answer))
      .split('\n')
      .filter((line) => line.startsWith('`20'));
    // Newest first: ordered by each change's latest row.
    const latest = changes
      .map((id) => rows.filter((row) => row.correlation_id === id).at(-1))
      .sort((a, b) => (b?.id ?? 0) - (a?.id ?? 0));
    expect(lines).toHaveLength(changes.length);
    lines.forEach((line, index) => {
      const row = latest[index];
      // The configuration's own changes (the settings it gives, at start) name it, not a person.
      expect(line).toContain(row?.actor_id.startsWith('U') ? `<@${row.actor_id}>` : row?.actor_id);
      expect(line).toContain(` ${row?.outcome}`);
    });
    expect(lines.some((line) => line.includes(' attempt to ') && line.includes('denied'))).toBe(true);
    expect(lines.some((line) => line.includes(' bought ') && line.includes('succeeded'))).toBe(true);
  });

  it('answers an audit count, which it no longer takes, with how it pages', async () => {
    expect(shownText(await reply('audit 50'))).toContain('pages by itself');
  });
});

describe('filters and look-ups', () => {
  it('shows one number as a card: status, region, route, its latest changes and its buttons', async () => {
    const card = await reply(`numbers ${number.number}`, ADMIN);
    const shown = shownText(card);
    expect(shown).toContain(`*${number.number}*  \`${number.id}\`\nStatus: active · Region: United States (US)`);
    expect(shown).toContain('_Not routed_');
    expect(shown).toContain('*Latest changes*\n');
    expect(shown).toMatch(/bought \*\+1\d+\* :white_check_mark: succeeded/);
    expect(buttonValues(blocksOf(card), ACTION.mapNumber)).toEqual([number.number]);
    expect(buttonValues(blocksOf(card), ACTION.releaseNumber)).toEqual([number.id]);
    expect(buttonValues(blocksOf(await reply(`numbers ${number.number}`, VIEWER)), ACTION.releaseNumber)).toEqual([]);
  });

  it('says a number is not one of the account’s, and how to find numbers by their digits', async () => {
    expect(shownText(await reply('numbers +19995550100'))).toContain(
      '+19995550100 is not one of your numbers. /voice numbers 19995550100 finds numbers containing those digits.',
    );
  });

  it('filters the numbers by route, region and digits, and says which filter is in force', async () => {
    const digits = number.number.slice(2, 5);
    for (const [text, shown] of [
      ['numbers unrouted', '· not routed'],
      [`numbers US ${digits}`, `· in United States (US), containing \`${digits}\``],
    ] as const) {
      const answer = await reply(text, VIEWER);
      expect(shownText(answer)).toContain(`*Phone numbers* ${shown}`);
      expect(shownText(answer)).toContain('Page 1 of 1 · 1 number');
      expect(shownText(answer)).toContain(number.number);
    }
    for (const text of ['numbers routed', 'numbers GB', 'numbers 99999', `numbers agent ${agent.id}`]) {
      expect(shownText(await reply(text, VIEWER)), text).toContain('No numbers match.');
    }
  });

  it('answers an unknown region as unknown, listing the known ones', async () => {
    const answer = shownText(await reply('numbers ZZ', VIEWER));
    expect(answer).toContain('ZZ is not a region Voice Ops knows. Known regions: US (United States), CA (Canada),');
    expect(answer).not.toContain('No numbers');
  });

  it('finds agents by name, and shows one agent by its id as a card', async () => {
    const found = await reply('agents recep', VIEWER);
    expect(shownText(found)).toContain('*AI agents* · name contains `recep`');
    expect(shownText(found)).toContain(agent.id);
    expect(shownText(await reply('agents nobody-by-that-name', VIEWER))).toContain('No agents match.');

    const card = shownText(await reply(`agents ${agent.id}`, VIEWER));
    expect(card).toContain(
      `*Reception*  \`${agent.id}\`\nStatus: active · Language: en-US\nNumbers: _No numbers route to it._`,
    );
    expect(card).toMatch(/agent created \*Reception\*/);
  });

  it('filters the audit log by user, number, agent and failure, one line per change', async () => {
    const lines = async (text: string) =>
      readable(blocksOf(await reply(text, VIEWER)))
        .split('\n')
        .filter((line) => line.startsWith('`20'));
    const byViewer = await lines(`audit ${VIEWER}`);
    expect(byViewer).toHaveLength(1);
    expect(byViewer[0]).toContain(`<@${VIEWER}> attempt to release`);
    expect(await lines(`audit <@${VIEWER}|${VIEWER.toLowerCase()}>`)).toEqual(byViewer);
    expect(await lines(`audit @${VIEWER.toLowerCase()}`)).toEqual(byViewer);

    const aboutNumber = await lines(`audit ${number.number}`);
    expect(aboutNumber.map((line) => /> (attempt to release|bought) /.exec(line)?.[1])).toEqual([
      'attempt to release',
      'bought',
    ]);
    const aboutAgent = await lines(`audit ${agent.id}`);
    expect(aboutAgent).toHaveLength(1);
    expect(aboutAgent[0]).toContain(`agent created *Reception* (\`${agent.id}\`) :white_check_mark: succeeded`);
    // The viewer's release was denied: a refusal is among the changes that did not go through.
    const failed = await lines('audit failed');
    expect(failed).toEqual(byViewer);
    expect(shownText(await reply('audit failed', VIEWER))).toContain('that failed or were refused');
    // A denial reads once, not "denied `denied`".
    expect(byViewer[0]).not.toMatch(/denied `denied`/);
  });

  it('finds a person in the audit log by mention, by @ and user id, by @handle and by @Full Name, in any case', async () => {
    const lines = async (text: string) =>
      readable(blocksOf(await reply(text, VIEWER)))
        .split('\n')
        .filter((line) => line.startsWith('`20'));
    // Slack sends the handle as the slash command's user_name, and the audit records it.
    const sent = await t.command(`numbers release ${number.number}`, VIEWER, { userName: 'vera' });
    await t.respondedTo(sent.responseUrlId);
    const everyChangeOfViewer = await lines(`audit ${VIEWER}`);
    expect(everyChangeOfViewer).toHaveLength(2);
    for (const text of [`audit <@${VIEWER}|Vera Viewer>`, `audit <@${VIEWER}>`, `audit @${VIEWER}`]) {
      expect(await lines(text), text).toEqual(everyChangeOfViewer);
    }
    const asVera = everyChangeOfViewer.slice(0, 1);
    for (const text of ['audit @vera', 'audit @VERA', 'audit @Vera Viewer', 'audit @vera viewer']) {
      expect(await lines(text), text).toEqual(asVera);
    }
    expect(shownText(await reply('audit @nobody', VIEWER))).toContain('No changes match.');
  });

  it('answers unmap, unroute and remove with what the provider allows instead, without the whole help', async () => {
    for (const text of [`unmap ${number.number}`, `unroute ${number.number}`, `numbers remove ${number.number}`]) {
      const shown = shownText(await reply(text, OPERATOR));
      expect(shown, text).toContain('There is no unmap. The provider cannot remove a route');
      expect(shown, text).toContain(`\`/voice map ${number.number} AGENT_ID\` routes it to another agent`);
      expect(shown, text).toContain(`\`/voice numbers release ${number.number}\` releases it`);
      expect(shown, text).not.toContain('Voice Ops commands');
    }
  });

  it('answers a region typed by name with its code, and a number without + with what it needs', async () => {
    const searched = t.sandbox.requestCount('searchNumbers');
    for (const [text, code] of [
      ['numbers search germany', 'DE'],
      ['numbers search Germany', 'DE'],
      ['numbers search united kingdom', 'GB'],
    ] as const) {
      // The reason comes first, above the help.
      const reason = blocksOf(await reply(text, VIEWER))[0]?.text?.text ?? '';
      expect(reason, text).toContain(`Did you mean \`${code}\``);
      expect(reason, text).not.toContain('e.g. US');
    }
    expect(t.sandbox.requestCount('searchNumbers')).toBe(searched);
    const national = blocksOf(await reply('numbers buy 030 23125001', OPERATOR))[0]?.text?.text ?? '';
    expect(national).toContain('is not in international form: a number starts with + and its country code');
    expect(national).not.toContain('+1415');
  });
});

describe('health check', () => {
  it('answers GET /healthz with 200', async () => {
    const response = await fetch(`${t.app.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });
});

describe('the Home tab', () => {
  const home = (viewId = 'VHOMEADMIN') => ({ type: 'view', viewId, viewType: 'home' }) as const;

  it('publishes a dashboard with a Voice AI section, a Numbers section and the Settings when opened', async () => {
    const mark = t.slack.mark();
    const opened = await t.homeOpened(ADMIN);
    expect(opened.status).toBe(200);
    const published = await t.slack.waitFor('views.publish', (call) => call.body.user_id === ADMIN, { since: mark });
    const view = viewOf(published);
    expect(view.type).toBe('home');
    const headers = view.blocks.filter((block) => block.type === 'header').map((block) => block.text?.text);
    expect(headers).toEqual(['Voice AI', 'Numbers', 'Settings']);
    expect(hasElement(view.blocks, SETTINGS.open.roles)).toBe(true);
    const shown = readable(view.blocks);
    expect(shown.indexOf('Reception')).toBeGreaterThan(shown.indexOf('Voice AI'));
    expect(shown.indexOf(number.number)).toBeGreaterThan(shown.indexOf('Numbers'));
    expect(buttonValues(view.blocks, ACTION.searchNumbers)).toHaveLength(1);
    expect(buttonValues(view.blocks, ACTION.createAgent)).toHaveLength(1);
    expect(buttonValues(view.blocks, ACTION.releaseNumber)).toEqual([number.id]);
  });

  it('shows a viewer the dashboard without buttons that change anything', async () => {
    const mark = t.slack.mark();
    await t.homeOpened(VIEWER);
    const published = await t.slack.waitFor('views.publish', (call) => call.body.user_id === VIEWER, { since: mark });
    const view = viewOf(published);
    expect(readable(view.blocks)).toContain('Reception');
    for (const actionId of [ACTION.searchNumbers, ACTION.createAgent, ACTION.releaseNumber, ACTION.mapNumber]) {
      expect(buttonValues(view.blocks, actionId), actionId).toEqual([]);
    }
  });

  it.each([
    ['Buy a number', ACTION.searchNumbers, CALLBACK.searchNumbers],
    ['Create agent', ACTION.createAgent, CALLBACK.createAgent],
  ])('opens its form from "%s"', async (_label, actionId, callbackId) => {
    const mark = t.slack.mark();
    const pressed = await t.action({ userId: ADMIN, actionId, container: home() });
    expect(pressed.status).toBe(200);
    const opened = await t.slack.waitFor('views.open', (call) => call.body.trigger_id === pressed.triggerId, {
      since: mark,
    });
    expect(viewOf(opened).callback_id).toBe(callbackId);
  });

  it('turns Release into a confirmation modal, releases on its red button, and republishes the actor’s Home', async () => {
    const released = t.sandbox.requestCount('releaseNumber');
    const mark = t.slack.mark();
    const pressed = await t.action({
      userId: ADMIN,
      actionId: ACTION.releaseNumber,
      value: number.id,
      container: home(),
    });
    const opened = await t.slack.waitFor('views.open', (call) => call.body.trigger_id === pressed.triggerId, {
      since: mark,
    });
    expect(readable(viewOf(opened).blocks)).toContain('Loading');
    const confirmation = await t.slack.waitFor(
      'views.update',
      (call) => viewOf(call).callback_id === CALLBACK.confirmChange,
      { since: mark },
    );
    const view = viewOf(confirmation);
    expect(readable(view.blocks)).toContain(`Release *${number.number}*`);
    expect(readable(view.blocks)).toContain(number.id);
    // Slack colours no modal's submit button: the release is confirmed by a red button in the modal.
    expect(view.submit).toBeUndefined();
    const [confirm] = elementsOf(view.blocks);
    expect(confirm).toMatchObject({ action_id: ACTION.confirmChange, style: 'danger', text: { text: 'Release' } });
    expect(view.notify_on_close).toBe(true);
    expect(t.sandbox.requestCount('releaseNumber'), 'nothing released before the confirmation').toBe(released);

    const viewId = String(confirmation.body.view_id);
    const submitMark = t.slack.mark();
    const pressedConfirm = await t.action({
      userId: ADMIN,
      actionId: ACTION.confirmChange,
      value: view.private_metadata ?? '',
      container: { type: 'view', viewId, viewType: 'modal', callbackId: CALLBACK.confirmChange },
    });
    expect(pressedConfirm.status).toBe(200);
    const done = await t.slack.waitFor(
      'views.update',
      (call) => call.body.view_id === viewId && shownText(call).includes('Released'),
      { since: submitMark },
    );
    expect(shownText(done)).toContain(number.number);
    expect(t.sandbox.requestCount('releaseNumber')).toBe(released + 1);
    expect((await sandboxNumbers(t)).map((entry) => entry.number)).not.toContain(number.number);

    const republished = await t.slack.waitFor('views.publish', (call) => call.body.user_id === ADMIN, {
      since: submitMark,
    });
    expect(readable(viewOf(republished).blocks)).not.toContain(number.number);
    expect(readable(viewOf(republished).blocks)).toContain('No numbers yet');

    const rows = (await auditRows(t)).filter((row) => row.action === 'number.release' && row.actor_id === ADMIN);
    expect(rows.map((row) => [row.outcome, row.source])).toEqual([
      ['requested', 'home'],
      ['confirmed', 'button'],
      ['succeeded', 'button'],
    ]);
    expect(new Set(rows.map((row) => row.correlation_id)).size).toBe(1);
  });
});
