// The team cannot lock itself out of its settings from Slack. An admin counts only if Slack says, when the change is
// asked for and again when it is confirmed, that they are an active member of the app's workspace who is neither a
// guest nor a bot: someone of another organization, a deactivated user, a bot, an id Slack does not know, a group of
// guests or an empty group is no admin, and a change that would leave no other is refused, naming each and why. A
// rule of approval no one could satisfy (one admin, the requester alone, approvers without the role) is refused too.
// When Slack cannot be asked, the change is refused, saying so. Each refusal leaves the settings changeable.
//
// Slack's users.info reference: `deleted` (deactivated), `is_bot`, `is_restricted`/`is_ultra_restricted` (guests),
// `is_stranger`, `team_id`/`enterprise_user.enterprise_id`; `user_not_found` for an id it does not know.

import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { CONFIGURATION } from '../../src/ops/api.js';
import { type RunningVoiceOps, startVoiceOps } from '../../src/server.js';
import { SLACK_BUDGETS } from '../../src/slack/clients.js';
import { CALLBACK, SETTINGS } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, SIGNING_SECRET, startTestApp, type TestApp } from '../harness/app.js';
import type { UserTraits } from '../harness/fake-slack.js';
import { checkboxesInput, textInput, viewSubmission } from '../harness/payloads.js';
import { postToSlackApp } from '../harness/signing.js';
import { runCli } from '../store/helpers.js';
import { confirmInModal, grant, openForm, rolesForm, submitForm } from './settings-forms.js';
import { auditRows, blocksOf, hasElement, readable } from './support.js';

const SECOND_ADMIN = 'UADMIN2';
const NEWCOMER = 'UNEWCOMER';
const GUESTS = 'SGUESTS';
const NIGHT_SHIFT = 'SNIGHTSHIFT';

let t: TestApp | undefined;
let restarted: RunningVoiceOps | undefined;
afterEach(async () => {
  await restarted?.stop();
  restarted = undefined;
  await t?.close();
  t = undefined;
});

async function start(options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  t = await startTestApp({
    settingsFrom: 'slack',
    groups: { [GUESTS]: ['UGUEST1', 'UGUEST2'], [NIGHT_SHIFT]: [NEWCOMER], SEMPTY: [] },
    ...options,
    beforeStart: (slack) => {
      slack.setUser('UGUEST1', { restricted: true });
      slack.setUser('UGUEST2', { ultraRestricted: true });
      options.beforeStart?.(slack);
    },
  });
  return t;
}

const madeByPeople = async (app: TestApp) =>
  (await auditRows(app)).filter(
    (row) => row.action === 'settings.change' && row.outcome === 'succeeded' && row.actor_id !== CONFIGURATION.userId,
  );

/** The roles form submitted by the sole admin; what the modal shows in answer. */
async function askRoles(app: TestApp, lists: Parameters<typeof rolesForm>[0], user = ADMIN) {
  await openForm(app, user, 'roles');
  const { viewId, shown } = await submitForm(app, user, rolesForm(lists));
  return { viewId, shown, text: readable(shown.blocks) };
}

/** The settings can still be changed: the admin gives a newcomer the operator role, confirmed and made. */
async function stillChangeable(app: TestApp) {
  const { outcome } = await grant(app, { admins: [ADMIN], operators: [OPERATOR, NEWCOMER] });
  expect(outcome).toMatch(/changed the settings/i);
  expect((await madeByPeople(app)).length).toBeGreaterThan(0);
}

