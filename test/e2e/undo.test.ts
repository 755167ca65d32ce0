// Undo: a change walked back through the same path as any change. A re-route, a batch of maps, a buy and an agent's
// creation each offer Undo to their maker and admins; it plans the inverse (or asks to confirm an agent's deletion),
// leaves out with why what cannot be walked back (a number changed again since, unless included), is audited as an
// action of its own naming the change it undoes, is undone once, and can itself be undone. A release, and a first
// route, say why they offer no Undo.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, NOTIFY_CHANNEL, OPERATOR, type TestApp } from '../harness/app.js';
import type { SlackCall } from '../harness/fake-slack.js';
import {
  announced,
  announcedWith,
  announcementCalls,
  applyPlan,
  askForConfirmation,
  auditRows,
  blocksOf,
  buttonValues,
  confirmAs,
  hasElement,
  onlyButton,
  press,
  rowsOf,
  type SandboxAgent,
  type SandboxNumber,
  shownText,
  startSeededApp,
  voiceNumber,
} from './support.js';

/** A second operator: not the maker of the changes below, and no admin. */
const OTHER_OPERATOR = 'UOTHEROP';
const HOUR = 3_600_000;

let t: TestApp;
let numbers: SandboxNumber[];
let agent: (index: number) => SandboxAgent;
let offset = 0;

beforeAll(async () => {
  ({ t, numbers, agent } = await startSeededApp(
    { agents: 3, numbers: 8, routed: 0 },
    { operators: [OPERATOR, OTHER_OPERATOR], now: () => new Date(Date.now() + offset) },
  ));
});
afterAll(async () => {
  await t?.close();
});

const number = (index: number): string => {
  const found = numbers[index];
  if (!found) throw new Error(`no seeded number ${index}`);
  return found.number;
};

/** What the app's routing records say a number routes to. */
async function routeOf(phoneNumber: string): Promise<string | undefined> {
  const [row] = await rowsOf<{ agent_id: string }>(t, 'SELECT agent_id FROM routes WHERE phone_number = ?', [
    phoneNumber,
  ]);
  return row?.agent_id;
}

/** `/voice map NUMBER AGENT` as the operator; confirmed when it re-routes. What the operator is finally shown. */
async function mapped(phoneNumber: string, agentId: string): Promise<SlackCall> {
  const sent = await t.command(`map ${phoneNumber} ${agentId}`, OPERATOR);
  const answer = await t.respondedTo(sent.responseUrlId);
  if (!hasElement(blocksOf(answer), ACTION.confirmChange)) {
    // Its announcement follows the answer.
    await t.settled();
    return answer;
  }
  return confirmAs(t, OPERATOR, onlyButton(blocksOf(answer), ACTION.confirmChange));
}

/** Presses Undo under a change or a batch as `user`: the answer below it. */
async function undo(shown: SlackCall, user = OPERATOR): Promise<SlackCall> {
  const pressed = await press(t, user, ACTION.undoChange, onlyButton(blocksOf(shown), ACTION.undoChange));
  return t.respondedTo(pressed.responseUrlId);
}

/** The request row of the newest batch, with what it undoes. */
async function lastBatchRequest(): Promise<{ correlationId: string; undoes?: unknown }> {
  const row = (await auditRows(t)).findLast(
    (entry) => entry.action.startsWith('batch.') && entry.outcome === 'requested',
  );
  if (!row) throw new Error('no batch was requested');
  return { correlationId: row.correlation_id, undoes: JSON.parse(row.params ?? '{}').undoes };
}

/** The `change.undo` rows of an Undo, each as its outcome and the change it names. */
async function undoTrail(undoId: string): Promise<[string, unknown][]> {
  return (await auditRows(t))
    .filter((row) => row.correlation_id === undoId && row.action === 'change.undo')
    .map((row) => [row.outcome, JSON.parse(row.params ?? '{}').undoes]);
}

