// Walking back any change: `/voice export as of TIME` rebuilds the routing at a moment from the audit log, verified
// first, in the format of `/voice export` then, and pasted into `/voice plan` it plans (and applies) the way back;
// `/voice changes since TIME` says per number what changed since, from which agent to which and by whom. A time to
// come or unreadable is refused in one sentence, and a log edited after it was written is named and nothing rebuilt.
// TIME is read in the person's Slack time zone when Slack gives one, else in UTC, and the answer says which.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { regionOf } from '../../src/ops/api.js';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, type TestApp, VIEWER } from '../harness/app.js';
import type { SlackCall } from '../harness/fake-slack.js';
import { textInput } from '../harness/payloads.js';
import { allowAuditEdits } from '../store/audit-support.js';
import {
  applyPlan,
  askForConfirmation,
  auditRows,
  blocksOf,
  confirmAs,
  copiedCodeBlock,
  lastAuditRow,
  mapThroughApp,
  planThroughForm,
  readable,
  type SandboxAgent,
  type SandboxNumber,
  shownText,
  startSeededApp,
  viewOf,
} from './support.js';

/** Someone whose Slack time zone is Paris's (UTC+1 in March), and who reads every time in it. */
const IN_PARIS = 'UPARIS';
const PARIS = { name: 'Europe/Paris', label: 'Central European Time', offsetSeconds: 3600 };

let t: TestApp;
let numbers: SandboxNumber[];
let agent: (index: number) => SandboxAgent;

/** The app's clock, moved by the test: the real clock's flow, shifted; or stopped at one moment. */
let offset = 0;
let stopped: number | undefined;
const setClock = (iso: string) => {
  offset = Date.parse(iso) - Date.now();
  stopped = undefined;
};

/** What `/voice export` showed after each step, by step. */
const shownThen: string[] = [];

const number = (index: number): string => {
  const found = numbers[index];
  if (!found) throw new Error(`no seeded number ${index}`);
  return found.number;
};

async function reply(text: string, user = VIEWER): Promise<SlackCall> {
  return t.respondedTo((await t.command(text, user)).responseUrlId);
}

/** The route lines of an export (its `#` lines are its header). */
const routeLines = (exported: string) => exported.split('\n').filter((line) => !line.startsWith('#'));

/** `/voice map NUMBER AGENT_ID` for a number already routed: the re-route, confirmed. */
async function reRoute(phoneNumber: string, agentId: string): Promise<void> {
  const { confirmationId } = await askForConfirmation(t, OPERATOR, `map ${phoneNumber} ${agentId}`);
  expect(shownText(await confirmAs(t, OPERATOR, confirmationId))).toContain('Re-routed');
}

/**
 * The Home tab's Export routing pressed by `user`, its form submitted with `asOf` typed: the submission's answer, and
 * what the view it shows reads (its code block apart).
 */
async function exportFromHome(user: string, asOf: string): Promise<{ answer: unknown; shown: string; code: string }> {
  const mark = t.slack.mark();
  await t.homeOpened(user);
  const home = viewOf(await t.slack.waitFor('views.publish', (call) => call.body.user_id === user, { since: mark }));
  const pressed = await t.action({
    userId: user,
    actionId: ACTION.exportRouting,
    container: { type: 'view', viewId: `VHOME${user}`, viewType: 'home', privateMetadata: home.private_metadata },
  });
  const form = viewOf(await t.slack.waitFor('views.open', (call) => call.body.trigger_id === pressed.triggerId));
  expect(form.callback_id).toBe(CALLBACK.exportRouting);
  const submitted = await t.submit({
    userId: user,
    callbackId: CALLBACK.exportRouting,
    privateMetadata: form.private_metadata,
    stateValues: { [INPUT.exportAsOf.block]: { [INPUT.exportAsOf.action]: textInput(asOf || null) } },
  });
  const view = (submitted.json as { view?: { blocks: Parameters<typeof readable>[0] } } | undefined)?.view;
  const shown = readable(view?.blocks ?? []);
  const code = (/```([\s\S]*)```/.exec(shown)?.[1] ?? '').replace(/&gt;/g, '>').replace(/&lt;/g, '<');
  return { answer: submitted.json, shown, code };
}

