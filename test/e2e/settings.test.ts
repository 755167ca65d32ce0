// Settings from Slack: an admin changes who may do what, and the change is shown before it applies, confirmed,
// audited with before and after, and announced; it is in force at the next request. An operator cannot open the
// settings, the last admin cannot remove themselves, a setting the environment or the policy file gives is refused with
// where it comes from, and `/voice access` says who holds which role and through what.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIGURATION } from '../../src/ops/api.js';
import { ACTION, CALLBACK, SETTINGS } from '../../src/slack/ids.js';
import { openStore } from '../../src/store/open-store.js';
import { ADMIN, NOTIFY_CHANNEL, OPERATOR, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import { checkboxesInput, textInput } from '../harness/payloads.js';
import { confirmInModal, grant, openForm, rolesForm, submitForm } from './settings-forms.js';
import {
  askForConfirmation,
  auditRows,
  blocksOf,
  EPHEMERAL,
  hasElement,
  onlyButton,
  readable,
  shownText,
  voiceNumber,
  waitUntil,
} from './support.js';

const NEWCOMER = 'UNEWCOMER';
const GROUP = 'SNIGHTSHIFT';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  t = await startTestApp({ settingsFrom: 'slack', groups: { [GROUP]: [NEWCOMER] }, ...options });
  return t;
}

const settingsRows = async (app: TestApp) =>
  (await auditRows(app)).filter((row) => row.action === 'settings.change' && row.outcome === 'succeeded');

