// `/voice map FILTER to AGENT_ID`: a plan of every number the filter picks, with each one's effect and the totals;
// one confirmation applies it once, whatever the clicks; progress, Stop, failures offered again, a plan that changed
// before it was confirmed, and the batch read back as one line of the audit and one announcement.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { regionOf } from '../../src/ops/regions.js';
import { ACTION, PAGE } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, type TestApp, VIEWER } from '../harness/app.js';
import { RESPONSE_URL, type SlackCall } from '../harness/fake-slack.js';
import {
  announced,
  askForConfirmation,
  auditRows,
  blockKitProblems,
  blocksOf,
  buttonValues,
  confirmAs,
  onlyButton,
  outcomeOf,
  press,
  readable,
  respondedWith,
  rowsOf,
  type SandboxAgent,
  type SandboxNumber,
  shownText,
  startSeededApp,
  WORKING,
  waitUntil,
} from './support.js';

const NUMBERS = 60;
const ROUTED = 12;

let t: TestApp;
let numbers: SandboxNumber[];
/** The app's routing records, as the tests change them: number → agent id. */
let routes: Map<string, string>;
let agent: (index: number) => SandboxAgent;

beforeAll(async () => {
  ({ t, numbers, routes, agent } = await startSeededApp({ agents: 4, numbers: NUMBERS, routed: ROUTED }));
});
afterAll(async () => {
  const sent = t?.slack.calls().filter((call) => call.method === RESPONSE_URL || call.method === 'chat.postMessage');
  const problems = (sent ?? []).flatMap(blockKitProblems);
  await t?.close();
  expect(problems).toEqual([]);
});

/** Every post to one response_url, oldest first. */
const postsTo = (responseUrlId: string | undefined): SlackCall[] =>
  t.slack.calls().filter((call) => call.method === RESPONSE_URL && call.responseUrlId === responseUrlId);

/** `/voice map …` as `user`: the plan (or refusal) it answers with. */
async function plan(text: string, user = OPERATOR): Promise<SlackCall> {
  return t.respondedTo((await t.command(`map ${text}`, user)).responseUrlId);
}

/** Presses Apply on a plan and waits for the batch's result (the last post to the click's response_url). */
async function apply(planned: SlackCall, user = OPERATOR): Promise<{ result: SlackCall; posts: SlackCall[] }> {
  const pressed = await press(t, user, ACTION.confirmBatch, onlyButton(blocksOf(planned), ACTION.confirmBatch));
  await waitUntil(() => postsTo(pressed.responseUrlId).some(isEnd), 'the batch to end');
  await t.settled();
  const posts = postsTo(pressed.responseUrlId);
  return { result: posts.at(-1) as SlackCall, posts };
}

const isEnd = (call: SlackCall) =>
  /Routed|Stopped|changed since|plan|Plan/.test(shownText(call)) &&
  !/of \d+ done/.test(shownText(call)) &&
  !shownText(call).includes(WORKING);

const mapRequests = () => t.sandbox.requestCount('mapNumber');