/** `/voice export` now, as its code block holds it. */
async function exportNow(): Promise<string> {
  return copiedCodeBlock(await reply('export'));
}

beforeAll(async () => {
  ({ t, numbers, agent } = await startSeededApp(
    { agents: 3, numbers: 4, routed: 0 },
    { now: () => new Date(stopped ?? Date.now() + offset) },
  ));
  t.slack.setUser(IN_PARIS, { tz: PARIS });
  // 09:00: two first routes.
  setClock('2031-03-10T09:00:00Z');
  await mapThroughApp(t, OPERATOR, number(0), agent(0).id);
  await mapThroughApp(t, OPERATOR, number(1), agent(0).id);
  shownThen.push(await exportNow());
  // 10:00: a re-route, and a first route.
  setClock('2031-03-10T10:00:00Z');
  await reRoute(number(0), agent(1).id);
  await mapThroughApp(t, OPERATOR, number(2), agent(2).id);
  shownThen.push(await exportNow());
  // 11:00: a batch routing what routes nowhere, and a release.
  setClock('2031-03-10T11:00:00Z');
  expect(shownText(await applyPlan(t, await reply(`map unrouted to ${agent(2).id}`, OPERATOR)))).toContain(
    'Routed 1 of 1 number',
  );
  const { confirmationId } = await askForConfirmation(t, ADMIN, `numbers release ${number(1)}`);
  expect(shownText(await confirmAs(t, ADMIN, confirmationId))).toContain('Released');
  shownThen.push(await exportNow());
  // 12:00: one more re-route.
  setClock('2031-03-10T12:00:00Z');
  await reRoute(number(2), agent(0).id);
  shownThen.push(await exportNow());
  setClock('2031-03-10T13:00:00Z');
});
afterAll(async () => {
  await t?.close();
});

