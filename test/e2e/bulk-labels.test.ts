// Labels and owners in bulk: `/voice label numbers FILTER +x -y` and `/voice own numbers FILTER @team` plan every
// number the filter picks (those already so unchanged, those another team owns left out and listed by team), apply on
// one confirmation as one audited, announced batch, and are undone as one; a routing text's `# labels` part plans
// each listed number's labels and owner as written, beside the routes, and its bad lines are refused by line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/ops/api.js';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, OPS_CHANNEL, type TestApp } from '../harness/app.js';
import { RESPONSE_URL, type SlackCall } from '../harness/fake-slack.js';
import {
  announcedWith,
  applyPlan,
  askForConfirmation,
  auditRows,
  blockKitProblems,
  blocksOf,
  confirmAs,
  onlyButton,
  press,
  readable,
  rowsOf,
  type SandboxNumber,
  type SentView,
  shownText,
  startSeededApp,
  submitPlanForm,
} from './support.js';

const SALES = 'SSALES';
const SUPPORT = 'SSUPPORT';
/** An operator through the sales team, as the operators setting lists it. */
const SELLER = 'USELLER';

let t: TestApp;
let numbers: SandboxNumber[];
let routes: Map<string, string>;
let routed: string[];
let unrouted: string[];

beforeAll(async () => {
  ({ t, numbers, routes } = await startSeededApp(
    { agents: 2, numbers: 10, routed: 5 },
    { operators: [OPERATOR, SALES], groups: { [SALES]: [SELLER], [SUPPORT]: ['USUPPORTER'] } },
  ));
  routed = numbers.filter((entry) => routes.has(entry.number)).map((entry) => entry.number);
  unrouted = numbers.filter((entry) => !routes.has(entry.number)).map((entry) => entry.number);
});
afterAll(async () => {
  const sent = t?.slack.calls().filter((call) => call.method === RESPONSE_URL || call.method === 'chat.postEphemeral');
  const problems = (sent ?? []).flatMap(blockKitProblems);
  await t?.close();
  expect(problems).toEqual([]);
});

const asAdmin: Actor = { userId: ADMIN, channelId: OPS_CHANNEL, source: 'command' };

/** Labels and owner set by an admin, at once, as a scene to plan against. */
async function tag(target: string, asked: { add?: string[]; owner?: string | null }): Promise<void> {
  const done = await t.app.ops.changeLabels(asAdmin, { target, ...asked });
  if (!done.ok) throw new Error(done.message);
}

/** Every number's labels and owner, as the app keeps them. */
async function tagsNow(): Promise<Map<string, { labels: string[]; owner?: string }>> {
  const rows = await rowsOf<{ subject: string; labels: string; owner: string | null }>(
    t,
    'SELECT subject, labels, owner FROM tags',
  );
  return new Map(
    rows.map((row) => [
      row.subject,
      { labels: JSON.parse(row.labels) as string[], ...(row.owner ? { owner: row.owner } : {}) },
    ]),
  );
}

/** `/voice TEXT` as `user`: the plan (or refusal) it answers with. */
async function plan(text: string, user = OPERATOR): Promise<SlackCall> {
  return t.respondedTo((await t.command(text, user)).responseUrlId);
}