describe('roles set in Slack', () => {
  it('an admin gives a person the operator role, confirmed, audited with before and after, and announced; they can then buy', async () => {
    const app = await start();
    const number = await voiceNumber(app);
    const refused = await app.respondedTo((await app.command(`numbers buy ${number}`, VIEWER)).responseUrlId);
    expect(shownText(refused)).toContain('You need the operator role');
    expect(shownText(refused)).toContain('to the operators in /voice settings');

    const { effect, outcome } = await grant(app, { admins: [ADMIN], operators: [OPERATOR, VIEWER] });
    expect(effect).toContain(`<@${VIEWER}> becomes an operator`);
    expect(outcome).toMatch(/changed the settings/i);

    const [row] = (await settingsRows(app)).filter((candidate) => candidate.actor_id === ADMIN);
    expect(JSON.parse(row?.params ?? '{}')).toEqual({
      changes: [{ name: 'operators', before: [OPERATOR], after: [OPERATOR, VIEWER] }],
    });
    const announced = app.slack.calls('chat.postMessage').filter((call) => call.body.channel === NOTIFY_CHANNEL);
    expect(announced.map(shownText).join('\n')).toContain(`<@${VIEWER}> becomes an operator`);

    const { prompt } = await askForConfirmation(app, VIEWER, `numbers buy ${number}`);
    expect(shownText(prompt)).toContain(number);
  });

  it('a role given to a user group reaches its members, and `/voice access` says through which group', async () => {
    const app = await start();
    const { effect } = await grant(app, { admins: [ADMIN], operators: [OPERATOR, GROUP] });
    expect(effect).toContain(`Members of <!subteam^${GROUP}> become operators`);
    const number = await voiceNumber(app);
    const { prompt } = await askForConfirmation(app, NEWCOMER, `numbers buy ${number}`);
    expect(shownText(prompt)).toContain(number);

    const one = await app.respondedTo((await app.command(`access <@${NEWCOMER}>`, VIEWER)).responseUrlId);
    expect(shownText(one)).toContain(`<@${NEWCOMER}> is *an operator*. Granted through <!subteam^${GROUP}>`);
    const all = await app.respondedTo((await app.command('access', VIEWER)).responseUrlId);
    expect(shownText(all)).toContain(`<!subteam^${GROUP}> (user group): <@${NEWCOMER}>`);
    expect(shownText(all)).toContain(`<@${ADMIN}>`);
  });

  it('`/voice access @Name` finds the person by name, and says so when Slack will not list the members', async () => {
    const app = await start();
    app.slack.workspace.addPerson({ id: VIEWER, name: 'Vera Viewer' });
    const found = await app.respondedTo((await app.command('access @Vera Viewer', ADMIN)).responseUrlId);
    expect(shownText(found)).toContain(`<@${VIEWER}> is *a viewer*`);
    app.slack.failNext('users.list', 'ratelimited');
    const unlisted = await app.respondedTo((await app.command('access @Vera Viewer', ADMIN)).responseUrlId);
    expect(shownText(unlisted)).toContain('Slack would not list the workspace’s members just now');
  });

  it('an operator can neither open the settings nor press their buttons, and each refusal is audited', async () => {
    const app = await start();
    const answer = await app.respondedTo((await app.command('settings', OPERATOR)).responseUrlId);
    expect(shownText(answer)).toContain('You need the admin role to change the settings');
    const pressed = await app.action({
      userId: OPERATOR,
      actionId: SETTINGS.open.roles,
      value: 'roles',
      container: EPHEMERAL,
    });
    expect(shownText(await app.respondedTo(pressed.responseUrlId))).toContain('You need the admin role');
    expect(app.slack.calls('views.open')).toHaveLength(0);
    const denials = (await auditRows(app)).filter((row) => row.action === 'access.denied' && row.actor_id === OPERATOR);
    expect(denials.length).toBeGreaterThanOrEqual(2);
  });

  it('the last admin cannot remove themselves: refused with a sentence, and nothing changes', async () => {
    const app = await start();
    await openForm(app, ADMIN, 'roles');
    const { shown } = await submitForm(app, ADMIN, rolesForm({ admins: [], operators: [OPERATOR, ADMIN] }));
    expect(readable(shown.blocks)).toContain('That would leave no admin, not even you');
    expect(await settingsRows(app)).toHaveLength(1); // the seeding at start, nothing since
    const still = await app.respondedTo((await app.command('settings', ADMIN)).responseUrlId);
    expect(hasElement(blocksOf(still), SETTINGS.open.roles)).toBe(true);
  });

  it('of two changes asked against the same settings, the second confirmed is refused: nothing is overwritten', async () => {
    const SECOND_ADMIN = 'UADMIN2';
    const app = await start({ admins: [ADMIN, SECOND_ADMIN] });
    const first = await submitForm(
      app,
      ADMIN,
      rolesForm({ admins: [ADMIN, SECOND_ADMIN], operators: [OPERATOR, VIEWER] }),
    );
    const second = await submitForm(app, SECOND_ADMIN, rolesForm({ admins: [ADMIN, SECOND_ADMIN], operators: [] }));
    await confirmInModal(app, ADMIN, first.viewId, first.shown.private_metadata ?? '');
    const refused = await confirmInModal(app, SECOND_ADMIN, second.viewId, second.shown.private_metadata ?? '');
    expect(refused).toContain('The settings changed since this was asked (operators): nothing was changed');
    const made = (await settingsRows(app)).filter((row) => row.actor_id !== CONFIGURATION.userId);
    expect(made.map((row) => row.actor_id)).toEqual([ADMIN]);
    const { prompt } = await askForConfirmation(app, VIEWER, `numbers buy ${await voiceNumber(app)}`);
    expect(shownText(prompt)).toContain('This spends money');
  });

  it('a form that changes nothing says so and asks nothing', async () => {
    const app = await start();
    await openForm(app, ADMIN, 'roles');
    const { shown } = await submitForm(app, ADMIN, rolesForm({ admins: [ADMIN], operators: [OPERATOR] }));
    expect(readable(shown.blocks)).toContain('Nothing to change');
  });
});

