// Routing as text: `/voice export` gives today's routing (as text, or as a file when long), and `/voice plan` reads a
// routing back, pasted or uploaded, as a plan: routes to add, re-routes, lines already true, and each line's error;
// a plan with errors cannot be applied, one without is applied on one confirmation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { OPERATOR, OPS_CHANNEL, type TestApp, VIEWER } from '../harness/app.js';
import type { SlackCall } from '../harness/fake-slack.js';
import { selectInput, textInput } from '../harness/payloads.js';
import {
  blocksOf,
  buttonValues,
  hasElement,
  onlyButton,
  press,
  readable,
  type SandboxAgent,
  type SandboxNumber,
  type SentView,
  shownText,
  startSeededApp,
  viewOf,
  waitUntil,
} from './support.js';

const NUMBERS = 140;
const ROUTED = 120;

let t: TestApp;
let numbers: SandboxNumber[];
/** The app's routing records, as the tests change them: number → agent id. */
let routes: Map<string, string>;
let agent: (index: number) => SandboxAgent;

beforeAll(async () => {
  ({ t, numbers, routes, agent } = await startSeededApp({ agents: 3, numbers: NUMBERS, routed: ROUTED }));
});
afterAll(() => t?.close());

/** Opens `/voice plan` and submits it with pasted text or an uploaded file; resolves with the submission's answer. */
async function submitPlan(input: { text?: string; file?: { name: string; content: string } }) {
  const since = t.slack.mark();
  const sent = await t.command('plan', OPERATOR);
  const opened = viewOf(
    await t.slack.waitFor('views.open', (call) => call.body.trigger_id === sent.triggerId, { since }),
  );
  expect(opened.callback_id).toBe(CALLBACK.routingPlan);
  const file = input.file && t.slack.addFile(input.file.name, input.file.content);
  const answer = await t.submit({
    userId: OPERATOR,
    callbackId: CALLBACK.routingPlan,
    privateMetadata: opened.private_metadata,
    stateValues: {
      [INPUT.routingText.block]: { [INPUT.routingText.action]: textInput(input.text ?? null) },
      [INPUT.routingFile.block]: { [INPUT.routingFile.action]: { type: 'file_input', files: file ? [file] : [] } },
    },
  });
  return { answer, since };
}

/** Plans made so far: a text at fault makes none. */
async function batchCount(): Promise<number> {
  const row = await (await t.database.sql()).get<{ n: number | string }>('SELECT COUNT(*) AS n FROM batches');
  return Number(row?.n);
}

/** The text a form's routing box starts with. */
function initialText(view: SentView): string | undefined {
  const block = view.blocks.find((candidate) => candidate.block_id === INPUT.routingText.block);
  return (block?.element as { initial_value?: string } | undefined)?.initial_value;
}

/** The plan (or its errors) posted privately to the person after the form closed. */
async function postedPlan(since: number): Promise<SlackCall> {
  return t.slack.waitFor(
    'chat.postEphemeral',
    (call) => call.body.user === OPERATOR && /Plan|plan has/.test(shownText(call)),
    { since },
  );
}

/** `+1 (415) 555-0100`: a number the way people write it. */
function written(number: string): string {
  return number.startsWith('+1') ? `+1 (${number.slice(2, 5)}) ${number.slice(5, 8)}-${number.slice(8)}` : number;
}

describe('/voice export', () => {
  it('gives a long routing as a file in the person’s direct messages, one NUMBER AGENT_ID a line', async () => {
    const sent = await t.command('export', VIEWER);
    const answer = await t.respondedTo(sent.responseUrlId);
    expect(shownText(answer)).toContain(`${ROUTED} numbers routed, ${NUMBERS - ROUTED} routing nowhere`);
    await waitUntil(() => t.slack.uploadedFiles().length > 0, 'the export to be uploaded');
    const [file] = t.slack.uploadedFiles();
    expect(file?.channel).toBe(`D${VIEWER}`);
    const lines = (file?.content ?? '').split('\n').filter((line) => !line.startsWith('#'));
    expect(lines).toHaveLength(ROUTED);
    for (const [number, agentId] of routes)
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\${number} ${agentId}  # `)));
  });
});

