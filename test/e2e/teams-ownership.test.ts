// Permissions follow the owner, on every path a change takes: a team's numbers and agents are changed by its members
// who hold the role the change needs, and by admins; what nobody owns, by anyone with the role. Omar (in @sales) and
// Sue (in @support) are operators through their user groups; an admin gives numbers and agents to the teams first. A
// refusal names the owner, is audited, and sends the provider nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/ops/api.js';
import type { RouteName } from '../../src/sandbox/faults.js';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, OPS_CHANNEL, type TestApp, type TestAppOptions } from '../harness/app.js';
import type { SlackCall } from '../harness/fake-slack.js';
import {
  applyPlan,
  askForConfirmation,
  auditRows,
  blocksOf,
  confirmAs,
  hasElement,
  lastAuditRow,
  onlyButton,
  outcomeOf,
  press,
  respondedWith,
  rowsOf,
  type SandboxAgent,
  type SandboxNumber,
  shownText,
  startSeededApp,
  stepEnd,
  submitPlanForm,
  waitForAuditRow,
  waitUntil,
} from './support.js';

const SALES = 'SSALES';
const SUPPORT = 'SSUPPORT';
const OMAR = 'UOMAR';
const SUE = 'USUE';
const TEAMS: TestAppOptions = { operators: [SALES, SUPPORT], groups: { [SALES]: [OMAR], [SUPPORT]: [SUE] } };
/** How a refusal names a team, as Slack shows it. */
const ownedBy = (team: string) => `is owned by <!subteam^${team}>`;

const as = (userId: string): Actor => ({ userId, channelId: OPS_CHANNEL, source: 'command' });

/** Gives a number or an agent to a team (or to nobody), as an admin does. */
async function give(app: TestApp, target: string, owner: string | null): Promise<void> {
  const given = await app.app.ops.changeLabels(as(ADMIN), { target, owner });
  if (!given.ok) throw new Error(given.message);
}

const CHANGING: RouteName[] = ['mapNumber', 'releaseNumber', 'buyNumber', 'createAgent', 'deleteAgent'];
/** The provider's changing requests so far: reads come and go with listings, these only with changes. */
const changesSent = (app: TestApp): number => CHANGING.reduce((sum, route) => sum + app.sandbox.requestCount(route), 0);

/** The newest denial of `user`, as the audit keeps it. */
async function lastDenial(app: TestApp, user: string) {
  const row = (await auditRows(app)).findLast((entry) => entry.actor_id === user && entry.action === 'access.denied');
  const params = JSON.parse(row?.params ?? '{}');
  return { rule: params.rule, subject: params.subject, owner: params.owner, code: row?.error_code };
}

/** A routing record, as the app keeps it. */
async function routeOf(app: TestApp, phoneNumber: string): Promise<string | undefined> {
  const [row] = await rowsOf<{ agent_id: string }>(app, 'SELECT agent_id FROM routes WHERE phone_number = ?', [
    phoneNumber,
  ]);
  return row?.agent_id;
}

/** `/voice TEXT` as `user`: the answer. */
async function ask(app: TestApp, text: string, user: string): Promise<SlackCall> {
  return app.respondedTo((await app.command(text, user)).responseUrlId);
}

