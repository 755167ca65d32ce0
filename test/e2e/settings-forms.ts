// The settings forms as an admin fills them in Slack: opened from `/voice settings`, submitted, confirmed in the modal.
import { expect } from 'vitest';
import { CALLBACK, SETTINGS } from '../../src/slack/ids.js';
import { ADMIN, type TestApp } from '../harness/app.js';
import { multiSelectInput, type StateValues, usersInput } from '../harness/payloads.js';
import { blocksOf, EPHEMERAL, readable, viewOf } from './support.js';

/** Presses a group's Change button under `/voice settings` and returns the form Slack was asked to open. */
export async function openForm(app: TestApp, user: string, group: keyof typeof SETTINGS.open) {
  const sent = await app.action({ userId: user, actionId: SETTINGS.open[group], value: group, container: EPHEMERAL });
  const opened = await app.slack.waitFor('views.open', (call) => call.body.trigger_id === sent.triggerId);
  return viewOf(opened);
}

/** The roles form as submitted: each list's people and user groups. */
export function rolesForm(lists: { admins: string[]; operators: string[]; approvers?: string[] }): StateValues {
  const state: StateValues = {};
  for (const name of ['admins', 'operators', 'approvers'] as const) {
    const ids = lists[name] ?? [];
    state[SETTINGS.block(name, 'people')] = { [SETTINGS.value]: usersInput(ids.filter((id) => !id.startsWith('S'))) };
    state[SETTINGS.block(name, 'groups')] = {
      [SETTINGS.groupPick]: multiSelectInput(ids.filter((id) => id.startsWith('S'))),
    };
  }
  return state;
}

/** Submits a settings form; resolves with the confirmation modal the app put in its place. */
export async function submitForm(app: TestApp, user: string, stateValues: StateValues, viewId = `VSET${Date.now()}`) {
  const mark = app.slack.mark();
  const answer = await app.submit({ userId: user, viewId, callbackId: CALLBACK.settings, stateValues });
  expect(answer.status).toBe(200);
  const shown = await app.slack.waitFor(
    'views.update',
    (call) => call.body.view_id === viewId && !readable(blocksOf(call)).includes('Loading'),
    { since: mark },
  );
  return { viewId, shown: viewOf(shown) };
}

/** Confirms the settings change shown in the modal `viewId`, and waits for its outcome there and for its announcement. */
export async function confirmInModal(app: TestApp, user: string, viewId: string, confirmationId: string) {
  const mark = app.slack.mark();
  await app.submit({
    userId: user,
    viewId,
    callbackId: CALLBACK.confirmChange,
    privateMetadata: confirmationId,
    stateValues: {},
  });
  const done = await app.slack.waitFor(
    'views.update',
    (call) => call.body.view_id === viewId && !/Loading|Working/.test(readable(blocksOf(call))),
    { since: mark },
  );
  await app.settled();
  return readable(blocksOf(done));
}

export async function grant(app: TestApp, lists: Parameters<typeof rolesForm>[0]) {
  await openForm(app, ADMIN, 'roles');
  const { viewId, shown } = await submitForm(app, ADMIN, rolesForm(lists));
  expect(shown.callback_id).toBe(CALLBACK.confirmChange);
  return {
    viewId,
    effect: readable(shown.blocks),
    outcome: await confirmInModal(app, ADMIN, viewId, shown.private_metadata ?? ''),
  };
}
