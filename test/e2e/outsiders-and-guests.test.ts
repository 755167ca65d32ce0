// People the account is not for: someone from another organization in a channel shared through Slack Connect reads
// and changes nothing, and is told why; a guest gets no more than viewer through a user group, only through their
// own user id. Slack's warnings on a successful answer are debug lines that change nothing.
//
// Shapes, by source:
// - a click in a Slack Connect channel: `team` is the workspace the app serves, `user.team_id` the clicker's own
//   workspace (Slack's block_actions reference, `user.team_id`; bolt-js `src/App.ts` notes views opened "in a
//   different workspace via some operations inside a Slack Connect channel").
// - a slash command from a Slack Connect channel: its fields are `team_id`, `team_domain`, `enterprise_id`,
//   `channel_id`, `user_id`, `user_name` and the rest of Slack's slash command reference, none of them the typer's
//   own workspace; `team_id` is the one the command was run in, which in a shared channel can be the app's own.
// - users.info: `is_restricted` (multi-channel guest), `is_ultra_restricted` (single-channel guest), `team_id`
//   (Slack's users.info and user type references; python-slack-sdk `tests/data/rtm.start.json` user objects).
// - `warning` and `response_metadata.messages` on an `ok: true` answer: Slack's Web API reference ("Warnings"), the
//   message text as Slack documents it for a missing charset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { callsSince, responseUrlPostsSince } from '../hardening/support.js';
import { ADMIN, startTestApp, type TestApp } from '../harness/app.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import {
  acknowledged,
  blocksOf,
  buyThroughApp,
  createAgentThroughApp,
  lastAuditRow,
  onlyButton,
  providerRequests,
  shownText,
  voiceNumber,
} from './support.js';

const GROUP = 'SOPS';
const GUEST = 'UGUEST';
const LISTED_GUEST = 'UGUESTLISTED';
const OUTSIDER = 'UOUTSIDER';
const PARTNER_TEAM = 'T0PARTNER';
const MEMBER = 'UMEMBER';
const NEWCOMER = 'UNEWCOMER';
const UNKNOWN = 'UNOPROFILE';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    operators: [GROUP, LISTED_GUEST],
    groups: { [GROUP]: [GUEST, LISTED_GUEST] },
    beforeStart: (slack) => {
      slack.setUser(GUEST, { restricted: true });
      slack.setUser(LISTED_GUEST, { ultraRestricted: true });
      slack.setUser(OUTSIDER, { teamId: PARTNER_TEAM });
    },
  });
});
afterAll(async () => {
  await t?.close();
});

describe('someone from another organization in a Slack Connect channel', () => {
  it('is refused a listing, told why, audited, and shown nothing of the account', async () => {
    const since = t.slack.mark();
    const pressed = await t.action({
      userId: OUTSIDER,
      actionId: ACTION.searchNumbers,
      container: { type: 'message', channelId: 'C0SHARED' },
      userTeamId: PARTNER_TEAM,
    });
    const told = await t.respondedTo(pressed.responseUrlId);
    expect(shownText(told)).toContain('you are in another organization');
    await t.settled();
    const shown = t.slack.calls().filter((call) => call.method.startsWith('views.') || call.method === RESPONSE_URL);
    expect(shown.filter((call) => t.slack.calls().indexOf(call) >= since)).toEqual([told]);
    expect(await lastAuditRow(t, { action: 'access.denied', actor_id: OUTSIDER })).toMatchObject({
      outcome: 'denied',
      team_id: PARTNER_TEAM,
      error_code: 'other_organization',
    });
  });

  it('changes nothing: a Buy click reaches no provider', async () => {
    const number = await voiceNumber(t, 'GB');
    const before = providerRequests(t);
    const pressed = await t.action({
      userId: OUTSIDER,
      actionId: ACTION.buyNumber,
      value: number,
      container: { type: 'message', channelId: 'C0SHARED' },
      userTeamId: PARTNER_TEAM,
    });
    expect(shownText(await t.respondedTo(pressed.responseUrlId))).toContain('it shows and changes nothing for you');
    await t.settled();
    expect(providerRequests(t)).toEqual(before);
  });
});