describe('a bulk map', () => {
  it('plans every number the filter picks, each with its effect, and the totals; nothing changes yet', async () => {
    const region = regionOf(numbers[0]?.number ?? '') ?? '';
    const inRegion = numbers.filter((entry) => regionOf(entry.number) === region);
    const target = agent(1);
    const rerouted = inRegion.filter((entry) => routes.has(entry.number) && routes.get(entry.number) !== target.id);
    const unchanged = inRegion.filter((entry) => routes.get(entry.number) === target.id);
    const added = inRegion.length - rerouted.length - unchanged.length;
    expect(rerouted.length + unchanged.length, 'the scene has routed numbers in the region').toBeGreaterThan(0);
    const before = mapRequests();

    const planned = await plan(`${region} to ${target.id}`);
    const text = readable(blocksOf(planned));
    expect(text).toContain(`route to *${target.name}*`);
    const changing = added + rerouted.length;
    expect(text).toContain(`${changing} number${changing === 1 ? '' : 's'} to route`);
    if (rerouted.length) expect(text).toContain(`${rerouted.length} re-routed from another agent`);
    if (unchanged.length) expect(text).toContain(`${unchanged.length} already routed there (unchanged)`);
    for (const entry of inRegion.slice(0, 20)) expect(text).toContain(entry.number);
    for (const entry of unchanged.slice(0, 20)) expect(text).toContain(`${entry.number}*: already routes there`);
    const apply = blocksOf(planned)
      .flatMap((block) => block.elements ?? [])
      .find((element) => element.action_id === ACTION.confirmBatch);
    expect(apply?.style, 'taking numbers from another agent is confirmed in red').toBe(
      rerouted.length ? 'danger' : 'primary',
    );
    expect(mapRequests()).toBe(before);
    await press(t, OPERATOR, ACTION.cancelBatch, onlyButton(blocksOf(planned), ACTION.cancelBatch));
  });

  it('is applied once under a double click, audited as one batch and announced in one message', async () => {
    const target = agent(2);
    const picked = numbers.filter((entry) => !routes.has(entry.number)).slice(0, 10);
    const digits = picked.map((entry) => entry.number);
    // The unrouted numbers of the account, all of them, to agent 2.
    const unrouted = numbers.filter((entry) => !routes.has(entry.number));
    expect(digits.length).toBeGreaterThan(0);
    const planned = await plan(`unrouted to ${target.id}`);
    const batchId = onlyButton(blocksOf(planned), ACTION.confirmBatch);
    const before = mapRequests();
    const announcementsBefore = announced(t).length;

    const value = batchId;
    const [first, second] = await Promise.all([
      press(t, OPERATOR, ACTION.confirmBatch, value),
      press(t, OPERATOR, ACTION.confirmBatch, value),
    ]);
    await waitUntil(
      () =>
        [first, second].every(
          (click) =>
            postsTo(click.responseUrlId).some(isEnd) ||
            postsTo(click.responseUrlId).some(
              (c) => shownText(c).includes('being applied') || shownText(c).includes('already applied'),
            ),
        ),
      'both clicks to be answered',
    );
    await t.settled();
    expect(mapRequests() - before, 'one provider call per number, once').toBe(unrouted.length);
    const answers = [first, second].map((click) => shownText(postsTo(click.responseUrlId).at(-1) as SlackCall));
    expect(answers.filter((text) => text.includes(`Routed ${unrouted.length} of ${unrouted.length}`))).toHaveLength(1);
    expect(answers.filter((text) => /being applied|already applied/.test(text))).toHaveLength(1);
    for (const entry of unrouted) routes.set(entry.number, target.id);

    const trail = (await auditRows(t)).filter((row) => row.correlation_id === batchId);
    expect(trail.filter((row) => row.action === 'batch.map').map((row) => row.outcome)).toEqual([
      'requested',
      'confirmed',
      'succeeded',
    ]);
    const items = trail.filter((row) => row.action === 'routing.map');
    expect(items.map((row) => row.outcome)).toEqual(unrouted.map(() => 'succeeded'));
    expect(new Set(items.map((row) => row.target))).toEqual(new Set(unrouted.map((entry) => entry.number)));

    const posted = announced(t).slice(announcementsBefore);
    expect(posted, 'one announcement for the whole batch').toHaveLength(1);
    expect(posted[0]?.text).toContain(`<@${OPERATOR}> routed ${unrouted.length} numbers to *${target.name}*`);

    const audit = await t.respondedTo((await t.command('audit', OPERATOR)).responseUrlId);
    const lines = readable(blocksOf(audit))
      .split('\n')
      .filter((line) => line.includes('routed in bulk') && line.includes(`*${target.name}*`));
    expect(lines, `the batch is one line of the audit:\n${lines.join('\n')}`).toHaveLength(1);
    expect(lines[0]).toContain(`${unrouted.length} numbers`);
    expect(lines[0]).toContain(`${unrouted.length} succeeded`);

    // Its items are a button away: each number with what became of it, in a message of its own.
    const itemsButton = buttonValues(blocksOf(audit), ACTION.batchItems).find((value) => value.includes(batchId));
    expect(itemsButton, 'an Items button for the batch').toBeDefined();
    const card = await t.respondedTo((await press(t, OPERATOR, ACTION.batchItems, itemsButton ?? '')).responseUrlId);
    expect(card.body.replace_original).toBe(false);
    const listed = readable(blocksOf(card));
    for (const entry of unrouted.slice(0, 20)) expect(listed).toContain(`:white_check_mark: *${entry.number}*`);
  });

  it('shows progress in place, within the five posts Slack allows to one response_url', async () => {
    const target = agent(3);
    const picked = numbers.filter((entry) => routes.get(entry.number) === agent(2).id).slice(0, 16);
    t.sandbox.faults.setLatency(150);
    try {
      const planned = await plan(`agent ${agent(2).id} to ${target.id}`);
      const { result, posts } = await apply(planned);
      expect(posts.length).toBeLessThanOrEqual(5);
      expect(
        posts.some((call) => /of \d+ done/.test(shownText(call))),
        'at least one progress rewrite',
      ).toBe(true);
      expect(posts.every((call) => call.body.replace_original === true)).toBe(true);
      expect(shownText(result)).toContain('Routed');
    } finally {
      t.sandbox.faults.setLatency(0);
    }
    for (const entry of numbers) if (routes.get(entry.number) === agent(2).id) routes.set(entry.number, target.id);
    expect(picked.length).toBeGreaterThan(0);
  });

  it('stops: the numbers not yet started do not change, and are audited as cancelled', async () => {
    const from = agent(3);
    const target = agent(0);
    const moving = numbers.filter((entry) => routes.get(entry.number) === from.id);
    expect(moving.length).toBeGreaterThan(8);
    const planned = await plan(`agent ${from.id} to ${target.id}`);
    const batchId = onlyButton(blocksOf(planned), ACTION.confirmBatch);
    const before = mapRequests();
    t.sandbox.faults.inject('mapNumber', { type: 'hold' });
    const pressed = await press(t, OPERATOR, ACTION.confirmBatch, batchId);
    await waitUntil(
      async () => (await auditRows(t)).some((row) => row.correlation_id === batchId && row.outcome === 'confirmed'),
      'the batch to start',
    );
    const stopped = await press(t, OPERATOR, ACTION.stopBatch, batchId);
    await waitUntil(
      async () =>
        (await auditRows(t)).some(
          (row) => row.correlation_id === batchId && row.action === 'batch.map' && row.outcome === 'cancelled',
        ),
      'the stop to be recorded',
    );
    t.sandbox.faults.clear();
    await waitUntil(
      () => postsTo(pressed.responseUrlId).some((call) => shownText(call).includes('Stopped')),
      'the result',
    );
    await t.settled();
    const made = mapRequests() - before;
    expect(made, 'only the items under way at the stop reached the provider').toBeLessThanOrEqual(4);
    const result = shownText(postsTo(pressed.responseUrlId).at(-1) as SlackCall);
    expect(result).toContain(`Stopped: ${made} of ${moving.length} routed`);
    expect(postsTo(stopped.responseUrlId)).toEqual([]);
    const trail = (await auditRows(t)).filter((row) => row.correlation_id === batchId);
    expect(trail.filter((row) => row.action === 'routing.map' && row.outcome === 'cancelled')).toHaveLength(
      moving.length - made,
    );
    expect(trail.filter((row) => row.action === 'routing.map' && row.outcome === 'succeeded')).toHaveLength(made);
    expect(buttonValues(blocksOf(postsTo(pressed.responseUrlId).at(-1) as SlackCall), ACTION.planAgain)).toHaveLength(
      1,
    );
  });
});