describe('Undo', () => {
  it('is withheld from a first route, which nothing can take back, and says so where the button would be', async () => {
    const done = await mapped(number(0), agent(0).id);
    expect(shownText(done)).toContain('Routed');
    expect(hasElement(blocksOf(done), ACTION.undoChange)).toBe(false);
    expect(shownText(done)).toContain('the provider cannot unroute a number');
  });

  it('walks a re-route back through a plan, audited as undoing it, and the Undo can be undone in turn', async () => {
    // Past the minute in which a person's changes share one message (without Undo): this one is announced alone.
    offset += 2 * 60_000;
    const since = t.slack.calls().length;
    const done = await mapped(number(0), agent(1).id);
    expect(shownText(done)).toContain('Re-routed');
    const original = onlyButton(blocksOf(done), ACTION.undoChange);
    // Its announcement in the channel carries the same Undo.
    const [announcement] = announcementCalls(t, since);
    expect(announcement && onlyButton(blocksOf(announcement), ACTION.undoChange)).toBe(original);

    // Someone else without the admin role cannot undo it; nothing is planned.
    const refused = await undo(done, OTHER_OPERATOR);
    expect(shownText(refused)).toContain('Only the person who made this change, or an admin, can undo it.');
    // Audited once, as a denial of the Undo, naming the change it would have undone.
    const refusals = (await auditRows(t)).filter((row) => row.actor_id === OTHER_OPERATOR);
    expect(refusals.map((row) => [row.action, JSON.parse(row.params ?? '{}').undoes])).toEqual([
      ['access.denied', original],
    ]);

    const plan = await undo(done);
    expect(shownText(plan)).toContain('route each number as its line says');
    expect(shownText(plan)).toContain(number(0));
    // A second click gets the same plan: one Undo is planned, whichever click applies it.
    const again = await undo(done);
    expect(onlyButton(blocksOf(again), ACTION.confirmBatch)).toBe(onlyButton(blocksOf(plan), ACTION.confirmBatch));
    const result = await applyPlan(t, plan);
    expect(shownText(result)).toContain('Routed 1 of 1 number');
    expect(await routeOf(number(0))).toBe(agent(0).id);
    const request = await lastBatchRequest();
    expect(request.undoes).toBe(original);
    // The Undo is an action of its own in the audit log, under the id its routes back share, naming the change.
    expect(await undoTrail(request.correlationId)).toEqual([
      ['requested', original],
      ['succeeded', original],
    ]);
    // The change is undone once: its Undo pressed again says so, and plans nothing.
    expect(shownText(await undo(done))).toContain('That change was undone already');

    // The Undo's own result offers Undo: walking it back routes the number to the second agent again.
    const redone = await applyPlan(t, await undo(result));
    expect(shownText(redone)).toContain('Routed 1 of 1 number');
    expect(await routeOf(number(0))).toBe(agent(1).id);
  });

  it('walks a batch of maps back item by item, leaving out with why a number changed again since', async () => {
    for (const index of [1, 2, 3]) await mapped(number(index), agent(0).id);
    const plan = await t.respondedTo(
      (await t.command(`map agent ${agent(0).id} to ${agent(2).id}`, OPERATOR)).responseUrlId,
    );
    const since = t.slack.calls().length;
    const result = await applyPlan(t, plan);
    expect(shownText(result)).toContain('Routed 3 of 3 numbers');
    // The batch's announcement carries its Undo too.
    const [announcement] = announcementCalls(t, since);
    expect(announcement && onlyButton(blocksOf(announcement), ACTION.undoChange)).toBe(
      onlyButton(blocksOf(result), ACTION.undoChange),
    );
    // One of them is routed again after the batch, by hand.
    await mapped(number(3), agent(1).id);

    const undone = await undo(result, ADMIN);
    expect(shownText(undone)).toContain('2 numbers to route');
    expect(shownText(undone)).toContain(`${number(3)} was changed again since: left as it is.`);
    // The number changed since can be included: the plan is made again, with it.
    const included = await t.respondedTo(
      (await press(t, ADMIN, ACTION.undoIncludingChanged, onlyButton(blocksOf(undone), ACTION.undoIncludingChanged)))
        .responseUrlId,
    );
    expect(shownText(included)).toContain('3 numbers to route');
    expect(shownText(included)).not.toContain('changed again since');
    // The admin asked for this Undo: the plan is theirs to apply.
    const back = await applyPlan(t, included, ADMIN);
    expect(shownText(back)).toContain('Routed 3 of 3 numbers');
    expect([await routeOf(number(1)), await routeOf(number(2)), await routeOf(number(3))]).toEqual([
      agent(0).id,
      agent(0).id,
      agent(0).id,
    ]);
  });

  it("plans a buy's Undo as a release, and offers no Undo for a release, saying why", async () => {
    const sent = await t.command(`numbers buy ${await voiceNumber(t, 'US')}`, OPERATOR);
    const prompt = await t.respondedTo(sent.responseUrlId);
    const bought = await confirmAs(t, OPERATOR, onlyButton(blocksOf(prompt), ACTION.confirmChange));
    expect(shownText(bought)).toContain('Bought');
    // A release needs the admin role: the operator who bought it is refused the Undo as they would be the release.
    expect(shownText(await undo(bought))).toContain('You need the admin role to release numbers');
    const plan = await undo(bought, ADMIN);
    expect(shownText(plan)).toContain('release 1 number');
    // Before anything is confirmed, it says plainly what a release does not do.
    expect(shownText(plan)).toContain('A release is not a refund: what was paid for them stays paid.');
    expect(buttonValues(blocksOf(plan), ACTION.confirmBatchTyped)).toHaveLength(1);

    const { prompt: release } = await askForConfirmation(t, ADMIN, `numbers release ${number(7)}`);
    const released = await confirmAs(t, ADMIN, onlyButton(blocksOf(release), ACTION.confirmChange));
    expect(hasElement(blocksOf(released), ACTION.undoChange)).toBe(false);
    expect(shownText(released)).toContain('A release cannot be undone');
  });

  it('asks to confirm the deletion of an agent it undoes the creation of', async () => {
    const sent = await t.command('agents create "Undo desk" en-US', OPERATOR);
    const created = await t.respondedTo(sent.responseUrlId);
    // Deleting an agent needs the admin role: so does undoing its creation.
    expect(shownText(await undo(created))).toContain('You need the admin role to delete agents');
    const prompt = await undo(created, ADMIN);
    expect(shownText(prompt)).toContain('Delete agent *Undo desk*');
    const deleted = await confirmAs(t, ADMIN, onlyButton(blocksOf(prompt), ACTION.confirmChange));
    expect(shownText(deleted)).toContain('Deleted agent');
    // The deletion is the Undo's: its rows share the Undo's id, and its history line says it was made by an Undo.
    const rows = await auditRows(t);
    const creation = onlyButton(blocksOf(created), ACTION.undoChange);
    const deletion = rows.find((row) => row.action === 'agent.delete' && row.outcome === 'succeeded');
    expect(deletion && (await undoTrail(deletion.correlation_id))).toEqual([
      ['requested', creation],
      ['succeeded', creation],
    ]);
    const history = await t.respondedTo((await t.command(`history ${deletion?.target}`, ADMIN)).responseUrlId);
    expect(shownText(history)).toMatch(/deleted · <@UADMIN> · Undo · audit #/);
  });

  it('is offered beside each change of a message that gathers one person’s minute of changes', async () => {
    offset += 2 * 60_000;
    const answers = [];
    for (const index of [5, 6]) await mapped(number(index), agent(0).id);
    for (const index of [5, 6]) answers.push(await mapped(number(index), agent(1).id));
    const burst = await announcedWith(t, `<@${OPERATOR}> made 4 changes:`);
    // The first routes offer none; each re-route's line carries the Undo of its maker's answer.
    const undos = buttonValues(burst.blocks, ACTION.undoChange);
    expect(undos).toEqual(answers.map((answer) => onlyButton(blocksOf(answer), ACTION.undoChange)));
    const inChannel = (user: string, value: string) =>
      t.action({
        userId: user,
        actionId: ACTION.undoChange,
        value,
        container: { type: 'message', channelId: NOTIFY_CHANNEL, messageTs: burst.ts },
      });
    const [fifth = '', sixth = ''] = undos;
    // Someone else is refused; the maker and an admin each get the plan of the change they pressed, and only it.
    const refused = await t.respondedTo((await inChannel(OTHER_OPERATOR, fifth)).responseUrlId);
    expect(shownText(refused)).toContain('Only the person who made this change, or an admin, can undo it.');
    const plan = await t.respondedTo((await inChannel(OPERATOR, fifth)).responseUrlId);
    expect(shownText(plan)).toContain(number(5));
    expect(shownText(plan)).not.toContain(number(6));
    const byAdmin = await t.respondedTo((await inChannel(ADMIN, sixth)).responseUrlId);
    expect(shownText(byAdmin)).toContain(number(6));
    expect(shownText(await applyPlan(t, byAdmin, ADMIN))).toContain('Routed 1 of 1 number');
    expect(await routeOf(number(6))).toBe(agent(0).id);
  });

  it('is offered up to VOICE_UNDO_HOURS after a change, refused past them, and then changes nothing', async () => {
    const done = await mapped(number(4), agent(0).id);
    const rerouted = await mapped(number(4), agent(1).id);
    expect(shownText(done)).toContain('Routed');
    // A minute inside the 24 hours, the Undo is planned; a minute past them, it is refused.
    offset += 24 * HOUR - 60_000;
    expect(shownText(await undo(rerouted))).toContain('route each number as its line says');
    offset += 2 * 60_000;
    expect(shownText(await undo(rerouted))).toContain('Undo is offered for 24 hours after a change');
    offset += HOUR;
    const late = await undo(rerouted);
    expect(shownText(late)).toContain('Undo is offered for 24 hours after a change');
    expect(shownText(late)).toContain('/voice changes since');
    expect(await routeOf(number(4))).toBe(agent(1).id);
    // So is the Undo beside a change in a message of several.
    const burst = announced(t).find((message) => message.text.includes(`re-routed *${number(5)}*`));
    const [fifth = ''] = buttonValues(burst?.blocks ?? [], ACTION.undoChange);
    const tooLate = await press(t, OPERATOR, ACTION.undoChange, fifth);
    expect(shownText(await t.respondedTo(tooLate.responseUrlId))).toContain('Undo is offered for 24 hours');
    // The export it names gives the routing from before the re-route: the number routed to the first agent.
    const asOf = /\/voice export as of (.+? UTC)/.exec(shownText(late))?.[1];
    expect(asOf).toBeDefined();
    const exported = await t.respondedTo((await t.command(`export as of ${asOf}`, OPERATOR)).responseUrlId);
    expect(shownText(exported)).toContain(`${number(4)} ${agent(0).id}`);
  });
});
