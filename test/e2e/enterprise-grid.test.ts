// Voice Ops installed org-wide on an Enterprise Grid org: its identity is the org (auth.test), commands and clicks
// from any of the org's workspaces are served, a confirmation belongs to its requester whichever workspace the click
// comes through, user groups are read in the requester's workspace, and another org is refused.
//
// Shapes, by source:
// - auth.test of an org-wide install: `enterprise_id` and `is_enterprise_install: true` (Slack's auth.test reference;
//   bolt-js `test/unit/helpers.spec.ts` resolves `is_enterprise_install` from such bodies).
// - block_actions from an org-wide install: `team: null`, the user's workspace only in `user.team_id`, the org in
//   `enterprise: { id, name }` (Slack's block_actions reference; bolt-js `src/types/shortcuts/global-shortcut.ts`:
//   "team is null for org apps"; bolt-js `src/App.ts` `buildSource` reads `user.team_id` when `team` is null).
// - slash command: `team_id`, `enterprise_id`, `enterprise_name`, `is_enterprise_install` (Slack's slash command
//   reference); a command typed in a direct message has a `D…` channel_id.
// - usergroups.users.list: `team_id` "required if org token is used" (Slack's method reference, and
//   node-slack-sdk's `UsergroupsUsersListArguments`, `OptionalTeamAssignable`).
// - Socket Mode: the interactive envelope `{ envelope_id, payload, type: 'interactive' }` (python-slack-sdk
//   `tests/slack_sdk/socket_mode/mock_socket_mode_server.py`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, startTestApp, type TestApp } from '../harness/app.js';
import {
  blocksOf,
  EPHEMERAL,
  lastAuditRow,
  onlyButton,
  outcomeOf,
  sandboxNumbers,
  shownText,
  voiceNumber,
} from './support.js';

const ORG = 'E0ORG';
const HOME = 'T0HOME';
const BRANCH = 'T0BRANCH';
const GROUP = 'SOPS';
const MEMBER = 'W0MEMBER';
const COLLEAGUE = 'W0COLLEAGUE';

/** A command typed in one of the org's workspaces. */
const typedIn = (teamId: string) => ({ teamId, enterpriseId: ORG, orgWide: true });
/** A click through the org-wide install: no `team`, the clicker's own workspace in `user.team_id`. */
const clickFrom = (teamId: string) => ({ teamId, enterpriseId: ORG, orgWide: true });

function startOrgWide(options: { socketMode?: boolean } = {}): Promise<TestApp> {
  return startTestApp({
    ...options,
    operators: [GROUP],
    groups: { [GROUP]: [MEMBER] },
    beforeStart: (slack) => {
      slack.installOrgWide(ORG);
      slack.setUser(MEMBER, { teamId: HOME });
      slack.setUser(COLLEAGUE, { teamId: BRANCH });
    },
  });
}

async function askToBuy(t: TestApp, user: string, number: string, teamId: string): Promise<string> {
  const asked = await t.command(`numbers buy ${number}`, user, typedIn(teamId));
  return onlyButton(blocksOf(await t.respondedTo(asked.responseUrlId)), ACTION.confirmChange);
}

let t: TestApp;
beforeAll(async () => {
  t = await startOrgWide();
});
afterAll(async () => {
  await t?.close();
});

describe('an org-wide install', () => {
  it('takes its identity from the org, and reads a group in the requester’s workspace', async () => {
    const number = await voiceNumber(t, 'DE');
    await askToBuy(t, MEMBER, number, BRANCH);
    const reads = t.slack.calls('usergroups.users.list');
    expect(reads.map((call) => call.body)).toContainEqual({ usergroup: GROUP, team_id: BRANCH });
  });

  for (const [asked, where] of [
    [BRANCH, 'another workspace of the org'],
    [HOME, 'the requester’s own workspace'],
  ] as const) {
    it(`confirms, with team null, a change asked for in ${where}; another person’s click is refused`, async () => {
      const number = await voiceNumber(t, 'FR', asked === HOME ? 1 : 0);
      const confirmationId = await askToBuy(t, MEMBER, number, asked);
      const press = (userId: string, teamId: string) =>
        t.action({
          userId,
          actionId: ACTION.confirmChange,
          value: confirmationId,
          container: EPHEMERAL,
          ...clickFrom(teamId),
        });

      const stranger = await press(COLLEAGUE, BRANCH);
      expect(shownText(await outcomeOf(t, stranger.responseUrlId))).toContain('Only the person who asked');
      expect((await lastAuditRow(t, { action: 'access.denied', actor_id: COLLEAGUE }))?.outcome).toBe('denied');

      const own = await press(MEMBER, HOME);
      expect(shownText(await outcomeOf(t, own.responseUrlId))).toContain(`Bought *${number}*`);
      expect((await sandboxNumbers(t)).map((entry) => entry.number)).toContain(number);
    });
  }

  it('answers a command typed in a direct message (a D… channel)', async () => {
    const sent = await t.command('numbers', ADMIN, { ...typedIn(BRANCH), channelId: 'D0DIRECT' });
    const answer = await t.respondedTo(sent.responseUrlId);
    expect(shownText(answer)).toContain('Page 1');
  });

  it('refuses and audits a delivery from another org', async () => {
    const sent = await t.command('numbers', MEMBER, { teamId: 'T0ELSE', enterpriseId: 'E0ELSE', orgWide: true });
    expect(JSON.parse(sent.body)).toMatchObject({ text: expect.stringContaining('another workspace') });
    expect((await lastAuditRow(t, { action: 'access.denied', team_id: 'T0ELSE' }))?.params).toContain(
      'other workspace',
    );
  });

  it('explains a group Slack will not let it read in that workspace, and grants nothing', async () => {
    const number = await voiceNumber(t, 'ES');
    t.slack.failNext('usergroups.users.list', 'team_access_not_granted');
    const sent = await t.command(`numbers buy ${number}`, MEMBER, typedIn('T0NEW'));
    const answer = shownText(await t.respondedTo(sent.responseUrlId));
    expect(answer).toContain('You need the operator role');
    expect(answer).toContain('has not been added to this workspace of the org');
  });
});

describe('an org-wide install in Socket Mode', () => {
  let socket: TestApp;
  beforeAll(async () => {
    socket = await startOrgWide({ socketMode: true });
  });
  afterAll(async () => {
    await socket?.close();
  });

  it('confirms a change asked for in another workspace from an envelope whose team is null', async () => {
    const number = await voiceNumber(socket, 'IT');
    const confirmationId = await askToBuy(socket, MEMBER, number, BRANCH);
    const pressed = await socket.action({
      userId: MEMBER,
      actionId: ACTION.confirmChange,
      value: confirmationId,
      container: EPHEMERAL,
      ...clickFrom(HOME),
    });
    expect(shownText(await outcomeOf(socket, pressed.responseUrlId))).toContain(`Bought *${number}*`);
  });
});