describe('/voice export, short enough to show', () => {
  it('shows one route a line, and what Slack shows, pasted into /voice plan, plans nothing to change', async () => {
    const small = await startSeededApp({ agents: 2, numbers: 5, routed: 3 });
    try {
      const sent = await small.t.command('export', VIEWER);
      const shown = blocksOf(await small.t.respondedTo(sent.responseUrlId))
        .map((block) => block.text?.text ?? '')
        .join('\n');
      // What a person copies out of the code block: its lines, with Slack's entities read as the characters.
      const copied = (/```([\s\S]*)```/.exec(shown)?.[1] ?? '')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&');
      const lines = copied.split('\n');
      // A viewer may not run the plan, so she is not told to.
      expect(shown).toContain('An operator can paste an edited copy into');
      expect(shown).not.toContain('Edit it and paste it');
      expect(lines.filter((line) => !line.startsWith('#'))).toHaveLength(3);
      for (const [number, agentId] of small.routes)
        expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\${number} ${agentId}  # `)));

      const opened = await small.t.command('plan', OPERATOR);
      const since = small.t.slack.mark();
      const view = viewOf(
        await small.t.slack.waitFor('views.open', (call) => call.body.trigger_id === opened.triggerId),
      );
      await small.t.submit({
        userId: OPERATOR,
        callbackId: CALLBACK.routingPlan,
        privateMetadata: view.private_metadata,
        stateValues: {
          [INPUT.routingText.block]: { [INPUT.routingText.action]: textInput(copied) },
          [INPUT.routingFile.block]: { [INPUT.routingFile.action]: { type: 'file_input', files: [] } },
        },
      });
      const planned = await small.t.slack.waitFor(
        'chat.postEphemeral',
        (call) => call.body.user === OPERATOR && /nothing to change|Plan|plan has/.test(shownText(call)),
        { since },
      );
      expect(shownText(planned)).toContain('nothing to change');
    } finally {
      await small.t.close();
    }
  });
});

