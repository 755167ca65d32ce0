// The app serves the one workspace its bot token belongs to (learnt from auth.test at start). A delivery from any
// other team is acknowledged, refused and audited; a confirmation is honoured only from the team that asked; and a
// refusal at confirmation (another team, a role that cannot be confirmed just now) leaves the confirmation usable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { belongsTo } from '../../src/slack/identity.js';
import { ACTION } from '../../src/slack/ids.js';
import { responseUrlPostsSince } from '../hardening/support.js';
import { startTestApp, type TestApp } from '../harness/app.js';
import { TEAM_ID } from '../harness/fake-slack.js';
import {
  askForConfirmation,
  auditTrail,
  EPHEMERAL,
  lastAuditRow,
  outcomeOf,
  providerRequests,
  sandboxNumbers,
  shownText,
  voiceNumber,
} from './support.js';

const GROUP = 'SBUYERS';
const MEMBER = 'UMEMBER';
const FOREIGN_TEAM = 'T0EVIL';

let clock = new Date('2026-11-23T10:00:00Z');
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ operators: [GROUP], groups: { [GROUP]: [MEMBER] }, now: () => clock });
});
afterAll(async () => {
  await t?.close();
});

describe('a delivery from another workspace', () => {
  it('is acknowledged with a refusal, audited, and changes nothing', async () => {
    const number = await voiceNumber(t, 'IT');
    const before = providerRequests(t);
    const since = t.slack.mark();
    const sent = await t.command(`numbers buy ${number}`, MEMBER, { teamId: FOREIGN_TEAM });
    expect(sent.status).toBe(200);
    expect(JSON.parse(sent.body)).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('another workspace'),
    });
    await t.settled();
    expect(responseUrlPostsSince(t, since), 'nothing answered on the response_url').toEqual([]);
    expect(providerRequests(t)).toEqual(before);
    expect(await lastAuditRow(t, { action: 'access.denied', actor_id: MEMBER })).toMatchObject({
      outcome: 'denied',
      team_id: FOREIGN_TEAM,
      source: 'command',
    });
  });

  it('cannot confirm a change asked for in the app’s workspace, which stays confirmable there', async () => {
    const number = await voiceNumber(t, 'IT', 1);
    const { confirmationId } = await askForConfirmation(t, MEMBER, `numbers buy ${number}`);
    const foreign = await t.action({
      userId: MEMBER,
      actionId: ACTION.confirmChange,
      value: confirmationId,
      container: EPHEMERAL,
      teamId: FOREIGN_TEAM,
    });
    expect(foreign.status).toBe(200);
    await t.settled();
    expect((await sandboxNumbers(t)).map((entry) => entry.number)).not.toContain(number);

    const pressed = await t.action({
      userId: MEMBER,
      actionId: ACTION.confirmChange,
      value: confirmationId,
      container: EPHEMERAL,
    });
    expect(shownText(await outcomeOf(t, pressed.responseUrlId))).toContain(`Bought *${number}*`);
  });
});

describe('the role, checked again at confirmation', () => {
  it('is checked before the claim: a group that cannot be read refuses without using the confirmation up', async () => {
    const number = await voiceNumber(t, 'NL');
    const { confirmationId } = await askForConfirmation(t, MEMBER, `numbers buy ${number}`);
    // Past the membership cache, the group read fails at the click (and at nothing the request left running).
    await t.settled();
    clock = new Date(clock.getTime() + 6 * 60_000);
    t.slack.failNext('usergroups.users.list', 'ratelimited');
    const refused = await t.action({
      userId: MEMBER,
      actionId: ACTION.confirmChange,
      value: confirmationId,
      container: EPHEMERAL,
    });
    expect(shownText(await outcomeOf(t, refused.responseUrlId))).toContain('You need the operator role');

    // Once the group can be read again, the same confirmation buys the number.
    clock = new Date(clock.getTime() + 60_000);
    const pressed = await t.action({
      userId: MEMBER,
      actionId: ACTION.confirmChange,
      value: confirmationId,
      container: EPHEMERAL,
    });
    expect(shownText(await outcomeOf(t, pressed.responseUrlId))).toContain(`Bought *${number}*`);
    const trail = await auditTrail(
      t,
      (await lastAuditRow(t, { action: 'number.buy', target: number, outcome: 'succeeded' }))?.correlation_id ?? '',
    );
    expect(trail.map((row) => [row.action, row.outcome])).toEqual([
      ['number.buy', 'requested'],
      ['access.denied', 'denied'],
      ['number.buy', 'confirmed'],
      ['number.buy', 'succeeded'],
    ]);
  });
});

describe('which workspaces belong', () => {
  it('is the bot’s team, or any team of the org it is installed across', () => {
    const team = { teamId: TEAM_ID, enterpriseInstall: false };
    expect(belongsTo(team, { teamId: TEAM_ID })).toBe(true);
    expect(belongsTo(team, { teamId: FOREIGN_TEAM })).toBe(false);
    expect(belongsTo(team, {})).toBe(false);
    const org = { teamId: TEAM_ID, enterpriseId: 'E1', enterpriseInstall: true };
    expect(belongsTo(org, { teamId: 'T2', enterpriseId: 'E1' })).toBe(true);
    expect(belongsTo(org, { teamId: TEAM_ID, enterpriseId: 'E2' })).toBe(false);
    expect(belongsTo({ teamId: TEAM_ID, enterpriseInstall: true }, { teamId: TEAM_ID })).toBe(false);
  });
});