describe('refusals and changes of plan', () => {
  it("refuses Apply from anyone but the plan's requester, an admin included: audited, nothing applied, the plan still theirs", async () => {
    const planned = await plan(`agent ${agent(0).id} to ${agent(1).id}`);
    const batchId = onlyButton(blocksOf(planned), ACTION.confirmBatch);
    const before = mapRequests();

    const pressed = await press(t, ADMIN, ACTION.confirmBatch, batchId);
    await respondedWith(t, pressed.responseUrlId, 'Only the person who asked for this plan can confirm or cancel it.');
    await t.settled();
    expect(postsTo(pressed.responseUrlId).map(shownText).join('\n')).not.toContain('already applied');
    expect(mapRequests()).toBe(before);
    const denied = (await auditRows(t)).filter(
      (row) => row.correlation_id === batchId && row.actor_id === ADMIN && row.outcome === 'denied',
    );
    expect(denied).toHaveLength(1);
    expect(denied[0]?.params).toContain('not the requester');

    // The plan is still the requester's: their Cancel ends it, audited as theirs.
    await press(t, OPERATOR, ACTION.cancelBatch, onlyButton(blocksOf(planned), ACTION.cancelBatch));
    await waitUntil(
      async () =>
        (await auditRows(t)).some(
          (row) => row.correlation_id === batchId && row.actor_id === OPERATOR && row.outcome === 'cancelled',
        ),
      'the requester to cancel their plan',
    );
    expect(mapRequests()).toBe(before);
  });

  it('refuses a viewer, and changes nothing', async () => {
    const before = mapRequests();
    const refused = await plan(`unrouted to ${agent(0).id}`, VIEWER);
    expect(shownText(refused)).toContain('You need the operator role to map numbers to agents');
    expect(mapRequests()).toBe(before);
  });

  it('shows the new plan, applying nothing, when the numbers changed after the plan was shown', async () => {
    const from = agent(0);
    const target = agent(1);
    const planned = await plan(`agent ${from.id} to ${target.id}`);
    const moved = numbers.find((entry) => routes.get(entry.number) === from.id);
    if (!moved) throw new Error('agent 0 routes no number');
    const asked = await askForConfirmation(t, ADMIN, `map ${moved.number} ${agent(2).id}`);
    await confirmAs(t, ADMIN, asked.confirmationId);
    routes.set(moved.number, agent(2).id);
    const before = mapRequests();
    const { result } = await apply(planned);
    expect(shownText(result)).toContain('changed since it was shown');
    expect(readable(blocksOf(result))).not.toContain(moved.number);
    expect(mapRequests()).toBe(before);
    expect(buttonValues(blocksOf(result), ACTION.confirmBatch)).toHaveLength(1);
  });

  it('lists a failure with its reason, and plans the failed ones again', async () => {
    const from = agent(1);
    const target = agent(2);
    const planned = await plan(`agent ${from.id} to ${target.id}`);
    t.sandbox.faults.inject('mapNumber', { type: 'status', status: 404, body: { error: 'not found' } }, { times: 1 });
    const { result } = await apply(planned);
    expect(shownText(result)).toContain('1 failed');
    expect(readable(blocksOf(result))).toContain('Failed:');
    const again = await press(t, OPERATOR, ACTION.planAgain, onlyButton(blocksOf(result), ACTION.planAgain));
    const replanned = await t.respondedTo(again.responseUrlId);
    expect(shownText(replanned)).toContain('1 re-routed from another agent');
    expect(buttonValues(blocksOf(replanned), ACTION.confirmBatch)).toHaveLength(1);
  });

  it('waits out the provider’s 429s, and lists each item with what became of it', async () => {
    const from = agent(2);
    const target = agent(3);
    const planned = await plan(`agent ${from.id} to ${target.id}`);
    const moving = [...readable(blocksOf(planned)).matchAll(/\*(\+\d+)\*: re-route/g)].map((match) => match[1] ?? '');
    expect(moving.length).toBeGreaterThan(0);
    const before = mapRequests();
    t.sandbox.faults.inject('mapNumber', { type: 'rate_limit', retryAfterSeconds: 0 }, { times: 2 });
    const { result } = await apply(planned);
    expect(mapRequests() - before, 'each item once, and the two refused calls again').toBe(moving.length + 2);
    expect(shownText(result)).toContain(`Routed ${moving.length} of ${moving.length} number`);
    const listed = readable(blocksOf(result));
    for (const number of moving) expect(listed).toContain(`:white_check_mark: *${number}*`);
    for (const number of moving) routes.set(number, target.id);
  });

  it('pages a long plan', async () => {
    const planned = await plan(`routed to ${agent(0).id}`);
    const next = onlyButton(blocksOf(planned), PAGE.batch.next);
    const page = await t.respondedTo((await press(t, OPERATOR, PAGE.batch.next, next)).responseUrlId);
    expect(readable(blocksOf(page))).toContain('Page 2 of');
    expect(page.body.replace_original).toBe(true);
  });
});