describe('settings changed by another replica', () => {
  it('are in force at the next request, whose delivery finds their new version, with no restart', async () => {
    const app = await start();
    const buy = `numbers buy ${await voiceNumber(app)}`;
    const asked = async () => shownText(await app.respondedTo((await app.command(buy, NEWCOMER)).responseUrlId));
    // This replica has read the settings: the newcomer holds no role.
    expect(await asked()).toContain('You need the operator role');
    // Another replica on the same database changes them, and tells this one nothing.
    const other = await openStore(app.database.target);
    const operators = async (ids: string[]) =>
      other.transaction((tx) => tx.settings.write(new Map([['operators', ids]]), ADMIN));
    try {
      await operators([OPERATOR, NEWCOMER]);
      expect(await asked()).toContain('This spends money');
      await operators([OPERATOR]);
      expect(await asked()).toContain('You need the operator role');
    } finally {
      await other.close();
    }
  });
});

describe('a settings change that waits for a second admin', () => {
  it('is asked in the approvals channel, made once another admin approves, and not by its own requester', async () => {
    const SECOND_ADMIN = 'UADMIN2';
    const APPROVALS = 'CAPPROVALS';
    const app = await start({
      admins: [ADMIN, SECOND_ADMIN],
      env: { VOICE_REQUIRE_APPROVAL: 'settings.change', VOICE_APPROVALS_CHANNEL_ID: APPROVALS },
    });
    await openForm(app, ADMIN, 'roles');
    const { viewId, shown } = await submitForm(
      app,
      ADMIN,
      rolesForm({ admins: [ADMIN, SECOND_ADMIN], operators: [OPERATOR, VIEWER] }),
    );
    expect(await confirmInModal(app, ADMIN, viewId, shown.private_metadata ?? '')).toContain('needs a second person');
    const [request] = app.slack.calls('chat.postMessage').filter((call) => call.body.channel === APPROVALS);
    if (!request) throw new Error('a request for approval');
    expect(shownText(request)).toContain(`<@${VIEWER}> becomes an operator`);
    const approvalId = onlyButton(blocksOf(request), ACTION.approveChange);
    const decide = (user: string) =>
      app.action({
        userId: user,
        actionId: ACTION.approveChange,
        value: approvalId,
        container: { type: 'message', channelId: APPROVALS, messageTs: '1.000001' },
      });

    expect(shownText(await app.respondedTo((await decide(ADMIN)).responseUrlId))).toContain('another person');
    expect((await settingsRows(app)).filter((row) => row.actor_id !== CONFIGURATION.userId)).toHaveLength(0);

    await decide(SECOND_ADMIN);
    await waitUntil(async () => (await settingsRows(app)).length === 2, 'the approved settings change');
    await app.settled();
    const number = await voiceNumber(app);
    const { prompt } = await askForConfirmation(app, VIEWER, `numbers buy ${number}`);
    expect(shownText(prompt)).toContain(number);
  });
});

describe('settings the environment gives', () => {
  it('are shown locked with their variable, have no input in the form, and a forged change is refused with its source', async () => {
    const app = await start({ settingsFrom: 'environment', env: { VOICE_TYPED_RELEASE: 'true' } });
    const shown = await app.respondedTo((await app.command('settings', ADMIN)).responseUrlId);
    expect(shownText(shown)).toContain(':lock: `VOICE_ADMINS` in the environment');
    const form = await openForm(app, ADMIN, 'roles');
    const blockIds = form.blocks.map((block) => block.block_id);
    expect(blockIds).not.toContain(SETTINGS.block('admins', 'people'));
    expect(readable(form.blocks)).toContain('`VOICE_ADMINS` in the environment: changed there, not here');

    const { shown: refused } = await submitForm(app, ADMIN, {
      [SETTINGS.block('typedRelease')]: { [SETTINGS.value]: checkboxesInput([]) },
    });
    expect(readable(refused.blocks)).toContain('typedRelease is set by VOICE_TYPED_RELEASE in the environment');
    expect((await settingsRows(app)).filter((row) => row.actor_id === ADMIN)).toHaveLength(0);
  });
});