describe('a bulk label change', () => {
  let result: SlackCall;

  it('plans every number the filter picks, those already so unchanged, and applies them as one batch', async () => {
    const [already = '', ...rest] = unrouted;
    await tag(already, { add: ['vip'] });
    const planned = await plan('label numbers unrouted +vip -old');
    const text = readable(blocksOf(planned));
    expect(text).toContain('Plan: labelling 4 numbers');
    expect(text).toContain('add `vip`; remove `old`. 4 numbers to change · 1 already so (unchanged)');
    expect(text).toContain(`${already}*: already so, unchanged`);
    for (const number of rest) expect(text).toContain(`${number}*: add \`vip\`; remove \`old\``);
    expect((await tagsNow()).get(rest[0] ?? '')).toBeUndefined();

    result = await applyPlan(t, planned);
    expect(shownText(result)).toContain('Labelled 4 of 4 numbers');
    const tags = await tagsNow();
    for (const number of unrouted) expect(tags.get(number)).toEqual({ labels: ['vip'] });
    for (const number of routed) expect(tags.get(number)).toBeUndefined();

    const batchId = onlyButton(blocksOf(planned), ACTION.confirmBatch);
    const trail = (await auditRows(t)).filter((row) => row.correlation_id === batchId);
    expect(trail.filter((row) => row.action === 'batch.label').map((row) => row.outcome)).toEqual([
      'requested',
      'confirmed',
      'succeeded',
    ]);
    const items = trail.filter((row) => row.action === 'label.change' && row.outcome === 'succeeded');
    expect(items.map((row) => row.target).sort()).toEqual([...rest].sort());
    expect(JSON.parse(items[0]?.params ?? '{}')).toMatchObject({ before: { labels: [] }, after: { labels: ['vip'] } });
    await announcedWith(t, `<@${OPERATOR}> labelled 4 numbers`);
  });

  it('is undone as one batch: each number still the account’s gets back the labels it had', async () => {
    const released = unrouted.at(-1) ?? '';
    const asked = await askForConfirmation(t, ADMIN, `numbers release ${released}`);
    expect(shownText(await confirmAs(t, ADMIN, asked.confirmationId))).toContain('Released');
    const pressed = await press(t, OPERATOR, ACTION.undoChange, onlyButton(blocksOf(result), ACTION.undoChange));
    const undoPlan = await t.respondedTo(pressed.responseUrlId);
    expect(readable(blocksOf(undoPlan))).toContain('Plan: labelling 3 numbers');
    expect(readable(blocksOf(undoPlan))).toContain(`${released} is no longer one of your numbers.`);
    expect(shownText(await applyPlan(t, undoPlan))).toContain('Labelled 3 of 3 numbers');
    const tags = await tagsNow();
    expect(tags.get(unrouted[0] ?? '')).toEqual({ labels: ['vip'] });
    for (const number of unrouted.slice(1)) expect(tags.get(number)).toBeUndefined();
  });

  it('leaves out, and lists by team, the numbers another team owns, for an operator of the sales team', async () => {
    const [support = '', sales = '', ...free] = routed;
    await tag(support, { owner: SUPPORT });
    await tag(sales, { owner: SALES });
    const planned = await plan(`own numbers routed <!subteam^${SALES}|@sales>`, SELLER);
    const text = readable(blocksOf(planned));
    expect(text).toContain(`Plan: labelling ${free.length} numbers`);
    expect(text).toContain(`give it to <!subteam^${SALES}>`);
    expect(text).toContain(`${sales}*: already so, unchanged`);
    expect(text).toContain(`Left out: owned by <!subteam^${SUPPORT}>: *${support}*`);
    expect(text).not.toContain(`${support}*: give it`);

    expect(shownText(await applyPlan(t, planned, SELLER))).toContain(`Labelled ${free.length} of ${free.length}`);
    const tags = await tagsNow();
    expect(tags.get(support)).toEqual({ labels: [], owner: SUPPORT });
    for (const number of [sales, ...free]) expect(tags.get(number)).toEqual({ labels: [], owner: SALES });

    // Every kind of bulk plan says the same of what it leaves out.
    const map = await plan(`map routed to ${routes.get(free[0] ?? '')}`, SELLER);
    expect(readable(blocksOf(map))).toContain(`Left out: owned by <!subteam^${SUPPORT}>: *${support}*`);
    await press(t, SELLER, ACTION.cancelBatch, onlyButton(blocksOf(map), ACTION.cancelBatch));
  });
});

describe('a routing text with a labels part', () => {
  /** The plans posted privately once the form closed: one of routes, one of labels. */
  async function plansOf(text: string, user = OPERATOR): Promise<{ routes: SlackCall; labels: SlackCall }> {
    const since = t.slack.mark();
    const answer = await submitPlanForm(t, user, text);
    expect(answer.json, 'the form closes for the plans').toMatchObject({ response_action: 'clear' });
    const posted = (match: RegExp) =>
      t.slack.waitFor('chat.postEphemeral', (call) => call.body.user === user && match.test(shownText(call)), {
        since,
      });
    return { routes: await posted(/already routes|routing/i), labels: await posted(/labelling|labels and owner/i) };
  }

  it('plans each listed number’s labels and owner as written, beside the routes, and applies them', async () => {
    const [first = '', second = ''] = routed;
    const [cleared = ''] = unrouted;
    const text = [
      `${first} ${routes.get(first)}`,
      '# labels',
      `${first} team:sales de <!subteam^${SUPPORT}>`,
      `${second} de`,
      cleared,
    ].join('\n');
    const plans = await plansOf(text, ADMIN);
    expect(shownText(plans.routes)).toContain('nothing to change');
    const labels = readable(blocksOf(plans.labels));
    expect(labels).toContain('Plan: labelling 3 numbers');
    expect(labels).toContain('set each number’s labels and owner as its line says');

    await applyPlan(t, plans.labels, ADMIN);
    const tags = await tagsNow();
    expect(tags.get(first)).toEqual({ labels: ['de', 'team:sales'], owner: SUPPORT });
    expect(tags.get(second)).toEqual({ labels: ['de'] });
    expect(tags.get(cleared)).toBeUndefined();
    // A number not listed in the part keeps its own.
    expect(tags.get(routed[2] ?? '')).toEqual({ labels: [], owner: SALES });
  });

  it('refuses each bad line of the labels part by its line, and plans nothing', async () => {
    const batches = async () => (await rowsOf<{ id: string }>(t, 'SELECT id FROM batches')).length;
    const before = await batches();
    const [first = ''] = routed;
    const text = [
      '# labels',
      `${first} de`,
      `${first} vip`,
      `${first} Team!`,
      `${first} <!subteam^${SALES}> de`,
      '+99 1 de',
    ].join('\n');
    const answer = await submitPlanForm(t, OPERATOR, text);
    expect(answer.json).toMatchObject({ response_action: 'update' });
    const form = readable((answer.json as { view: SentView }).view.blocks);
    expect(form).toContain('Fix these 4 problems');
    expect(form).toContain(`line 3 \`${first} vip\`: ${first} is listed twice (first on line 2)`);
    expect(form).toContain(`line 4 \`${first} Team!\`: "Team!" is not a label`);
    expect(form).toContain('line 5');
    expect(form).toContain('give the team last, once');
    expect(form).toContain('line 6 `+99 1 de`: "+99 1" does not start with a known country code');
    expect(await batches()).toBe(before);
  });
});