describe('on every path', () => {
  let t: TestApp;
  let numbers: SandboxNumber[];
  let agent: (index: number) => SandboxAgent;
  const number = (index: number): string => numbers[index]?.number ?? '';

  /** Numbers 0–3 route to agents 0, 1, 2, 0; agent 0 is nobody's, agent 1 @sales', agent 2 @support's. */
  beforeAll(async () => {
    ({ t, numbers, agent } = await startSeededApp({ agents: 3, numbers: 12, routed: 4 }, TEAMS));
    for (const index of [0, 1, 4, 8]) await give(t, number(index), SALES);
    for (const index of [2, 3, 5, 9]) await give(t, number(index), SUPPORT);
    await give(t, agent(1).id, SALES);
    await give(t, agent(2).id, SUPPORT);
    await t.settled();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The stored plan of a batch. */
  async function storedPlan(batchId: string): Promise<{ leftOut?: { number: string; owner: string }[] }> {
    const [row] = await rowsOf<{ plan: string }>(t, 'SELECT plan FROM batches WHERE id = ?', [batchId]);
    return JSON.parse(row?.plan ?? '{}');
  }

  it("a team's operator re-routes and routes what the team owns", async () => {
    const rerouted = await askForConfirmation(t, OMAR, `map ${number(1)} ${agent(0).id}`);
    expect(shownText(await confirmAs(t, OMAR, rerouted.confirmationId))).toContain('Re-routed');
    const routed = await t.command(`map ${number(8)} ${agent(1).id}`, OMAR);
    await respondedWith(t, routed.responseUrlId, 'Routed');
    await t.settled();
    expect([await routeOf(t, number(1)), await routeOf(t, number(8))]).toEqual([agent(0).id, agent(1).id]);
  });

  it("is refused another team's number at the request, told who owns it; audited, nothing sent", async () => {
    const before = changesSent(t);
    const refused = shownText(await ask(t, `map ${number(2)} ${agent(0).id}`, OMAR));
    expect(refused).toContain(`${number(2)} ${ownedBy(SUPPORT)}`);
    expect(refused).toContain('only its members with the operator role, and admins, may change it');
    expect(await lastDenial(t, OMAR)).toEqual({ rule: 'owner', subject: number(2), owner: SUPPORT, code: 'owner' });
    expect(shownText(await ask(t, `map ${number(5)} ${agent(0).id}`, OMAR))).toContain(ownedBy(SUPPORT));
    const relabelled = await t.app.ops.changeLabels(as(OMAR), { target: number(5), add: ['vip'], owner: SALES });
    expect(relabelled).toMatchObject({ ok: false, reason: 'denied', code: 'owner' });
    expect(await lastDenial(t, OMAR)).toMatchObject({ subject: number(5), owner: SUPPORT });
    expect(changesSent(t)).toBe(before);
    expect(await routeOf(t, number(2))).toBe(agent(2).id);
  });

  it("is refused routing the team's number to another team's agent", async () => {
    const before = changesSent(t);
    const refused = shownText(await ask(t, `map ${number(0)} ${agent(2).id}`, OMAR));
    expect(refused).toContain(`${agent(2).id} ${ownedBy(SUPPORT)}`);
    expect(await lastDenial(t, OMAR)).toMatchObject({ subject: agent(2).id, owner: SUPPORT });
    expect(changesSent(t)).toBe(before);
    expect(await routeOf(t, number(0))).toBe(agent(0).id);
  });

  it('is refused the Confirm once the number was given to another team since the request; nothing sent', async () => {
    const { confirmationId } = await askForConfirmation(t, OMAR, `map ${number(0)} ${agent(1).id}`);
    await give(t, number(0), SUPPORT);
    const before = changesSent(t);
    expect(shownText(await confirmAs(t, OMAR, confirmationId))).toContain(`${number(0)} ${ownedBy(SUPPORT)}`);
    expect(await lastDenial(t, OMAR)).toMatchObject({ rule: 'owner', subject: number(0), owner: SUPPORT });
    const confirmed = await lastAuditRow(t, { actor_id: OMAR, target: number(0), outcome: 'confirmed' });
    expect(confirmed, 'never confirmed').toBeUndefined();
    expect(changesSent(t)).toBe(before);
    expect(await routeOf(t, number(0))).toBe(agent(0).id);
    await give(t, number(0), SALES);
  });

  it("a bulk map by a filter leaves out another team's numbers, and applies only the rest", async () => {
    // Unrouted now: 4 (sales'), 5 and 9 (support's), 6, 7, 10 and 11 (nobody's).
    const plan = await ask(t, `map unrouted to ${agent(0).id}`, OMAR);
    const batchId = onlyButton(blocksOf(plan), ACTION.confirmBatch);
    const leftOut = (await storedPlan(batchId)).leftOut ?? [];
    expect(leftOut.map((item) => item.number).sort()).toEqual([number(5), number(9)].sort());
    expect(leftOut.every((item) => item.owner === SUPPORT)).toBe(true);
    // Listed as left out, never as an item to route.
    expect(shownText(plan)).not.toContain(`${number(5)}*: route`);
    expect(shownText(plan)).toContain(`Left out: owned by <!subteam^${SUPPORT}>: *${number(5)}*`);
    const before = changesSent(t);
    expect(shownText(await applyPlan(t, plan, OMAR))).toContain('Routed 5 of 5 numbers');
    expect(changesSent(t) - before).toBe(5);
    const routed = await Promise.all([4, 5, 9].map((index) => routeOf(t, number(index))));
    expect(routed).toEqual([agent(0).id, undefined, undefined]);
  });

  it('a bulk map that would change only what another team owns is refused, naming the owner', async () => {
    const before = changesSent(t);
    const refused = await ask(t, `map agent ${agent(2).id} to ${agent(0).id}`, OMAR);
    expect(shownText(refused)).toContain(`${number(2)} ${ownedBy(SUPPORT)}`);
    expect(hasElement(blocksOf(refused), ACTION.confirmBatch)).toBe(false);
    const rejected = await lastAuditRow(t, { actor_id: OMAR, action: 'batch.map', outcome: 'rejected' });
    expect(rejected?.error_code).toBe('owner');
    expect(changesSent(t)).toBe(before);
  });

  it("a routing text leaves out another team's lines, and is refused when only those are left", async () => {
    const since = t.slack.mark();
    await submitPlanForm(t, OMAR, `${number(4)} ${agent(1).id}\n${number(3)} ${agent(1).id}`);
    const plan = await t.slack.waitFor('chat.postEphemeral', (call) => call.body.user === OMAR, { since });
    expect(shownText(plan)).toContain(number(4));
    expect(shownText(plan)).not.toContain(`${number(3)}*: route`);
    expect(shownText(plan)).toContain(`Left out: owned by <!subteam^${SUPPORT}>: *${number(3)}*`);
    const batchId = onlyButton(blocksOf(plan), ACTION.confirmBatch);
    expect((await storedPlan(batchId)).leftOut).toEqual([{ number: number(3), owner: SUPPORT }]);
    await press(t, OMAR, ACTION.cancelBatch, batchId);

    const before = changesSent(t);
    const alone = t.slack.mark();
    await submitPlanForm(t, OMAR, `${number(3)} ${agent(1).id}`);
    const refused = await t.slack.waitFor(
      'chat.postEphemeral',
      (call) => call.body.user === OMAR && shownText(call).includes('is owned by'),
      { since: alone },
    );
    expect(shownText(refused)).toContain(`${number(3)} ${ownedBy(SUPPORT)}`);
    expect(changesSent(t)).toBe(before);
  });

  it("a workflow step run on another team's number fails, naming the owner", async () => {
    const before = changesSent(t);
    const { execution } = await t.runStep('route_numbers', {
      user_id: OMAR,
      numbers: number(5),
      agent_id: agent(0).id,
    });
    const end = await stepEnd(t, execution);
    expect(end).toMatchObject({ outcome: 'failed' });
    expect(JSON.stringify(end)).toContain(`${number(5)} is owned by the user group ${SUPPORT}`);
    expect(changesSent(t)).toBe(before);
  });

  it('an Undo of a change to a number given to another team since is refused, and nothing is routed back', async () => {
    // Number 6 is nobody's and routes to agent 0 (the bulk map above): Omar re-routes it, then support is given it.
    const asked = await askForConfirmation(t, OMAR, `map ${number(6)} ${agent(1).id}`);
    const result = await confirmAs(t, OMAR, asked.confirmationId);
    expect(shownText(result)).toContain('Re-routed');
    await give(t, number(6), SUPPORT);
    const before = changesSent(t);
    const pressed = await press(t, OMAR, ACTION.undoChange, onlyButton(blocksOf(result), ACTION.undoChange));
    expect(shownText(await t.respondedTo(pressed.responseUrlId))).toContain(`${number(6)} ${ownedBy(SUPPORT)}`);
    await t.settled();
    expect(changesSent(t)).toBe(before);
    expect(await routeOf(t, number(6))).toBe(agent(1).id);
  });

  it('an admin changes what any team owns', async () => {
    const rerouted = await askForConfirmation(t, ADMIN, `map ${number(2)} ${agent(0).id}`);
    expect(shownText(await confirmAs(t, ADMIN, rerouted.confirmationId))).toContain('Re-routed');
    const released = await askForConfirmation(t, ADMIN, `numbers release ${number(9)}`);
    expect(shownText(await confirmAs(t, ADMIN, released.confirmationId))).toContain('Released');
    const plan = await ask(t, `numbers release unrouted`, ADMIN);
    expect(shownText(plan)).toContain(number(5));
    const batchId = onlyButton(blocksOf(plan), ACTION.confirmBatchTyped);
    expect((await storedPlan(batchId)).leftOut, 'an admin leaves nothing out').toBeUndefined();
    await press(t, ADMIN, ACTION.cancelBatch, batchId);
  });

  it('any operator changes what nobody owns, whichever team they are in', async () => {
    const bySue = await askForConfirmation(t, SUE, `map ${number(7)} ${agent(2).id}`);
    expect(shownText(await confirmAs(t, SUE, bySue.confirmationId))).toContain('Re-routed');
    const byOmar = await askForConfirmation(t, OMAR, `map ${number(7)} ${agent(0).id}`);
    expect(shownText(await confirmAs(t, OMAR, byOmar.confirmationId))).toContain('Re-routed');
    expect(await routeOf(t, number(7))).toBe(agent(0).id);
  });
});

describe('at an approval', () => {
  const APPROVALS = 'CAPPROVALS';
  let t: TestApp;
  let numbers: SandboxNumber[];
  let agent: (index: number) => SandboxAgent;

  beforeAll(async () => {
    ({ t, numbers, agent } = await startSeededApp(
      { agents: 2, numbers: 1, routed: 1 },
      { ...TEAMS, env: { VOICE_REQUIRE_APPROVAL: 'routing.map', VOICE_APPROVALS_CHANNEL_ID: APPROVALS } },
    ));
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Omar asks to re-route a number and confirms: it waits; resolves with who may approve it pressing Approve. */
  async function waitingReroute(number: string, agentId: string) {
    const since = t.slack.mark();
    const { confirmationId } = await askForConfirmation(t, OMAR, `map ${number} ${agentId}`);
    expect(shownText(await confirmAs(t, OMAR, confirmationId))).toContain('needs a second person');
    const posted = t.slack
      .calls()
      .slice(since)
      .find((call) => call.method === 'chat.postMessage' && call.body.channel === APPROVALS);
    const approvalId = onlyButton(blocksOf(posted as SlackCall), ACTION.approveChange);
    return (user: string) =>
      t.action({
        userId: user,
        actionId: ACTION.approveChange,
        value: approvalId,
        container: { type: 'message', channelId: APPROVALS, messageTs: '1.000001' },
      });
  }

  it("another team's operator may not approve a team's change; one who may, may", async () => {
    const number = numbers[0]?.number ?? '';
    await give(t, number, SALES);
    const approve = await waitingReroute(number, agent(1).id);

    const refused = await approve(SUE);
    expect(shownText(await outcomeOf(t, refused.responseUrlId))).toContain(`${number} ${ownedBy(SALES)}`);
    expect(await lastDenial(t, SUE)).toMatchObject({ rule: 'owner', subject: number, owner: SALES });
    expect(t.sandbox.requestCount('mapNumber')).toBe(0);

    await approve(ADMIN);
    await waitUntil(() => t.sandbox.requestCount('mapNumber') === 1, 'the approved re-route to reach the provider');
    await t.settled();
    expect(await routeOf(t, number)).toBe(agent(1).id);
  });

  it('a change whose number is given to another team while it waits is refused once approved; nothing sent', async () => {
    const number = numbers[0]?.number ?? '';
    const approve = await waitingReroute(number, agent(0).id);
    await give(t, number, SUPPORT);
    const maps = t.sandbox.requestCount('mapNumber');

    await approve(ADMIN);
    const failed = await waitForAuditRow(t, { actor_id: OMAR, target: number, outcome: 'failed' });
    await t.settled();
    expect(failed.error_code).toBe('owner');
    expect(t.sandbox.requestCount('mapNumber')).toBe(maps);
    expect(await routeOf(t, number)).toBe(agent(1).id);
  });
});