describe('settings the policy file gives', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("are locked with the file's name, in force, and a change in Slack is refused naming the file; the environment wins over it", async () => {
    dir = mkdtempSync(join(tmpdir(), 'voice-ops-policy-'));
    const path = join(dir, 'voice-ops.policy.yml');
    writeFileSync(path, 'typedRelease: true\nbuyLimit: 0/day\nundoHours: 2\nbuyLimitPerUser: null\n');
    const app = await start({ settingsFrom: 'environment', env: { VOICE_POLICY_FILE: path, VOICE_UNDO_HOURS: '6' } });

    const shown = shownText(await app.respondedTo((await app.command('settings', ADMIN)).responseUrlId));
    expect(shown).toContain(`:lock: \`typedRelease\` in ${path}`);
    expect(shown).toContain(`:lock: \`buyLimit\` in ${path}`);
    expect(shown).toContain(':lock: `VOICE_UNDO_HOURS` in the environment');
    const form = await openForm(app, ADMIN, 'policies');
    expect(readable(form.blocks)).toContain(`\`buyLimit\` in ${path}: changed there, not here`);

    const { shown: refused } = await submitForm(app, ADMIN, {
      [SETTINGS.block('typedRelease')]: { [SETTINGS.value]: checkboxesInput([]) },
    });
    expect(readable(refused.blocks)).toContain(`typedRelease is set by typedRelease in ${path}`);
    expect((await settingsRows(app)).filter((row) => row.actor_id === ADMIN)).toHaveLength(0);

    // In force: the file's limit of none a day holds, and its seeding is audited as the configuration's.
    const number = await voiceNumber(app);
    const limited = await app.respondedTo((await app.command(`numbers buy ${number}`, OPERATOR)).responseUrlId);
    expect(shownText(limited)).toContain('Buying limit reached');
    const [seeded] = await settingsRows(app);
    const changes: { name: string; after: unknown }[] = JSON.parse(seeded?.params ?? '{}').changes;
    expect(changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'typedRelease', after: true }),
        expect.objectContaining({ name: 'undoHours', after: 6 }),
      ]),
    );
    // A setting given as none that the store holds as none is no change, and is written nowhere.
    expect(changes.map((change) => change.name)).not.toContain('buyLimitPerUser');
  });
});

describe('policies set in Slack', () => {
  it('a buy limit set in the policies form holds at once, and `/voice audit settings` lists the change', async () => {
    const app = await start();
    await openForm(app, ADMIN, 'policies');
    const { viewId, shown } = await submitForm(app, ADMIN, {
      [SETTINGS.block('buyLimit', 'count')]: { [SETTINGS.value]: textInput('0') },
      [SETTINGS.block('undoHours')]: { [SETTINGS.value]: textInput('24') },
    });
    expect(readable(shown.blocks)).toContain('The workspace may buy 0 numbers a day (was no limit)');
    await confirmInModal(app, ADMIN, viewId, shown.private_metadata ?? '');
    const number = await voiceNumber(app);
    const refused = await app.respondedTo((await app.command(`numbers buy ${number}`, OPERATOR)).responseUrlId);
    expect(shownText(refused)).toContain('Buying limit reached');
    expect(shownText(refused)).toContain('An admin can change it with /voice settings.');
    const audit = await app.respondedTo((await app.command('audit settings', VIEWER)).responseUrlId);
    expect(shownText(audit)).toContain('settings changed');
  });

  it('a number typed wrong in a form is said under its input, and nothing is asked', async () => {
    const app = await start();
    const answer = await app.submit({
      userId: ADMIN,
      callbackId: CALLBACK.settings,
      stateValues: { [SETTINGS.block('approvalTtlHours')]: { [SETTINGS.value]: textInput('soon') } },
    });
    expect(answer.json).toEqual({
      response_action: 'errors',
      errors: { [SETTINGS.block('approvalTtlHours')]: 'A whole number of hours from 1 to 720.' },
    });
  });
});