describe('/voice plan', () => {
  it('shows every problem in the form at once, the lines it cannot read and the account’s errors, with the text kept', async () => {
    const mine = numbers[0]?.number ?? '';
    const text = [
      `${written(mine)} ${agent(1).id}`,
      'call-me agt_x',
      `+1 (202) 555-0199 ${agent(0).id}  # not ours`,
      '030 1234567 agt_y',
      `${numbers[1]?.number} agt_nobody`,
      `${written(mine)} ${agent(2).id}`,
      '+49 123 agt_z',
    ].join('\n');
    const batches = await batchCount();
    const { answer, since } = await submitPlan({ text });
    expect(answer.json).toMatchObject({ response_action: 'update' });
    const form = (answer.json as { view: SentView }).view;
    expect(form.callback_id).toBe(CALLBACK.routingPlan);
    const shown = readable(form.blocks);
    expect(shown).toContain('Fix these 6 problems');
    expect(shown).toContain('line 2 `call-me agt_x`: "call-me" is not a phone number');
    expect(shown).toContain('+12025550199 is not one of your numbers');
    expect(shown).toContain('line 4 `030 1234567 agt_y`: "030 1234567" needs its country code');
    expect(shown).toContain('no agent is named "agt_nobody"');
    expect(shown).toContain(`${mine} is listed twice (first on line 1)`);
    expect(shown).toContain('"+49 123" is too short');
    expect(initialText(form)).toBe(text);
    expect(await batchCount()).toBe(batches);
    await t.settled();
    expect(
      t.slack
        .calls()
        .slice(since)
        .filter((call) => call.method === 'chat.postEphemeral'),
    ).toEqual([]);
  });

  it('a text with exactly one line at fault is no plan either: the form says so, nothing can be applied', async () => {
    const text = [`${numbers[2]?.number} ${agent(1).id}`, `${numbers[3]?.number} agt_nobody`].join('\n');
    const { answer } = await submitPlan({ text });
    const shown = readable((answer.json as { view: SentView }).view.blocks);
    expect(shown).toContain('Fix this, then press Plan again');
    expect(shown).toContain('line 2');
    expect(shown).toContain('no agent is named "agt_nobody"');
  });

  it('an uploaded file at fault keeps the form open, saying to fix the file', async () => {
    const content = [`${numbers[2]?.number} ${agent(1).id}`, `${numbers[3]?.number} agt_nobody`].join('\n');
    const { answer } = await submitPlan({ file: { name: 'routing.txt', content } });
    const shown = readable((answer.json as { view: SentView }).view.blocks);
    expect(shown).toContain('Fix the file and upload it again');
    expect(shown).toContain('no agent is named "agt_nobody"');
  });

  it('asks for the text or a file, not both, and plans nothing', async () => {
    const { answer } = await submitPlan({
      text: `${numbers[2]?.number} ${agent(1).id}`,
      file: { name: 'routing.txt', content: `${numbers[3]?.number} ${agent(1).id}` },
    });
    expect(answer.json).toMatchObject({
      response_action: 'errors',
      errors: { [INPUT.routingText.block]: expect.stringContaining('not both') },
    });
  });

  it('a provider answering nonsense keeps the form open with the text, to press Plan again', async () => {
    t.sandbox.faults.inject('listAgents', { type: 'malformed_json' });
    const text = `${numbers[2]?.number} ${agent(1).id}`;
    try {
      const { answer } = await submitPlan({ text });
      expect(answer.json).toMatchObject({ response_action: 'update' });
      const form = (answer.json as { view: SentView }).view;
      expect(readable(form.blocks)).toContain('could not be checked just now: press Plan again');
      expect(readable(form.blocks)).not.toContain('Fix this');
      expect(initialText(form)).toBe(text);
    } finally {
      t.sandbox.faults.clear();
    }
  });

  it('a check slower than Slack waits updates the form after: it waits, then shows every problem', async () => {
    t.sandbox.faults.inject('listAgents', { type: 'hold' });
    const text = `${numbers[2]?.number} agt_nobody`;
    try {
      const { answer, since } = await submitPlan({ text });
      expect(answer.json).toMatchObject({ response_action: 'update' });
      expect(readable((answer.json as { view: SentView }).view.blocks)).toContain('Loading');
      t.sandbox.faults.clear();
      const updated = viewOf(await t.slack.waitFor('views.update', () => true, { since }));
      expect(readable(updated.blocks)).toContain('no agent is named "agt_nobody"');
      expect(initialText(updated)).toBe(text);
    } finally {
      t.sandbox.faults.clear();
    }
  });

  it('plans routes to add, re-routes and lines already true from an uploaded file, and applies them once', async () => {
    const unrouted = numbers.slice(ROUTED, ROUTED + 2).map((entry) => entry.number);
    const moved = numbers[3]?.number ?? '';
    const kept = numbers[4]?.number ?? '';
    const target = agent(0).id === routes.get(moved) ? agent(1) : agent(0);
    const content = [
      '# desired routing',
      ...unrouted.map((number) => `${written(number)} ${agent(2).id}`),
      `${moved} ${target.id}`,
      `${kept} ${routes.get(kept)}  # unchanged`,
    ].join('\r\n');
    const before = t.sandbox.requestCount('mapNumber');
    const reads = () => [t.sandbox.requestCount('listPurchasedNumbers'), t.sandbox.requestCount('listAgents')];
    const readBefore = reads();
    const { answer, since } = await submitPlan({ file: { name: 'routing.txt', content } });
    expect(answer.json).toMatchObject({ response_action: 'clear' });
    const posted = await postedPlan(since);
    // The text is checked and planned on one reading of the account's lists.
    expect(reads().map((count, index) => count - (readBefore[index] ?? 0))).toEqual([1, 1]);
    const shown = readable(blocksOf(posted));
    expect(shown).toContain('3 numbers to route');
    expect(shown).toContain('1 re-routed from another agent');
    expect(shown).toContain('1 already routed there (unchanged)');
    const pressed = await press(t, OPERATOR, ACTION.confirmBatch, onlyButton(blocksOf(posted), ACTION.confirmBatch));
    await waitUntil(
      () =>
        t.slack
          .calls()
          .some((call) => call.responseUrlId === pressed.responseUrlId && shownText(call).includes('Routed 3 of 3')),
      'the plan to be applied',
    );
    await t.settled();
    expect(t.sandbox.requestCount('mapNumber') - before).toBe(3);
    for (const number of unrouted) routes.set(number, agent(2).id);
    routes.set(moved, target.id);
    const listed = shownText(
      await t.respondedTo((await t.command(`numbers agent ${target.id}`, VIEWER)).responseUrlId),
    );
    expect(listed).toContain(moved);
  });

  it('is for operators: a viewer is refused before the form opens', async () => {
    const sent = await t.command('plan', VIEWER, { channelId: OPS_CHANNEL });
    expect(shownText(await t.respondedTo(sent.responseUrlId))).toContain('You need the operator role');
  });
});