// Last, since it moves numbers the tests above count on.
describe('the numbers of a batch under way', () => {
  it('holds its numbers while it runs: a change to one not yet reached is refused, and a batch waits for a busy one', async () => {
    const from = agent(3);
    const planned = await plan(`agent ${from.id} to ${agent(1).id}`);
    const batchId = onlyButton(blocksOf(planned), ACTION.confirmBatch);
    t.sandbox.faults.inject('mapNumber', { type: 'hold' });
    onTestFinished(() => t.sandbox.faults.clear());
    const pressed = await press(t, OPERATOR, ACTION.confirmBatch, batchId);
    await waitUntil(
      async () => (await auditRows(t)).some((row) => row.correlation_id === batchId && row.outcome === 'confirmed'),
      'the batch to start',
    );
    const [last] = await rowsOf<{ change: string }>(
      t,
      "SELECT change FROM batch_items WHERE batch_id = ? AND state = 'pending' ORDER BY seq DESC LIMIT 1",
      [batchId],
    );
    const waiting = (JSON.parse(last?.change ?? '{}') as { phoneNumber: string }).phoneNumber;
    const single = await askForConfirmation(t, ADMIN, `map ${waiting} ${agent(2).id}`);
    const before = mapRequests();
    const refused = await outcomeOf(
      t,
      (await press(t, ADMIN, ACTION.confirmChange, single.confirmationId)).responseUrlId,
    );
    expect(shownText(refused)).toContain(`Another change to ${waiting} is in progress`);
    // It names the batch it waits on, who applies it and since when.
    expect(shownText(refused)).toMatch(
      /in progress \(applying a plan of \d+ changes, by <@UOPERATOR> since .+ UTC, under a minute\)/,
    );
    expect(mapRequests(), 'the single change reached no provider').toBe(before);

    // The other way round: a single change under way keeps a batch with its number from starting.
    const next = await plan(`agent ${from.id} to ${agent(2).id}`);
    const nextBatch = onlyButton(blocksOf(next), ACTION.confirmBatch);
    const busy = await outcomeOf(t, (await press(t, OPERATOR, ACTION.confirmBatch, nextBatch)).responseUrlId);
    expect(shownText(busy)).toMatch(
      /or one of these numbers is in progress \(applying a plan of \d+ changes, by <@UOPERATOR>/,
    );
    expect((await auditRows(t)).filter((row) => row.correlation_id === nextBatch).map((row) => row.outcome)).toEqual([
      'requested',
    ]);

    t.sandbox.faults.clear();
    await waitUntil(() => postsTo(pressed.responseUrlId).some(isEnd), 'the first batch to end');
    await t.settled();
    expect(shownText(postsTo(pressed.responseUrlId).at(-1) as SlackCall)).toMatch(/Routed (\d+) of \1/);
    const [route] = await rowsOf<{ agent_id: string }>(t, 'SELECT agent_id FROM routes WHERE phone_number = ?', [
      waiting,
    ]);
    expect(route?.agent_id, 'the number went where the batch sent it').toBe(agent(1).id);
  });
});
