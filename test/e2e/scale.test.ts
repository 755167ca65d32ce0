// An account of 10,000 purchased numbers and 1,000 agents (seeded straight into the sandbox's SQLite, the first 150
// numbers routed, the app's own routing records to match), driven through signed requests to the real app: every
// page of every list is reachable, each item found exactly once, and nothing the app sends breaks Slack's limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, INPUT, PAGE } from '../../src/slack/ids.js';
import { AuditLog } from '../../src/store/audit.js';
import { ADMIN, OPERATOR, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import { RESPONSE_URL, type SlackCall } from '../harness/fake-slack.js';
import { selectInput } from '../harness/payloads.js';
import { limitViolations } from '../views/support.js';
import {
  type Block,
  blockKitProblems,
  blocksOf,
  buttonValues,
  EPHEMERAL,
  listedAgents,
  listedNumbers,
  readable,
  rowsOf,
  type SandboxAgent,
  type SandboxNumber,
  sandboxAgents,
  sandboxNumbers,
  seededRoutes,
  seedRoutes,
  shownText,
  suggested,
  viewOf,
} from './support.js';

const NUMBERS = 10_000;
const AGENTS = 1000;
const ROUTED = 150;

let t: TestApp;
let numbers: SandboxNumber[];
let agents: SandboxAgent[];

beforeAll(async () => {
  t = await startTestApp({
    sandboxNumbersPerRegion: 1000,
    sandboxSeed: { agents: AGENTS, numbers: NUMBERS, routed: ROUTED },
  });
  [numbers, agents] = await Promise.all([sandboxNumbers(t), sandboxAgents(t)]);
  await seedRoutes(t, seededRoutes(numbers, agents, ROUTED));
});
afterAll(async () => {
  // Whatever the tests made the app send, every message and view kept within Slack's limits.
  const sent = t?.slack.calls().filter((call) => call.method === RESPONSE_URL || call.method.startsWith('views.'));
  const problems = (sent ?? []).flatMap(blockKitProblems);
  await t?.close();
  expect(problems).toEqual([]);
});

/** The only value of a button, or undefined when the page has none. */
function only(blocks: Block[], actionId: string): string | undefined {
  const values = buttonValues(blocks, actionId);
  expect(values.length).toBeLessThanOrEqual(1);
  return values[0];
}

/** Presses a paging button in an ephemeral listing; resolves with the page that replaced it. */
async function turn(actionId: string, value: string, user = VIEWER): Promise<SlackCall> {
  const pressed = await t.action({ userId: user, actionId, value, container: EPHEMERAL });
  const page = await t.respondedTo(pressed.responseUrlId);
  expect(page.body.replace_original, 'a page replaces the one before, in place').toBe(true);
  return page;
}

/** Follows Next from `first` to the last page; returns every page's items, in order. */
async function walk(
  first: SlackCall,
  actionIds: { previous: string; next: string },
  items: (blocks: Block[]) => string[],
): Promise<{ pages: string[][]; last: SlackCall }> {
  const pages = [items(blocksOf(first))];
  let last = first;
  for (let next = only(blocksOf(first), actionIds.next); next !== undefined; ) {
    last = await turn(actionIds.next, next);
    pages.push(items(blocksOf(last)));
    expect(shownText(last)).toContain(`Page ${pages.length.toLocaleString('en-US')} of`);
    next = only(blocksOf(last), actionIds.next);
  }
  return { pages, last };
}

// A walk through every page is hundreds of round trips one after another: on a machine busy with other work it needs
// more than the suite's usual limit, which only ever ends a stuck test.
const WALK_TIMEOUT_MS = 240_000;

describe(`an account of ${NUMBERS.toLocaleString('en-US')} numbers and ${AGENTS} agents`, {
  timeout: WALK_TIMEOUT_MS,
}, () => {
  it('walks every page of `/voice numbers` and finds every number exactly once, reading the provider once', async () => {
    const reads = t.sandbox.requestCount('listPurchasedNumbers');
    const first = await t.respondedTo((await t.command('numbers', VIEWER)).responseUrlId);
    expect(shownText(first)).toContain('Page 1 of 500 · 10,000 numbers');
    const { pages, last } = await walk(first, PAGE.numbers, listedNumbers);

    expect(pages).toHaveLength(500);
    for (const page of pages) expect(page).toHaveLength(20);
    const found = pages.flat();
    expect(new Set(found).size).toBe(NUMBERS);
    expect(found).toEqual(numbers.map((entry) => entry.number));
    // The first page read the provider's list; the other 499 pages used it.
    expect(t.sandbox.requestCount('listPurchasedNumbers') - reads).toBe(1);

    // Previous goes back the same way.
    const back = await turn(PAGE.numbers.previous, only(blocksOf(last), PAGE.numbers.previous) ?? '');
    expect(listedNumbers(blocksOf(back))).toEqual(pages[498]);
    expect(shownText(back)).toContain('Page 499 of 500');
  });

  it('walks every page of `/voice agents` and finds every agent exactly once, with the numbers routed to it', async () => {
    const first = await t.respondedTo((await t.command('agents', VIEWER)).responseUrlId);
    expect(shownText(first)).toContain('Page 1 of 40 · 1,000 agents');
    expect(shownText(first)).toContain(numbers[0]?.number);
    const { pages } = await walk(first, PAGE.agents, listedAgents);
    expect(pages).toHaveLength(40);
    expect(pages.flat()).toEqual(agents.map((agent) => agent.id));
  });

  it('pages both sections of the Home tab on their own, keeping the other where it was', async () => {
    const mark = t.slack.mark();
    await t.homeOpened(ADMIN);
    let home = await t.slack.waitFor('views.publish', (call) => call.body.user_id === ADMIN, { since: mark });
    // A button on the Home tab carries the tab as published, with its private_metadata.
    const container = () =>
      ({ type: 'view', viewId: 'VHOME', viewType: 'home', privateMetadata: viewOf(home).private_metadata }) as const;
    expect(shownText(home)).toContain('Page 1 of 67 · 1,000 agents');
    expect(shownText(home)).toContain('Page 1 of 400 · 10,000 numbers');

    const seen: string[] = [];
    for (let page = 1; ; page++) {
      seen.push(...listedAgents(viewOf(home).blocks));
      const next = only(viewOf(home).blocks, PAGE.homeAgents.next);
      if (next === undefined) break;
      const at = t.slack.mark();
      await t.action({ userId: ADMIN, actionId: PAGE.homeAgents.next, value: next, container: container() });
      home = await t.slack.waitFor('views.publish', (call) => call.body.user_id === ADMIN, { since: at });
      expect(shownText(home)).toContain(`Page ${page + 1} of 67 · 1,000 agents`);
      expect(shownText(home), 'the numbers stay on their page').toContain('Page 1 of 400 · 10,000 numbers');
    }
    expect(seen).toEqual(agents.map((agent) => agent.id));
  });

  it('filters by route, region, agent and digits, each filtered list walked to its end, each number once', async () => {
    const routed = new Set((await routeRecords(t)).keys());
    const cases: [text: string, expected: string[]][] = [
      ['numbers routed', numbers.map((entry) => entry.number).filter((number) => routed.has(number))],
      ['numbers DE', numbers.map((entry) => entry.number).filter((number) => number.startsWith('+49'))],
      ['numbers 415', numbers.map((entry) => entry.number).filter((number) => number.includes('415'))],
      [
        `numbers agent ${agents[3]?.id}`,
        [...(await routeRecords(t))].filter(([, agentId]) => agentId === agents[3]?.id).map(([number]) => number),
      ],
    ];
    for (const [text, expected] of cases) {
      expect(expected.length, text).toBeGreaterThan(0);
      const first = await t.respondedTo((await t.command(text, VIEWER)).responseUrlId);
      expect(shownText(first), text).toContain(`· ${expected.length.toLocaleString('en-US')} number`);
      const { pages } = await walk(first, PAGE.numbers, listedNumbers);
      expect(pages.flat().sort(), text).toEqual([...expected].sort());
    }
  });

  it('looks up one number past the 100th as a card, and one agent with its numbers', async () => {
    const far = numbers[9999];
    const card = await t.respondedTo((await t.command(`numbers ${far?.number}`, ADMIN)).responseUrlId);
    expect(shownText(card)).toContain(`*${far?.number}*  \`${far?.id}\`\nStatus: active · Region:`);
    expect(shownText(card)).toContain('_Not routed_');
    expect(buttonValues(blocksOf(card), ACTION.releaseNumber)).toEqual([far?.id]);

    const agent = agents[7];
    const own = [...(await routeRecords(t))].filter(([, agentId]) => agentId === agent?.id).map(([number]) => number);
    const agentCard = await t.respondedTo((await t.command(`agents ${agent?.id}`, VIEWER)).responseUrlId);
    expect(shownText(agentCard)).toContain(`*${agent?.name}*  \`${agent?.id}\``);
    expect(shownText(agentCard)).toContain(`Numbers: ${own.length} routed: ${own.sort().join(', ')}`);
  });

  it('filters the Home tab’s numbers with its filter, back on page 1 of the numbers that route nowhere', async () => {
    const mark = t.slack.mark();
    await t.homeOpened(OPERATOR);
    const home = await t.slack.waitFor('views.publish', (call) => call.body.user_id === OPERATOR, { since: mark });
    const unrouted = NUMBERS - (await routeRecords(t)).size;
    const at = t.slack.mark();
    await t.action({
      userId: OPERATOR,
      actionId: ACTION.homeNumbersFilter,
      selectedOption: { text: 'Not routed', value: JSON.stringify({ routed: false }) },
      container: { type: 'view', viewId: 'VHOMEOP', viewType: 'home', privateMetadata: viewOf(home).private_metadata },
    });
    const filtered = await t.slack.waitFor('views.publish', (call) => call.body.user_id === OPERATOR, { since: at });
    expect(shownText(filtered)).toContain('Numbers bought and where each routes · not routed');
    expect(shownText(filtered)).toContain(
      `Page 1 of ${Math.ceil(unrouted / 25).toLocaleString('en-US')} · ${unrouted.toLocaleString('en-US')} numbers`,
    );
    const records = await routeRecords(t);
    expect(listedNumbers(viewOf(filtered).blocks).every((number) => !records.has(number))).toBe(true);
  });

  it('maps an unrouted number past the 100th through the type-ahead pickers, unrouted numbers offered first', async () => {
    const mark = t.slack.mark();
    const sent = await t.command('map', OPERATOR);
    const form = await t.slack.waitFor('views.update', (call) => viewOf(call).callback_id === CALLBACK.mapNumber, {
      since: mark,
    });
    expect(shownText(form)).not.toContain('Loading');

    // Nothing typed yet: the first 100 numbers that route nowhere, saying how many more there are.
    const opened = await suggested(t, INPUT.mapNumber, '');
    expect(opened.groups).toEqual([
      `Not routed: the first 100 of ${(NUMBERS - ROUTED).toLocaleString('en-US')}: type digits to narrow`,
    ]);
    expect(opened.options).toHaveLength(100);
    expect(limitViolations(opened.answer)).toEqual([]);

    const target = numbers[5000]?.number ?? '';
    const typed = await suggested(t, INPUT.mapNumber, target.slice(-7));
    expect(typed.options.map((option) => option.value)).toContain(target);
    const agent = agents[776];
    const agentTyped = await suggested(t, INPUT.mapAgent, agent?.name ?? '');
    expect(agentTyped.options).toEqual([{ text: `${agent?.name} (${agent?.id})`, value: agent?.id }]);
    expect(limitViolations(agentTyped.answer)).toEqual([]);

    const mapped = t.sandbox.requestCount('mapNumber');
    const submitted = t.slack.mark();
    await t.submit({
      userId: OPERATOR,
      viewId: String(form.body.view_id),
      callbackId: CALLBACK.mapNumber,
      privateMetadata: viewOf(form).private_metadata,
      stateValues: {
        [INPUT.mapNumber.block]: { [INPUT.mapNumber.action]: selectInput(target) },
        [INPUT.mapAgent.block]: { [INPUT.mapAgent.action]: selectInput(agent?.id ?? '') },
      },
    });
    const done = await t.slack.waitFor('views.update', (call) => shownText(call).includes('Routed'), {
      since: submitted,
    });
    expect(shownText(done)).toContain(target);
    expect(shownText(done)).toContain(agent?.name);
    expect(t.sandbox.requestCount('mapNumber')).toBe(mapped + 1);
    await t.settled();
    expect(sent.status).toBe(200);

    // Mapped now: the picker offers it among the routed numbers, with its agent.
    const after = await suggested(t, INPUT.mapNumber, target.slice(-7));
    expect(after.options.find((option) => option.value === target)?.text).toContain(`→ ${agent?.name}`);
  });

  it('opens `/voice map +NUMBER` with that number picked, wherever it stands, and says when it is not ours', async () => {
    const far = numbers[9000]?.number ?? '';
    const mark = t.slack.mark();
    await t.command(`map ${far}`, OPERATOR);
    const form = await t.slack.waitFor('views.update', (call) => viewOf(call).callback_id === CALLBACK.mapNumber, {
      since: mark,
    });
    const picker = viewOf(form).blocks.find((block) => block.block_id === INPUT.mapNumber.block)?.element;
    expect(picker?.initial_option?.value).toBe(far);

    const stranger = '+15550000000';
    const strangerMark = t.slack.mark();
    await t.command(`map ${stranger}`, OPERATOR);
    const explained = await t.slack.waitFor('views.update', (call) => viewOf(call).callback_id === CALLBACK.mapNumber, {
      since: strangerMark,
    });
    expect(shownText(explained)).toContain(`*${stranger}* is not one of your numbers`);
  });

  it('walks every page of `/voice audit`, one line per change, each change exactly once while new ones arrive', async () => {
    const changes = 1000;
    const target = (i: number) => `+1555000${String(i).padStart(4, '0')}`;
    await appendChanges(changes, target);
    const first = await t.respondedTo((await t.command('audit', VIEWER)).responseUrlId);
    expect(shownText(first)).toMatch(/Page 1 of 5\d · 1,0\d\d changes/);

    const lines = (blocks: Block[]) =>
      [...readable(blocks).matchAll(/routed \*(\+1555000\d{4})\*/g)].map((match) => match[1] ?? '');
    const pages = [lines(blocksOf(first))];
    let page = first;
    for (let next = only(blocksOf(page), PAGE.audit.next); next !== undefined; ) {
      // A change made while someone reads older pages does not move what they have yet to see.
      if (pages.length === 10) await appendChanges(1, () => '+15559999999');
      page = await turn(PAGE.audit.next, next);
      pages.push(lines(blocksOf(page)));
      next = only(blocksOf(page), PAGE.audit.next);
    }
    const seen = pages.flat();
    expect(seen).toHaveLength(changes);
    expect(seen).toEqual(Array.from({ length: changes }, (_, i) => target(changes - 1 - i)));

    // Previous leads back through the same pages.
    for (let back = pages.length - 2; back >= pages.length - 4; back--) {
      page = await turn(PAGE.audit.previous, only(blocksOf(page), PAGE.audit.previous) ?? '');
      expect(lines(blocksOf(page))).toEqual(pages[back]);
    }
  });
});

/** The app's own routing records: number → agent. */
async function routeRecords(t: TestApp): Promise<Map<string, string>> {
  const rows = await rowsOf<{ phone_number: string; agent_id: string }>(t, 'SELECT phone_number, agent_id FROM routes');
  return new Map(rows.map((row) => [row.phone_number, row.agent_id]));
}

/**
 * Writes `count` finished maps into the app's audit log as the app does (request, confirmation, success), two changes
 * at a time with their rows interleaved, as concurrent requests leave them.
 */
async function appendChanges(count: number, target: (i: number) => string): Promise<void> {
  await (await t.database.sql()).transaction(async (tx) => {
    const log = new AuditLog(tx);
    const step = (i: number, outcome: 'requested' | 'confirmed' | 'succeeded') =>
      log.append({
        actorId: ADMIN,
        source: 'command',
        action: 'routing.map',
        target: target(i),
        params: { agentId: 'agt_s0001' },
        outcome,
        correlationId: `seeded-${target(i)}-${i}`,
      });
    for (let i = 0; i < count; i += 2) {
      const pair = [i, i + 1].filter((j) => j < count);
      for (const outcome of ['requested', 'confirmed', 'succeeded'] as const)
        for (const j of pair) await step(j, outcome);
    }
  });
}
