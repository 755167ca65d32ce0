// A plan of 1,000 numbers, the most a plan holds: its pages, its progress and its result all keep within Slack's
// Block Kit limits, every number is listed on exactly one page, and one more number is refused before any plan.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_BATCH_ITEMS } from '../../src/ops/bulk-items.js';
import { ACTION, PAGE } from '../../src/slack/ids.js';
import { OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { RESPONSE_URL, type SlackCall } from '../harness/fake-slack.js';
import {
  blockKitProblems,
  blocksOf,
  buttonValues,
  press,
  readable,
  type SandboxAgent,
  sandboxAgents,
  sandboxNumbers,
  shownText,
  waitUntil,
} from './support.js';

let t: TestApp;
let agent: SandboxAgent;
let numbers: string[];

beforeAll(async () => {
  t = await startTestApp({ sandboxNumbersPerRegion: 100, sandboxSeed: { agents: 1, numbers: MAX_BATCH_ITEMS + 1 } });
  [agent] = (await sandboxAgents(t)) as [SandboxAgent];
  numbers = (await sandboxNumbers(t)).map((entry) => entry.number);
});
afterAll(async () => {
  const sent = t?.slack.calls().filter((call) => call.method === RESPONSE_URL || call.method === 'chat.postMessage');
  const problems = (sent ?? []).flatMap(blockKitProblems);
  await t?.close();
  expect(problems).toEqual([]);
});

it('refuses a filter that picks more than a plan holds, saying how many it picked', async () => {
  const sent = await t.command(`map unrouted to ${agent.id}`, OPERATOR);
  const refused = shownText(await t.respondedTo(sent.responseUrlId));
  expect(refused).toContain(`${MAX_BATCH_ITEMS + 1} numbers match, and a plan holds at most ${MAX_BATCH_ITEMS}`);
});

it('plans 1,000 numbers a page at a time, each on one page, and applies them', async () => {
  // One number routed first, so that the numbers routing nowhere are exactly as many as a plan holds.
  const last = numbers.at(-1) ?? '';
  const single = await t.command(`map ${last} ${agent.id}`, OPERATOR);
  await waitUntil(async () => shownText(await t.respondedTo(single.responseUrlId)).includes('Routed'), 'the map');
  await t.settled();

  const first = await t.respondedTo((await t.command(`map unrouted to ${agent.id}`, OPERATOR)).responseUrlId);
  expect(shownText(first)).toContain(`${MAX_BATCH_ITEMS.toLocaleString('en-US')} numbers to route`);
  const listed: string[] = [];
  let page: SlackCall = first;
  for (;;) {
    listed.push(...[...readable(blocksOf(page)).matchAll(/\*(\+\d+)\*: route/g)].map((match) => match[1] ?? ''));
    const [next] = buttonValues(blocksOf(page), PAGE.batch.next);
    if (!next) break;
    page = await t.respondedTo((await press(t, OPERATOR, PAGE.batch.next, next)).responseUrlId);
  }
  expect(listed).toHaveLength(MAX_BATCH_ITEMS);
  expect(new Set(listed)).toEqual(new Set(numbers.slice(0, -1)));

  const [batchId] = buttonValues(blocksOf(page), ACTION.confirmBatch);
  const applied = await press(t, OPERATOR, ACTION.confirmBatch, batchId ?? '');
  await waitUntil(
    () =>
      t.slack
        .calls(RESPONSE_URL)
        .some((call) => call.responseUrlId === applied.responseUrlId && /Routed/.test(shownText(call))),
    'the batch to end',
    60_000,
  );
  await t.settled();
  expect(t.sandbox.requestCount('mapNumber')).toBe(MAX_BATCH_ITEMS + 1);
});
