// Settings are shared by every replica and in force at once: a role an admin grants through one replica holds on the
// other at the very next command after the change's answer, with no restart; a role taken away is gone there as
// soon. Real processes on this run's engine, one fake Slack, one sandbox.
import { expect, it } from 'vitest';
import { ACTION, CALLBACK, SETTINGS } from '../../src/slack/ids.js';
import { type Block, EPHEMERAL, onlyButton, shownText } from '../e2e/support.js';
import { ADMIN, BOT_TOKEN, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { appEnvironment, spawnApp } from '../harness/app-process.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { blockAction, multiSelectInput, slashCommand, usersInput, viewSubmission } from '../harness/payloads.js';
import { postToSlackApp } from '../harness/signing.js';
import { availableNumber, outcome, useProcessBed } from './process-support.js';

const bed = useProcessBed('voice-ops-settings-replicas-', [BOT_TOKEN, SIGNING_SECRET]);

/** Two replicas on one database: the admins given by the environment (locked), the operators left to Slack. */
async function replicas(): Promise<[string, string]> {
  const env = { ...appEnvironment(bed.slack, bed.sandbox, bed.database.env), VOICE_ADMINS: ADMIN, VOICE_OPERATORS: '' };
  const started = [spawnApp({ via: 'node', env }), spawnApp({ via: 'node', env })];
  bed.started.push(...started);
  const [a, b] = await Promise.all(started.map(async (app) => (await app.ready).eventsUrl));
  if (!a || !b) throw new Error('two replicas');
  return [a, b];
}

let asked = 0;

/** `/voice numbers buy NUMBER` from the operator: what the app answered (a confirmation, or a refusal). */
async function buyAs(eventsUrl: string, number: string) {
  const id = `settings-buy-${++asked}`;
  const body = slashCommand({ text: `numbers buy ${number}`, userId: OPERATOR, responseUrl: bed.slack.respondUrl(id) });
  const acked = await postToSlackApp(eventsUrl, SIGNING_SECRET, body);
  expect(acked.status).toBe(200);
  bed.slack.showAcknowledgement(id, acked.json);
  return bed.slack.waitFor(RESPONSE_URL, (call) => call.responseUrlId === id);
}

/** The roles form submitted through `eventsUrl` with these operators, confirmed: resolves once the change is made. */
async function setOperators(eventsUrl: string, operators: string[]): Promise<void> {
  const viewId = `VSETTINGS${++asked}`;
  const since = bed.slack.mark();
  const form = viewSubmission({
    userId: ADMIN,
    viewId,
    callbackId: CALLBACK.settings,
    stateValues: {
      [SETTINGS.block('operators', 'people')]: { [SETTINGS.value]: usersInput(operators) },
      [SETTINGS.block('operators', 'groups')]: { [SETTINGS.groupPick]: multiSelectInput([]) },
    },
  });
  expect((await postToSlackApp(eventsUrl, SIGNING_SECRET, form)).status).toBe(200);
  const prompt = await bed.slack.waitFor(
    'views.update',
    (call) =>
      call.body.view_id === viewId &&
      (call.body.view as { callback_id?: string }).callback_id === CALLBACK.confirmChange,
    { since },
  );
  const confirmationId = String((prompt.body.view as { private_metadata?: string }).private_metadata);
  const confirm = viewSubmission({
    userId: ADMIN,
    viewId,
    callbackId: CALLBACK.confirmChange,
    privateMetadata: confirmationId,
    stateValues: {},
  });
  expect((await postToSlackApp(eventsUrl, SIGNING_SECRET, confirm)).status).toBe(200);
  await bed.slack.waitFor(
    'views.update',
    (call) => call.body.view_id === viewId && /changed the settings/i.test(JSON.stringify(call.body.view)),
    { since },
  );
}

it('a role granted through one replica holds on the other at the next command, and so does its removal', async () => {
  const [a, b] = await replicas();
  const number = await availableNumber(bed.sandbox, 'US');
  // Replica B has read the settings already: nobody is an operator.
  expect(shownText(await buyAs(b, number))).toContain('You need the operator role');

  await setOperators(a, [OPERATOR]);
  const prompt = await buyAs(b, number);
  expect(onlyButton((prompt.body.blocks ?? []) as Block[], ACTION.confirmChange)).toBeTruthy();

  await setOperators(b, []);
  expect(shownText(await buyAs(a, number))).toContain('You need the operator role');
});

it('a Confirm pressed on the other replica after the role was taken away is refused, and nothing is bought', async () => {
  const [a, b] = await replicas();
  const number = await availableNumber(bed.sandbox, 'CA');
  await setOperators(a, [OPERATOR]);
  const confirmationId = onlyButton(((await buyAs(a, number)).body.blocks ?? []) as Block[], ACTION.confirmChange);
  await setOperators(a, []);
  const id = `settings-confirm-${++asked}`;
  const body = blockAction({
    userId: OPERATOR,
    actionId: ACTION.confirmChange,
    value: confirmationId,
    container: EPHEMERAL,
    responseUrl: bed.slack.respondUrl(id),
  });
  const buys = bed.sandbox.requestCount('buyNumber');
  expect((await postToSlackApp(b, SIGNING_SECRET, body)).status).toBe(200);
  expect(shownText(await outcome(bed.slack, id))).toContain('You need the operator role');
  expect(bed.sandbox.requestCount('buyNumber')).toBe(buys);
});
