// For random sequences of buys, maps, re-routes, releases, batches, Undos and changes made outside Voice Ops (through
// the sandbox), `/voice export as of T` at any past T gives the routes `/voice export` showed at T. Each sequence is
// drawn from a seed, so that a failure names the seed that makes it again.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ProviderClient } from '../../src/provider/index.js';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, type TestApp, VIEWER } from '../harness/app.js';
import type { SlackCall } from '../harness/fake-slack.js';
import {
  applyPlan,
  blocksOf,
  buttonValues,
  confirmAs,
  copiedCodeBlock,
  hasElement,
  onlyButton,
  press,
  rowsOf,
  type SandboxAgent,
  startSeededApp,
  voiceNumber,
} from './support.js';

const SEEDS = [1, 7, 42];
const STEPS = 10;

let t: TestApp;
let agents: SandboxAgent[];
let outside: ProviderClient;
/** The app's clock runs a minute ahead for each step, so that every step has a moment of its own. */
let offset = 0;
const now = () => new Date(Date.now() + offset);

beforeAll(async () => {
  ({ t, agents } = await startSeededApp({ agents: 3, numbers: 3, routed: 0 }, { now }));
  outside = new ProviderClient({ baseUrl: t.sandbox.url, apiKey: t.sandbox.apiKey, timeoutMs: 2_000 });
  // The reconciler's first read is its baseline for what changes outside.
  await t.app.reconcile();
});
afterAll(async () => {
  await outside?.close();
  await t?.close();
});

/** A small seeded generator (mulberry32), so that a sequence can be made again from its seed. */
function random(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return Math.floor((((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296) * below);
  };
}

const ask = async (text: string, user = OPERATOR): Promise<SlackCall> =>
  t.respondedTo((await t.command(text, user)).responseUrlId);

/** The route lines of an export: its `#` lines are its header. */
const routeLines = (exported: string) => exported.split('\n').filter((line) => line && !line.startsWith('#'));

/** The account's numbers, and the app's routing records. */
const owned = async () => (await outside.listPurchasedNumbers()).map((entry) => entry.number).sort();
const routed = async () =>
  new Map(
    (await rowsOf<{ phone_number: string; agent_id: string }>(t, 'SELECT phone_number, agent_id FROM routes')).map(
      (row) => [row.phone_number, row.agent_id],
    ),
  );

/** The answer to a change, confirmed when it asks: what was last shown with an Undo, if it offers one. */
async function done(answer: SlackCall, user: string): Promise<SlackCall> {
  if (!hasElement(blocksOf(answer), ACTION.confirmChange)) {
    await t.settled();
    return answer;
  }
  return confirmAs(t, user, onlyButton(blocksOf(answer), ACTION.confirmChange));
}

type Step = (pick: (below: number) => number, undoable: SlackCall[]) => Promise<void>;

const STEP_KINDS: Record<string, Step> = {
  async map(pick, undoable) {
    const numbers = await owned();
    const number = numbers[pick(numbers.length)];
    const agent = agents[pick(agents.length)];
    if (!number || !agent) return;
    const shown = await done(await ask(`map ${number} ${agent.id}`), OPERATOR);
    if (buttonValues(blocksOf(shown), ACTION.undoChange).length) undoable.push(shown);
  },
  async batch(pick, undoable) {
    const agent = agents[pick(agents.length)];
    const from = agents[pick(agents.length)];
    if (!agent || !from) return;
    const filter = pick(2) === 0 ? 'unrouted' : `agent ${from.id}`;
    const plan = await ask(`map ${filter} to ${agent.id}`);
    if (!hasElement(blocksOf(plan), ACTION.confirmBatch)) return;
    const result = await applyPlan(t, plan);
    if (buttonValues(blocksOf(result), ACTION.undoChange).length) undoable.push(result);
  },
  async buy(pick) {
    const number = await voiceNumber(t, 'US', 3 + pick(20));
    if ((await owned()).includes(number)) return;
    await done(await ask(`numbers buy ${number}`), OPERATOR);
  },
  async release(pick) {
    const numbers = await owned();
    const number = numbers[pick(numbers.length)];
    if (number) await done(await ask(`numbers release ${number}`, ADMIN), ADMIN);
  },
  async undo(pick, undoable) {
    const [shown] = undoable.splice(pick(undoable.length), 1);
    if (!shown) return;
    const plan = await t.respondedTo(
      (await press(t, ADMIN, ACTION.undoChange, onlyButton(blocksOf(shown), ACTION.undoChange))).responseUrlId,
    );
    if (hasElement(blocksOf(plan), ACTION.confirmBatch)) await applyPlan(t, plan, ADMIN);
  },
  async outside(pick) {
    // Someone with the provider's key releases a number, or buys one, in its dashboard; the reconciler notices.
    const numbers = await outside.listPurchasedNumbers();
    const number = numbers[pick(numbers.length)];
    if (pick(2) === 0 && number) await outside.releaseNumber(number.id);
    else await outside.buyNumber(await voiceNumber(t, 'US', 25 + pick(20)));
    await t.app.reconcile();
    await t.settled();
  },
};

it('rebuilds, at every past moment of random sequences, the routes `/voice export` showed then', async () => {
  const shown: { at: Date; lines: string[]; seed: number; step: string; kind: string }[] = [];
  for (const seed of SEEDS) {
    const pick = random(seed);
    const undoable: SlackCall[] = [];
    const kinds = Object.keys(STEP_KINDS);
    for (let index = 0; index < STEPS; index++) {
      offset += 60_000;
      const step = kinds[pick(kinds.length)] ?? 'map';
      await STEP_KINDS[step]?.(pick, undoable);
      // The export now, and the moment it shows, before the clock moves on.
      const lines = routeLines(copiedCodeBlock(await ask('export', VIEWER)));
      expect(lines.length, `seed ${seed}, step ${index} (${step})`).toBe((await routed()).size);
      shown.push({ at: now(), lines, seed, step: `${index} (${step})`, kind: step });
    }
  }
  // The sequences drawn do move routes, through most kinds of step.
  expect(new Set(shown.map((then) => then.kind)).size).toBeGreaterThanOrEqual(5);
  expect(Math.max(...shown.map((then) => then.lines.length))).toBeGreaterThan(1);
  expect(new Set(shown.map((then) => then.lines.join('\n'))).size).toBeGreaterThan(5);
  offset += 60_000;
  for (const then of shown) {
    const rebuilt = routeLines(copiedCodeBlock(await ask(`export as of ${then.at.toISOString()}`, VIEWER)));
    expect(rebuilt, `seed ${then.seed}, after step ${then.step}`).toEqual(then.lines);
  }
});