describe('someone from another organization, in a delivery that carries the host workspace', () => {
  const shared = { channelId: 'C0SHARED' };
  let owned: { number: string; agentId: string };
  beforeAll(async () => {
    const number = await voiceNumber(t, 'GB', 3);
    await buyThroughApp(t, ADMIN, number);
    const { agent } = await createAgentThroughApp(t, ADMIN, 'Front desk');
    owned = { number, agentId: agent.id };
  });

  it.each(['numbers', 'agents'])('reads nothing of `/voice %s`, is told why, and is audited', async (text) => {
    // What the account holds is there to be listed: a member sees it.
    const member = await t.command(text, MEMBER, shared);
    expect(shownText(await t.respondedTo(member.responseUrlId))).toContain(
      text === 'numbers' ? owned.number : owned.agentId,
    );
    const sent = await t.command(text, OUTSIDER, shared);
    const told = acknowledged(sent);
    expect(told).toContain('you are in another organization');
    expect(told).not.toContain(owned.number);
    expect(told).not.toContain(owned.agentId);
    expect(await lastAuditRow(t, { action: 'access.denied', actor_id: OUTSIDER })).toMatchObject({
      outcome: 'denied',
      error_code: 'other_organization',
    });
  });

  it('changes nothing: `/voice numbers buy` reaches no provider and asks for no confirmation', async () => {
    const number = await voiceNumber(t, 'GB', 2);
    const before = providerRequests(t);
    const since = t.slack.mark();
    const sent = await t.command(`numbers buy ${number}`, OUTSIDER, shared);
    expect(acknowledged(sent)).toContain('it shows and changes nothing for you');
    await t.settled();
    expect(responseUrlPostsSince(t, since)).toEqual([]);
    expect(providerRequests(t)).toEqual(before);
  });

  it('is refused a click whose payload names the host workspace as theirs', async () => {
    const pressed = await t.action({
      userId: OUTSIDER,
      actionId: ACTION.searchNumbers,
      container: { type: 'message', channelId: 'C0SHARED' },
    });
    expect(shownText(await t.respondedTo(pressed.responseUrlId))).toContain('you are in another organization');
  });

  it('whose organization Slack cannot say is refused until it can, and told so', async () => {
    t.slack.failNext('users.info', 'user_not_found');
    const sent = await t.command('numbers', UNKNOWN, shared);
    expect(acknowledged(sent)).toContain('could not say right now which organization');
    expect(await lastAuditRow(t, { action: 'access.denied', actor_id: UNKNOWN })).toMatchObject({
      error_code: 'organization_unknown',
    });
  });

  it('costs a new member one users.info per cache period, however many requests they send', async () => {
    const since = t.slack.mark();
    const sent = await Promise.all([
      t.command('help', NEWCOMER),
      t.command('numbers', NEWCOMER),
      t.command('agents', NEWCOMER),
    ]);
    sent.push(await t.command('help', NEWCOMER));
    for (const request of sent)
      expect(shownText(await t.respondedTo(request.responseUrlId))).not.toContain('organization');
    await t.settled();
    const asked = callsSince(t, 'users.info', since).filter((call) => call.body.user === NEWCOMER);
    expect(asked).toHaveLength(1);
  });
});

describe('a guest', () => {
  it('gets no role through a user group, and is told why', async () => {
    const number = await voiceNumber(t, 'NL');
    const sent = await t.command(`numbers buy ${number}`, GUEST);
    const answer = shownText(await t.respondedTo(sent.responseUrlId));
    expect(answer).toContain('You need the operator role');
    expect(answer).toContain('guests get no role through a user group');
    expect((await lastAuditRow(t, { action: 'access.denied', actor_id: GUEST }))?.params).toContain('guest');
  });

  it('listed by their own user id, holds that role', async () => {
    const number = await voiceNumber(t, 'NL', 1);
    const sent = await t.command(`numbers buy ${number}`, LISTED_GUEST);
    const prompt = await t.respondedTo(sent.responseUrlId);
    expect(shownText(prompt)).not.toContain('You need the operator role');
    expect(onlyButton(blocksOf(prompt), ACTION.confirmChange)).not.toBe('');
  });
});

describe('warnings on a successful answer', () => {
  it('are logged at debug level and change nothing', async () => {
    t.slack.annotateNext('views.open', {
      warning: 'missing_charset',
      response_metadata: {
        messages: ["[WARN] A Content-Type HTTP header was presented but did not declare a charset, such as a 'utf-8'"],
      },
    });
    const sent = await t.command('numbers search', 'UVIEWER');
    await t.slack.waitFor('views.open', (call) => call.body.trigger_id === sent.triggerId);
    await t.settled();
    const noted = t.logs.entries().filter((entry) => String(entry.msg).includes('missing_charset'));
    expect(noted.map((entry) => entry.level)).toEqual([20]);
    expect(t.logs.entries().filter((entry) => String(entry.msg).includes('did not declare a charset'))).toSatisfy(
      (entries: { level: number }[]) => entries.every((entry) => entry.level === 20),
    );
    expect(t.slack.calls(RESPONSE_URL).filter((call) => call.responseUrlId === sent.responseUrlId)).toEqual([]);
  });

  it('a views.open that Slack rate-limits is explained with what to do', async () => {
    t.slack.failNext('views.open', 'ratelimited');
    const sent = await t.command('numbers search', 'UVIEWER');
    const answer = shownText(await t.respondedTo(sent.responseUrlId));
    expect(answer).toContain('wait a minute, then try again');
    expect(answer).toContain('/voice numbers search REGION');
  });
});
