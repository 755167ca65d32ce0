// A kind of change is added in one place: this file registers one the app has never heard of (a note kept on a
// number), and the app asks for it, confirms it, audits it and announces it through the paths every kind takes, with
// the words the kind gives, and refuses it to whoever lacks its role. Its provider calls are its own too: two
// endpoints declared and served by the sandbox from here. Nothing else in src/ knows of it.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import type { Actor } from '../../src/ops/api.js';
import { type ChangeKind, registerKind } from '../../src/ops/kinds/index.js';
import { endpoint } from '../../src/provider/endpoints.js';
import { ProviderClient, ProviderError } from '../../src/provider/index.js';
import { ApiError, registerEndpoint, type SandboxRequest } from '../../src/sandbox/routes.js';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { confirmationMessage } from '../../src/slack/views/confirmation.js';
import { NOTIFY_CHANNEL, OPERATOR, OPS_CHANNEL, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import { textInput } from '../harness/payloads.js';
import {
  announcementCalls,
  askForConfirmation,
  auditRows,
  auditTrail,
  confirmAs,
  press,
  readable,
  respondedWith,
  rowsOf,
  shownText,
  viewOf,
} from './support.js';

const NUMBER = '+14155550123';

const note = z.object({ kind: z.literal('number.note'), number: z.string(), note: z.string() });
type Note = z.infer<typeof note>;
const noted = z.object({ action: z.literal('number.note'), number: z.string(), note: z.string() });
type Noted = z.infer<typeof noted>;

/** The kind's own provider endpoints: a note is kept on a number, and read back. */
const keptNote = z.object({ number: z.string(), note: z.string() });
const keepNote = endpoint({
  name: 'keepNote',
  method: 'POST',
  path: '/number-notes',
  body: keptNote,
  response: keptNote,
});
const readNote = endpoint({ name: 'readNote', method: 'GET', path: '/number-notes/{number}', response: keptNote });

/** What the sandbox keeps of the notes, for each sandbox its own. */
const notesIn = (request: SandboxRequest<string, unknown>) =>
  request.kept('number-notes', () => new Map<string, string>());
const forgetKeepNote = registerEndpoint(keepNote, (request) => {
  notesIn(request).set(request.body.number, request.body.note);
  return { status: 200, body: request.body };
});
const forgetReadNote = registerEndpoint(readNote, (request) => {
  // Ids come as sent: a number's "+" encoded.
  const number = decodeURIComponent(request.ids.number);
  const note = notesIn(request).get(number);
  if (note === undefined) throw new ApiError(404, 'note_not_found', `${number} has no note`);
  return { status: 200, body: { number, note } };
});
afterAll(() => {
  forgetKeepNote();
  forgetReadNote();
});

/** The note the provider keeps on a number, read back over HTTP; undefined when it has none. */
const noteOn = (provider: ProviderClient, number: string): Promise<string | undefined> =>
  provider.call(readNote, { ids: { number } }).then(
    (kept) => kept.note,
    (error: unknown) => {
      if (error instanceof ProviderError && error.kind === 'not_found') return undefined;
      throw error;
    },
  );

const numberNote: ChangeKind<Note, Noted> = {
  name: 'number.note',
  record: note,
  announced: noted,
  role: 'operator',
  permits: 'note numbers',
  spends: false,
  confirm: {
    verb: 'Note',
    title: 'Confirm note',
    effect: (change) => ['Note ', { number: change.number }, ' as ', { strong: change.note }, '.'],
    destroys: () => false,
    kept: (change) => [{ number: change.number }, ' was not noted.'],
    gerund: 'noting',
  },
  target: (change) => change.number,
  subject: (change) => change.number,
  auditParams: (change) => ({ note: change.note }),
  takesFromAgent: () => false,
  work: (_deps, change) => ({
    action: 'number.note',
    target: change.number,
    params: { note: change.note },
    intent: change,
    lockKeys: [`number:${change.number}`],
    run: async (provider) => {
      await provider.call(keepNote, { body: { number: change.number, note: change.note } });
      return { ok: true, change: { action: 'number.note', number: change.number, note: change.note } };
    },
  }),
  verify: async (deps, change) =>
    (await noteOn(deps.provider, change.number)) === change.note
      ? { ok: true, change: { action: 'number.note', number: change.number, note: change.note } }
      : { ok: false, reason: 'provider', message: `${change.number} was not noted.` },
  did: (change) => ['noted ', { number: change.number }, ' as ', { strong: change.note }],
  lookUp: (change) => `/voice audit ${change.number}`,
  happened: ({ params }) => ['noted as ', { strong: String(params.note) }],
  undo: { never: 'A note stays.' },
  command: {
    words: ['note'],
    args: '+NUMBER TEXT',
    summary: 'Keep a note on a number, after confirmation',
    parse: ([number, ...text]) =>
      number?.startsWith('+') && text.length
        ? { change: { kind: 'number.note', number, note: text.join(' ') } }
        : { error: 'Give the number, then the note: `/voice note +14155550123 Front desk`.' },
    form: { title: 'Note a number', fields: [{ label: 'Number', placeholder: '+14155550123' }, { label: 'Note' }] },
  },
};

const forgetNote = registerKind(numberNote);
// Files share their worker's loaded modules (vitest.config.ts): those after this one know only the app's kinds.
afterAll(forgetNote);

let t: TestApp;
/** The provider as the app sees it, to read back what the kind's work kept there. */
let provider: ProviderClient;
beforeAll(async () => {
  t = await startTestApp();
  provider = new ProviderClient({ baseUrl: t.sandbox.url, apiKey: t.sandbox.apiKey });
});
afterAll(async () => {
  await provider.close();
  await t.close();
});

const asPerson = (userId: string): Actor => ({ userId, channelId: OPS_CHANNEL, source: 'command' });

it('is asked for, confirmed, audited and announced through the paths every kind takes, in its own words', async () => {
  const asked = await t.app.ops.requestChange(asPerson(OPERATOR), {
    kind: 'number.note',
    number: NUMBER,
    note: 'Desk',
  });
  if (!asked.ok) throw new Error(asked.message);
  // The confirmation the Slack layer draws for it says the kind's effect, with its button.
  const prompt = confirmationMessage(asked.prompt, new Date());
  expect(prompt.text).toBe(`Note *${NUMBER}* as *Desk*.`);
  expect(JSON.stringify(prompt.blocks)).toContain('"text":"Note"');

  const since = t.slack.calls().length;
  const outcome = await confirmAs(t, OPERATOR, asked.prompt.confirmationId);
  expect(shownText(outcome)).toContain(`Noted *${NUMBER}* as *Desk*.`);
  expect(await noteOn(provider, NUMBER)).toBe('Desk');
  expect(t.sandbox.requestCount(keepNote.name)).toBe(1);

  const rows = (await auditRows(t)).filter((row) => row.action === 'number.note');
  expect(rows.map((row) => row.outcome)).toEqual(['requested', 'confirmed', 'succeeded']);
  expect(new Set(rows.map((row) => row.target))).toEqual(new Set([NUMBER]));
  expect(JSON.parse(rows[2]?.params ?? '{}')).toMatchObject({ note: 'Desk' });

  const [announcement] = announcementCalls(t, since);
  expect(announcement?.body.channel).toBe(NOTIFY_CHANNEL);
  expect(shownText(announcement ?? outcome)).toContain(`noted *${NUMBER}* as *Desk*`);
});

it('is cancelled in its own words, and nothing is noted', async () => {
  const asked = await t.app.ops.requestChange(asPerson(OPERATOR), {
    kind: 'number.note',
    number: NUMBER,
    note: 'Lobby',
  });
  if (!asked.ok) throw new Error(asked.message);
  const pressed = await press(t, OPERATOR, ACTION.cancelChange, asked.prompt.confirmationId);
  await respondedWith(t, pressed.responseUrlId, `*${NUMBER}* was not noted.`);
  expect(await noteOn(provider, NUMBER)).toBe('Desk');
});

it('is refused to whoever lacks its role, with the words of what the role permits, and audited', async () => {
  const asked = await t.app.ops.requestChange(asPerson(VIEWER), { kind: 'number.note', number: NUMBER, note: 'Hall' });
  expect(asked).toMatchObject({ ok: false, reason: 'denied' });
  expect(asked.ok ? '' : asked.message).toContain('operator role to note numbers');
  const denied = (await auditRows(t)).filter((row) => row.action === 'access.denied');
  expect(denied.map((row) => [row.target, JSON.parse(row.params ?? '{}').attempted])).toEqual([
    [NUMBER, 'number.note'],
  ]);
});

it('refuses a record its kind does not describe, and changes nothing', async () => {
  const before = (await auditRows(t)).length;
  const wrong = await t.app.ops.requestChange(asPerson(OPERATOR), { kind: 'number.note', number: NUMBER });
  expect(wrong).toMatchObject({ ok: false, reason: 'invalid' });
  const unknown = await t.app.ops.requestChange(asPerson(OPERATOR), { kind: 'number.paint', number: NUMBER });
  expect(unknown).toMatchObject({ ok: false, reason: 'invalid' });
  // Each refusal is an attempt, audited as rejected; no confirmation waits for either.
  const after = await auditRows(t);
  expect(after.slice(before).map((row) => [row.action, row.outcome])).toEqual([
    ['number.note', 'rejected'],
    ['number.paint', 'rejected'],
  ]);
  const waiting = await rowsOf<{ n: number }>(t, "SELECT COUNT(*) AS n FROM confirmations WHERE state = 'pending'");
  expect(Number(waiting[0]?.n)).toBe(0);
});

it('is asked for with its own command, which help lists, and confirmed with its button', async () => {
  const help = await t.command('help', OPERATOR);
  expect(shownText(await t.respondedTo(help.responseUrlId))).toContain(
    '`/voice note +NUMBER TEXT` — Keep a note on a number, after confirmation',
  );
  const { prompt, confirmationId } = await askForConfirmation(t, OPERATOR, `note ${NUMBER} Front desk`);
  expect(shownText(prompt)).toContain(`Note *${NUMBER}* as *Front desk*.`);

  const since = t.slack.calls().length;
  const outcome = await confirmAs(t, OPERATOR, confirmationId);
  expect(shownText(outcome)).toContain(`Noted *${NUMBER}* as *Front desk*.`);
  expect(await noteOn(provider, NUMBER)).toBe('Front desk');

  const asked = (await auditRows(t)).findLast((row) => row.action === 'number.note' && row.outcome === 'requested');
  const trail = await auditTrail(t, asked?.correlation_id ?? '');
  expect(trail.map((row) => [row.action, row.outcome, row.target, row.actor_id, row.source])).toEqual([
    ['number.note', 'requested', NUMBER, OPERATOR, 'command'],
    ['number.note', 'confirmed', NUMBER, OPERATOR, 'button'],
    ['number.note', 'succeeded', NUMBER, OPERATOR, 'button'],
  ]);
  expect(JSON.parse(trail[2]?.params ?? '{}')).toMatchObject({ note: 'Front desk' });

  const [announcement] = announcementCalls(t, since);
  expect(announcement?.body.channel).toBe(NOTIFY_CHANNEL);
  expect(shownText(announcement ?? outcome)).toContain(`noted *${NUMBER}* as *Front desk*`);
});

it('answers its command typed wrong with its own line of help, and refuses it to whoever lacks its role', async () => {
  const wrong = await t.command(`note ${NUMBER}`, OPERATOR);
  const answer = shownText(await t.respondedTo(wrong.responseUrlId));
  expect(answer).toContain('Give the number, then the note');
  expect(answer).toContain('`/voice note +NUMBER TEXT`');
  const denied = await t.command(`note ${NUMBER} Hall`, VIEWER);
  expect(shownText(await t.respondedTo(denied.responseUrlId))).toContain('operator role to note numbers');
  expect(await noteOn(provider, NUMBER)).toBe('Front desk');
});

it('opens its form when its command is typed alone, and asks for the change the fields spell', async () => {
  const field = (index: number, value: string) => ({
    [INPUT.kindField(index).block]: { [INPUT.kindField(index).action]: textInput(value) },
  });
  const typed = await t.command('note', OPERATOR);
  const opened = await t.slack.waitFor('views.open', (call) => call.body.trigger_id === typed.triggerId);
  const form = viewOf(opened);
  expect(form.callback_id).toBe(CALLBACK.kindForm);
  expect(JSON.stringify(form.blocks)).toContain('"text":"Number"');

  const wrong = await t.submit({
    userId: OPERATOR,
    callbackId: CALLBACK.kindForm,
    privateMetadata: form.private_metadata,
    stateValues: { ...field(0, NUMBER), ...field(1, '') },
  });
  expect(wrong.json).toMatchObject({ response_action: 'errors' });
  expect(JSON.stringify(wrong.json)).toContain('Give the number, then the note');

  const viewId = 'V_NOTE_FORM';
  const mark = t.slack.mark();
  const submitted = await t.submit({
    userId: OPERATOR,
    viewId,
    callbackId: CALLBACK.kindForm,
    privateMetadata: form.private_metadata,
    stateValues: { ...field(0, NUMBER), ...field(1, 'Back office') },
  });
  expect(submitted.json).toMatchObject({ response_action: 'update' });
  const confirmation = await t.slack.waitFor(
    'views.update',
    (call) => viewOf(call).callback_id === CALLBACK.confirmChange,
    { since: mark },
  );
  expect(readable(viewOf(confirmation).blocks)).toContain(`Note *${NUMBER}* as *Back office*.`);
  expect(await noteOn(provider, NUMBER), 'nothing noted before Confirm').toBe('Front desk');

  await t.action({
    userId: OPERATOR,
    actionId: ACTION.confirmChange,
    value: viewOf(confirmation).private_metadata ?? '',
    container: { type: 'view', viewId, viewType: 'modal', callbackId: CALLBACK.confirmChange },
  });
  await t.slack.waitFor('views.update', (call) => call.body.view_id === viewId && shownText(call).includes('Noted'), {
    since: mark,
  });
  expect(await noteOn(provider, NUMBER)).toBe('Back office');
});