describe('the last admin must be someone Slack vouches for', () => {
  const notMembers: [string, UserTraits, string][] = [
    ['someone of another organization (Slack Connect)', { teamId: 'TPARTNER' }, 'from another organization'],
    ['someone Slack shows as a stranger', { stranger: true }, 'from another organization'],
    ['a deactivated user', { deleted: true }, 'deactivated'],
    ['a bot user', { bot: true }, 'a bot'],
    ['an id Slack does not know', { unknown: true }, 'not a user Slack knows'],
    ['a guest', { restricted: true }, 'a guest'],
  ];

  it.each(notMembers)(
    '%s as the only admin is refused, naming them and why; nothing changes',
    async (_, traits, why) => {
      const app = await start({ beforeStart: (slack) => slack.setUser('UOTHER', traits) });
      const { text, shown } = await askRoles(app, { admins: ['UOTHER'], operators: [OPERATOR] });
      expect(shown.callback_id).not.toBe(CALLBACK.confirmChange);
      expect(text).toContain('That would leave no admin who counts');
      expect(text).toContain(`UOTHER (${why})`);
      expect(await madeByPeople(app)).toHaveLength(0);
      await stillChangeable(app);
    },
  );

  it('a user group of guests only, or an empty one, is no admin: refused, naming each group', async () => {
    const app = await start();
    const { text } = await askRoles(app, { admins: [GUESTS, 'SEMPTY'], operators: [OPERATOR] });
    expect(text).toContain(`${GUESTS} (a user group of guests)`);
    expect(text).toContain('SEMPTY (an empty user group)');
    expect(await madeByPeople(app)).toHaveLength(0);
  });

  it('one admin who counts among those who do not is enough: the change is asked for and made', async () => {
    const app = await start({ beforeStart: (slack) => slack.setUser('UOTHER', { teamId: 'TPARTNER' }) });
    const { viewId, shown } = await askRoles(app, { admins: [GUESTS, 'UOTHER', NIGHT_SHIFT], operators: [OPERATOR] });
    expect(shown.callback_id).toBe(CALLBACK.confirmChange);
    expect(await confirmInModal(app, ADMIN, viewId, shown.private_metadata ?? '')).toMatch(/changed the settings/i);
    expect(await madeByPeople(app)).toHaveLength(1);
  });

  it.each(['an error', 'a timeout'])(
    'when Slack cannot say who someone is (%s), the change is refused, saying so, rather than guessed at',
    async (failure) => {
      const app = await start({ slackBudgets: { ...SLACK_BUDGETS, groups: { timeoutMs: 300, retries: 0 } } });
      await openForm(app, ADMIN, 'roles');
      const release = failure === 'a timeout' ? app.slack.hold('users.info') : undefined;
      if (!release) app.slack.failNext('users.info', 'internal_error');
      const { shown } = await submitForm(app, ADMIN, rolesForm({ admins: [NEWCOMER], operators: [OPERATOR] }));
      release?.();
      const text = readable(shown.blocks);
      expect(text).toContain(`Slack could not be asked whether the admins (${NEWCOMER})`);
      expect(text).toContain('nothing was changed');
      expect(await madeByPeople(app)).toHaveLength(0);
      await stillChangeable(app);
    },
  );
});

describe('Confirm asks again', () => {
  it('a user group made the only admin is refused at Confirm when its members are gone since: nothing changes', async () => {
    const app = await start();
    const { viewId, shown } = await askRoles(app, { admins: [NIGHT_SHIFT], operators: [OPERATOR] });
    expect(shown.callback_id).toBe(CALLBACK.confirmChange);
    app.slack.setGroupMembers(NIGHT_SHIFT, []);
    const outcome = await confirmInModal(app, ADMIN, viewId, shown.private_metadata ?? '');
    expect(outcome).toContain(`${NIGHT_SHIFT} (an empty user group)`);
    expect(await madeByPeople(app)).toHaveLength(0);
    await stillChangeable(app);
  });

  it('a second approver asked of buys is refused at Confirm when one of the two who could approve is deactivated since', async () => {
    const app = await start();
    await openForm(app, ADMIN, 'policies');
    const { viewId, shown } = await submitForm(app, ADMIN, {
      [SETTINGS.block('requireApproval')]: { [SETTINGS.value]: checkboxesInput(['number.buy']) },
      [SETTINGS.block('undoHours')]: { [SETTINGS.value]: textInput('24') },
    });
    expect(shown.callback_id).toBe(CALLBACK.confirmChange);
    app.slack.setUser(OPERATOR, { deleted: true });
    const outcome = await confirmInModal(app, ADMIN, viewId, shown.private_metadata ?? '');
    expect(outcome).toContain("number.buy would wait for a second person's approval, and only one person");
    expect(outcome).toContain(`${OPERATOR} (deactivated)`);
    expect(await madeByPeople(app)).toHaveLength(0);
  });

  it('a setting the environment locks since a restart is refused at Confirm, naming the variable', async () => {
    const app = await start();
    await openForm(app, ADMIN, 'policies');
    const { viewId, shown } = await submitForm(app, ADMIN, {
      [SETTINGS.block('typedRelease')]: { [SETTINGS.value]: checkboxesInput(['on']) },
      [SETTINGS.block('undoHours')]: { [SETTINGS.value]: textInput('24') },
    });
    expect(shown.callback_id).toBe(CALLBACK.confirmChange);
    // The app starts again on the same database, the environment now locking typedRelease as it stands.
    restarted = await startVoiceOps(
      {
        ...app.config,
        settings: {
          locked: { typedRelease: false },
          lockedBy: { typedRelease: { key: 'VOICE_TYPED_RELEASE', where: 'the environment' } },
          seed: {},
        },
      },
      { logger: createLogger(app.config.logLevel, app.logs.stream), readinessRefreshMs: 0 },
    );
    const mark = app.slack.mark();
    const confirmed = await postToSlackApp(
      `${restarted.url}/slack/events`,
      SIGNING_SECRET,
      viewSubmission({
        userId: ADMIN,
        viewId,
        callbackId: CALLBACK.confirmChange,
        privateMetadata: shown.private_metadata ?? '',
        stateValues: {},
        triggerId: app.slack.issueTriggerId(ADMIN),
      }),
    );
    expect(confirmed.status).toBe(200);
    const done = await app.slack.waitFor(
      'views.update',
      (call) => call.body.view_id === viewId && !/Loading|Working/.test(readable(blocksOf(call))),
      { since: mark },
    );
    await restarted.idle();
    expect(readable(blocksOf(done))).toContain('typedRelease is set by VOICE_TYPED_RELEASE in the environment');
    expect(await madeByPeople(app)).toHaveLength(0);
  });
});