describe('the Home tab', () => {
  it('offers the bulk tools where its numbers are: the numbers its filter shows are mapped to one agent, as a plan', async () => {
    const mark = t.slack.mark();
    await t.homeOpened(OPERATOR);
    const home = await t.slack.waitFor('views.publish', (call) => call.body.user_id === OPERATOR, { since: mark });
    expect(buttonValues(viewOf(home).blocks, ACTION.planRouting)).toHaveLength(1);
    expect(buttonValues(viewOf(home).blocks, ACTION.exportRouting)).toHaveLength(1);
    const at = t.slack.mark();
    await t.action({
      userId: OPERATOR,
      actionId: ACTION.homeNumbersFilter,
      selectedOption: { text: 'Not routed', value: JSON.stringify({ routed: false }) },
      container: { type: 'view', viewId: 'VHOMEOP', viewType: 'home', privateMetadata: viewOf(home).private_metadata },
    });
    const filtered = await t.slack.waitFor('views.publish', (call) => call.body.user_id === OPERATOR, { since: at });
    const unrouted = numbers.filter((entry) => !routes.has(entry.number));
    const pressed = await t.action({
      userId: OPERATOR,
      actionId: ACTION.mapFiltered,
      value: onlyButton(viewOf(filtered).blocks, ACTION.mapFiltered),
      container: {
        type: 'view',
        viewId: 'VHOMEOP',
        viewType: 'home',
        privateMetadata: viewOf(filtered).private_metadata,
      },
    });
    const form = viewOf(await t.slack.waitFor('views.open', (call) => call.body.trigger_id === pressed.triggerId));
    expect(form.callback_id).toBe(CALLBACK.bulkMap);
    expect(JSON.stringify(form.blocks)).toContain('not routed');
    const since = t.slack.mark();
    const answer = await t.submit({
      userId: OPERATOR,
      callbackId: CALLBACK.bulkMap,
      privateMetadata: form.private_metadata,
      stateValues: { [INPUT.mapAgent.block]: { [INPUT.mapAgent.action]: selectInput(agent(1).id, agent(1).name) } },
    });
    expect(answer.json).toMatchObject({ response_action: 'clear' });
    // From the Home tab there is no channel: the plan comes in the person's direct messages with the app.
    const plan = await t.slack.waitFor('chat.postMessage', (call) => call.body.channel === OPERATOR, { since });
    expect(shownText(plan)).toContain(`${unrouted.length} numbers to route`);
    expect(hasElement(blocksOf(plan), ACTION.confirmBatch)).toBe(true);
  });
});