describe('/voice export as of TIME', () => {
  it('gives the routing at each moment exactly as `/voice export` showed it then, whatever the form of TIME', async () => {
    expect(routeLines(shownThen[0] ?? '')).toHaveLength(2);
    expect(routeLines(shownThen[3] ?? '')).toHaveLength(3);
    const moments = [
      ['2031-03-10T09:30Z', '2031-03-10 09:30 UTC', shownThen[0]],
      ['2031-03-10T11:30:00+01:00', '2031-03-10 10:30 UTC', shownThen[1]],
      ['today 11:30', '2031-03-10 11:30 UTC', shownThen[2]],
      ['30 minutes ago', '2031-03-10 12:30', shownThen[3]],
      ['10 min ago', '2031-03-10 12:50', shownThen[3]],
    ];
    for (const [time, said, then] of moments) {
      const answer = await reply(`export as of ${time}`);
      expect(shownText(answer)).toContain(`routed as of ${said}`);
      expect(shownText(answer)).toContain('rebuilt from the verified audit log');
      const exported = copiedCodeBlock(answer);
      expect(exported).toContain(`# Voice Ops routing as of ${said}`);
      expect(routeLines(exported), `as of ${time}`).toEqual(routeLines(then ?? ''));
    }
    // Before the first route, and with the moment a date: nothing routed.
    const before = copiedCodeBlock(await reply('export as of 2031-03-10'));
    expect(before).toContain('as of 2031-03-10 00:00 UTC, rebuilt from the verified audit log: 0 routed');
    expect(routeLines(before)).toEqual([]);
  });

  it("reads TIME in the person's Slack time zone, and says in which, with UTC beside it", async () => {
    const inParis = await reply('export as of today 12:30', IN_PARIS);
    expect(shownText(inParis)).toContain('routed as of 2031-03-10 12:30 Europe/Paris (11:30 UTC)');
    expect(routeLines(copiedCodeBlock(inParis))).toEqual(routeLines(shownThen[2] ?? ''));
    const midnight = copiedCodeBlock(await reply('export as of 2031-03-10', IN_PARIS));
    expect(midnight).toContain('as of 2031-03-10 00:00 Europe/Paris (2031-03-09 23:00 UTC)');
    // A time that names its offset is read in it, wherever the person is.
    expect(shownText(await reply('export as of 2031-03-10T09:30Z', IN_PARIS))).toContain(
      'as of 2031-03-10 10:30 Europe/Paris (09:30 UTC)',
    );
    // A moment to come is said in the person's zone too.
    expect(shownText(await reply('changes since today 23:00', IN_PARIS))).toContain(
      '2031-03-10 23:00 Europe/Paris (22:00 UTC) is still to come (it is 2031-03-10 14:00',
    );
  });

  it("is asked for from the Home tab's Export, in a form whose one field is the time, with the same answers", async () => {
    const asOf = await exportFromHome(VIEWER, 'today 11:30');
    expect(asOf.answer).toMatchObject({ response_action: 'update' });
    expect(asOf.shown).toContain('routed as of 2031-03-10 11:30 UTC');
    expect(routeLines(asOf.code)).toEqual(routeLines(shownThen[2] ?? ''));
    // Empty, it is today's routing; in Paris, the time is read there.
    expect(routeLines((await exportFromHome(VIEWER, '')).code)).toEqual(routeLines(await exportNow()));
    expect((await exportFromHome(IN_PARIS, 'today 12:30')).shown).toContain('as of 2031-03-10 12:30 Europe/Paris');
    // A time it cannot use is said under the field, and the form stays open.
    const refused = await exportFromHome(VIEWER, 'someday');
    expect(refused.answer).toMatchObject({
      response_action: 'errors',
      errors: { [INPUT.exportAsOf.block]: expect.stringContaining('"someday" is not a time Voice Ops can read') },
    });
  });

  it('pasted into /voice plan, plans the way back, and applied, routes the numbers as they were', async () => {
    const then = copiedCodeBlock(await reply('export as of today 11:30'));
    const plan = await planThroughForm(t, OPERATOR, then);
    const planned = shownText(plan);
    expect(planned).toContain('1 number to route');
    expect(planned).toContain('1 re-routed from another agent');
    expect(planned).toContain('2 already routed there (unchanged)');
    expect(planned).toContain(number(2));

    expect(shownText(await applyPlan(t, plan))).toContain('Routed 1 of 1 number');
    expect(routeLines(await exportNow())).toEqual(routeLines(then));
  });
});

describe('/voice changes since TIME', () => {
  it('says per number from which agent to which since then, what was bought or released, and by whom', async () => {
    const shown = shownText(await reply('changes since 2031-03-10T10:30Z'));
    expect(shown).toContain('Routing changes since 2031-03-10 10:30 UTC*: 3 numbers');
    const agentText = (index: number) => `*${agent(index).name}* (\`${agent(index).id}\`)`;
    const numberText = (index: number) => `• *${number(index)}* (${regionOf(number(index))})`;
    expect(shown).toContain(`${numberText(1)}: ${agentText(0)} → nowhere · released · by <@${ADMIN}>`);
    // Re-routed at 12:00 and routed back by the plan: where it was, and who moved it.
    expect(shown).toContain(
      `${numberText(2)}: ${agentText(2)} then and now: re-routed, then routed back, no net change · by <@${OPERATOR}>`,
    );
    expect(shown).toContain(`${numberText(3)}: nowhere → ${agentText(2)} · by <@${OPERATOR}>`);
    expect(shown).not.toContain(`*${number(0)}*`);
  });

  it("reads TIME in the person's Slack time zone, and gives the export's command in UTC, to copy", async () => {
    const shown = shownText(await reply('changes since 2031-03-10T11:30', IN_PARIS));
    expect(shown).toContain('Routing changes since 2031-03-10 11:30 Europe/Paris (10:30 UTC)*: 3 numbers');
    expect(shown).toContain('`/voice export as of 2031-03-10 10:30 UTC`');
  });

  it('says so when nothing changed', async () => {
    // An hour after the last change and the plan that walked it back.
    setClock('2031-03-10T15:00:00Z');
    const shown = shownText(await reply('changes since 1 hour ago'));
    expect(shown).toContain('Nothing in the routing changed since 2031-03-10 14:00');
  });
});