describe('a rule of approval no one could satisfy', () => {
  it('a second approver for settings changes with one admin is refused; the settings stay changeable', async () => {
    const app = await start();
    await openForm(app, ADMIN, 'policies');
    const { shown } = await submitForm(app, ADMIN, {
      [SETTINGS.block('requireApproval')]: { [SETTINGS.value]: checkboxesInput(['settings.change']) },
      [SETTINGS.block('undoHours')]: { [SETTINGS.value]: textInput('24') },
    });
    const text = readable(shown.blocks);
    expect(shown.callback_id).not.toBe(CALLBACK.confirmChange);
    expect(text).toContain("settings.change would wait for a second person's approval, and only one person");
    expect(await madeByPeople(app)).toHaveLength(0);
    await stillChangeable(app);
  });

  const twoAdmins = { admins: [ADMIN, SECOND_ADMIN], env: { VOICE_REQUIRE_APPROVAL: 'settings.change' } };

  it('approvers set to the requester alone, or to people without the admin role, are refused', async () => {
    const app = await start(twoAdmins);
    const alone = await askRoles(app, { admins: [ADMIN, SECOND_ADMIN], operators: [OPERATOR], approvers: [ADMIN] });
    expect(alone.text).toContain('only one person could give it');
    const lacking = await askRoles(app, {
      admins: [ADMIN, SECOND_ADMIN],
      operators: [OPERATOR],
      approvers: [ADMIN, OPERATOR],
    });
    expect(lacking.text).toContain(`${OPERATOR} (without the admin role)`);
    expect(await madeByPeople(app)).toHaveLength(0);
  });

  it('two admins named as approvers are enough: the change is asked for', async () => {
    const app = await start(twoAdmins);
    const { shown } = await askRoles(app, {
      admins: [ADMIN, SECOND_ADMIN],
      operators: [OPERATOR],
      approvers: [ADMIN, SECOND_ADMIN],
    });
    expect(shown.callback_id).toBe(CALLBACK.confirmChange);
  });
});

describe('the way back, on the host', () => {
  it('a team whose settings wait for an approver who does not exist is recovered with no restart', async () => {
    const app = await start({ env: { VOICE_REQUIRE_APPROVAL: 'settings.change' } });
    const refused = await app.respondedTo((await app.command('settings', NEWCOMER)).responseUrlId);
    expect(hasElement(blocksOf(refused), SETTINGS.open.roles)).toBe(false);

    const args = ['recover', '--admin', NEWCOMER, '--drop-settings-approval', '--confirm'];
    const recovered = await runCli('src/store/settings-cli.ts', args, { ...app.database.env, VOICE_POLICY_FILE: '' });
    expect(recovered.stderr).toBe('');
    expect(recovered.code).toBe(0);

    // In force at the next request: the new admin changes the settings, and the change waits for no one.
    await openForm(app, NEWCOMER, 'roles');
    const { viewId, shown } = await submitForm(
      app,
      NEWCOMER,
      rolesForm({ admins: [ADMIN, NEWCOMER], operators: [OPERATOR, SECOND_ADMIN] }),
    );
    expect(await confirmInModal(app, NEWCOMER, viewId, shown.private_metadata ?? '')).toMatch(/changed the settings/i);
    const made = await madeByPeople(app);
    expect(made.map((row) => [row.actor_id, row.source])).toEqual([
      ['host', 'system'],
      [NEWCOMER, 'modal'],
    ]);
  });
});