describe('a time that cannot be used', () => {
  it.each([
    ['export as of someday', 'is not a time Voice Ops can read. Give'],
    ['changes since someday', 'read in UTC, as Slack gives no time zone for you'],
    ['export as of tomorrow', '2031-03-11 00:00 UTC is still to come'],
    ['export as of 2031-03-11', '2031-03-11 00:00 UTC is still to come'],
    ['changes since next week', 'is still to come'],
    ['changes since today 23:00', '2031-03-10 23:00 UTC is still to come'],
    ['export as of <!here> *now*', '"&lt;!here&gt; ∗now∗" is not a time Voice Ops can read'],
  ])('`/voice %s` is answered in one sentence naming the forms, and changes nothing', async (text, why) => {
    const rows = (await auditRows(t)).length;
    const answer = await reply(text);
    const [block] = blocksOf(answer);
    expect(block?.text?.text).toContain(why);
    expect(block?.text?.text).toContain('yesterday 09:00');
    expect(block?.text?.text).toContain('10 min ago');
    expect(blocksOf(answer)).toHaveLength(1);
    expect(shownText(answer)).not.toContain('```');
    expect((await auditRows(t)).length).toBe(rows);
  });
});

describe('a change made at exactly TIME', () => {
  it('is in the routing as of TIME, and not among the changes since TIME', async () => {
    const before = routeLines(await exportNow());
    const routedThen = before.find((line) => line.startsWith(`${number(0)} `));
    expect(routedThen).toBeDefined();
    const other = agent(0).id === routedThen?.split(' ')[1] ? agent(1) : agent(0);
    // Every row of the re-route is stamped 15:30:00.000 to the millisecond.
    stopped = Date.parse('2031-03-10T15:30:00Z');
    await reRoute(number(0), other.id);
    setClock('2031-03-10T15:45:00Z');

    const atTime = routeLines(copiedCodeBlock(await reply('export as of 2031-03-10T15:30Z')));
    expect(atTime.find((line) => line.startsWith(`${number(0)} `))?.split(' ')[1]).toBe(other.id);
    expect(routeLines(copiedCodeBlock(await reply('export as of 2031-03-10T15:29:59Z')))).toEqual(before);
    expect(shownText(await reply('changes since 2031-03-10T15:30Z'))).toContain(
      'Nothing in the routing changed since 2031-03-10 15:30',
    );
  });
});

describe('an audit log edited after it was written', () => {
  it('is named where its chain breaks, and nothing is exported or told from it', async () => {
    const map = await lastAuditRow(t, { action: 'routing.map', outcome: 'succeeded', target: number(0) });
    if (!map) throw new Error('no map of the first number was audited');
    const sql = await t.database.sql();
    await allowAuditEdits(sql);
    await sql.run('UPDATE audit_events SET params = \'{"agentId":"agt_someone_else"}\' WHERE id = ?', [map.id]);

    for (const command of ['export as of today 11:30', 'changes since 2031-03-10T09:00Z']) {
      const shown = shownText(await reply(command));
      expect(shown, command).toContain(`The audit log's hash chain breaks at row ${map.id}`);
      expect(shown, command).toContain('nothing was rebuilt from it');
      expect(shown, command).toContain('npm run audit -- --verify');
      expect(shown, command).not.toContain('```');
      expect(shown, command).not.toContain('agt_someone_else');
    }
    // The Home tab's export as of a moment is stopped the same way, in its form.
    const fromHome = await exportFromHome(VIEWER, 'today 11:30');
    expect(fromHome.shown).toContain(`The audit log's hash chain breaks at row ${map.id}`);
    expect(fromHome.code).toBe('');
    expect(t.slack.uploadedFiles()).toEqual([]);
    expect(t.logs.text()).toContain('the audit chain is broken');
  });
});
