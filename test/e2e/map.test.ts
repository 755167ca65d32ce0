// Routing a purchased number to an agent: by modal and by command, re-routing only after confirmation, and the
// listings, the sandbox and the audit log all agreeing afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { selectInput } from '../harness/payloads.js';
import {
  announcedWith,
  auditRows,
  type Block,
  blocksOf,
  buyThroughApp,
  createAgentThroughApp,
  EPHEMERAL,
  hasElement,
  onlyButton,
  readable,
  respondedWith,
  type SandboxAgent,
  sandboxAvailable,
  sandboxNumbers,
  sandboxRequest,
  shownText,
  suggested,
  viewOf,
} from './support.js';

let t: TestApp;
let first: string;
let second: string;
let notForSale: string;
let alpha: SandboxAgent;
let beta: SandboxAgent;

beforeAll(async () => {
  t = await startTestApp();
  // The app keeps its own routing records, so the scene is set through the app: two numbers bought, two agents.
  const voice = (await sandboxAvailable(t, 'GB')).filter((entry) => entry.capabilities.includes('voice'));
  [first, second, notForSale] = voice.map((entry) => entry.number) as [string, string, string];
  await buyThroughApp(t, OPERATOR, first);
  await buyThroughApp(t, OPERATOR, second);
  alpha = (await createAgentThroughApp(t, OPERATOR, 'Alpha desk')).agent;
  beta = (await createAgentThroughApp(t, OPERATOR, 'Beta desk')).agent;
});
afterAll(async () => {
  await t.close();
});

/** The section of a listing that mentions `needle` (a number or an agent's bold name). */
function rowWith(blocks: Block[], needle: string): string {
  const row = blocks.map((block) => block.text?.text ?? '').find((text) => text.includes(needle));
  expect(row, `a row mentioning ${needle} in\n${readable(blocks)}`).toBeDefined();
  return row ?? '';
}

async function listing(text: 'numbers' | 'agents'): Promise<Block[]> {
  return blocksOf(await t.respondedTo((await t.command(text, OPERATOR)).responseUrlId));
}

function mapForm(number: string | null, agentId: string | null) {
  return {
    [INPUT.mapNumber.block]: { [INPUT.mapNumber.action]: selectInput(number) },
    [INPUT.mapAgent.block]: { [INPUT.mapAgent.action]: selectInput(agentId) },
  };
}

/** `/voice map`: the loading modal opened with the trigger, then the filled-in form; returns the form. */
async function openMapModal() {
  const mark = t.slack.mark();
  const sent = await t.command('map', OPERATOR);
  const opened = await t.slack.waitFor('views.open', (call) => call.body.trigger_id === sent.triggerId, {
    since: mark,
  });
  const filled = await t.slack.waitFor('views.update', (call) => viewOf(call).callback_id === CALLBACK.mapNumber, {
    since: mark,
  });
  return { opened: viewOf(opened), filled: viewOf(filled), viewId: String(filled.body.view_id) };
}

describe('the map modal', () => {
  it('opens loading at once, then becomes a form whose type-ahead pickers offer the numbers and the agents', async () => {
    const { opened, filled, viewId } = await openMapModal();
    expect(readable(opened.blocks)).toContain('Loading');
    expect(viewId).toMatch(/^V/);
    expect(filled.submit?.text).toBe('Map');
    const pickers = filled.blocks.filter((block) => block.element?.type === 'external_select');
    expect(pickers.map((block) => block.element?.action_id)).toEqual([INPUT.mapNumber.action, INPUT.mapAgent.action]);

    const numbers = await suggested(t, INPUT.mapNumber, '');
    expect(numbers.options.map((entry) => entry.value).sort()).toEqual([first, second].sort());
    expect(numbers.options[0]?.text).toMatch(/ · GB \(not routed\)$/);
    const agents = await suggested(t, INPUT.mapAgent, '');
    expect(agents.options.map((entry) => entry.value).sort()).toEqual([alpha.id, beta.id].sort());
    expect(agents.options.find((entry) => entry.value === alpha.id)?.text).toBe(`Alpha desk (${alpha.id})`);
    // What is typed narrows them: digits anywhere in the number, part of the agent's name.
    expect((await suggested(t, INPUT.mapNumber, second.slice(3, 7))).options.map((entry) => entry.value)).toEqual([
      second,
    ]);
    expect((await suggested(t, INPUT.mapAgent, 'beta')).options.map((entry) => entry.value)).toEqual([beta.id]);
  });

  it('answers a submission with nothing picked with inline errors, and routes nothing', async () => {
    const { filled } = await openMapModal();
    const mapped = t.sandbox.requestCount('mapNumber');
    const answer = await t.submit({
      userId: OPERATOR,
      callbackId: CALLBACK.mapNumber,
      privateMetadata: filled.private_metadata,
      stateValues: mapForm(null, null),
    });
    expect(answer.status).toBe(200);
    const json = answer.json as { response_action?: string; errors?: Record<string, string> };
    expect(json.response_action).toBe('errors');
    expect(Object.keys(json.errors ?? {}).sort()).toEqual([INPUT.mapAgent.block, INPUT.mapNumber.block].sort());
    expect(t.sandbox.requestCount('mapNumber')).toBe(mapped);
  });

  it('routes the picked number to the picked agent, at the sandbox and in every listing', async () => {
    const { filled, viewId } = await openMapModal();
    const mapped = t.sandbox.requestCount('mapNumber');
    const mark = t.slack.mark();

    const answer = await t.submit({
      userId: OPERATOR,
      viewId,
      callbackId: CALLBACK.mapNumber,
      privateMetadata: filled.private_metadata,
      stateValues: mapForm(first, alpha.id),
    });
    expect(answer.json).toMatchObject({ response_action: 'update' });
    const done = await t.slack.waitFor(
      'views.update',
      (call) => call.body.view_id === viewId && shownText(call).includes('Routed'),
      { since: mark },
    );
    expect(shownText(done)).toContain(first);
    expect(shownText(done)).toContain('Alpha desk');
    expect(t.sandbox.requestCount('mapNumber')).toBe(mapped + 1);

    // The sandbox holds the route: it refuses to delete an agent that a number still routes to.
    const refused = await sandboxRequest(t, 'DELETE', `/ai-agents/${alpha.id}`);
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain(first);

    expect(rowWith(await listing('numbers'), first)).toContain('Routes to *Alpha desk*');
    expect(rowWith(await listing('agents'), '*Alpha desk*')).toContain(first);
    expect(rowWith(await listing('agents'), '*Beta desk*')).not.toContain(first);

    // The operator's changes of the last minute share one message: the map is its newest line.
    const announcement = await announcedWith(t, `routed *${first}* (GB) to *Alpha desk* (\`${alpha.id}\`)`);
    expect(announcement.text).toContain(`<@${OPERATOR}>`);
    const rows = (await auditRows(t)).filter((row) => row.action === 'routing.map' && row.target === first);
    expect(rows.map((row) => [row.outcome, row.source])).toEqual([
      ['requested', 'modal'],
      ['succeeded', 'modal'],
    ]);
    expect(new Set(rows.map((row) => row.correlation_id)).size).toBe(1);
  });

  it('re-routes with `/voice map NUMBER AGENT_ID` only after a confirmation naming the old and new agent', async () => {
    const mapped = t.sandbox.requestCount('mapNumber');
    const asked = await t.command(`map ${first} ${beta.id}`, OPERATOR);
    const prompt = await t.respondedTo(asked.responseUrlId);
    const summary = shownText(prompt);
    expect(summary).toContain(first);
    expect(summary).toContain('Beta desk');
    expect(summary).toContain(beta.id);
    expect(summary).toContain('Alpha desk');
    expect(hasElement(blocksOf(prompt), ACTION.cancelChange)).toBe(true);
    expect(t.sandbox.requestCount('mapNumber'), 'nothing changes before Confirm').toBe(mapped);
    expect(rowWith(await listing('numbers'), first)).toContain('Alpha desk');

    const confirmationId = onlyButton(blocksOf(prompt), ACTION.confirmChange);
    const confirmed = await t.action({
      userId: OPERATOR,
      actionId: ACTION.confirmChange,
      value: confirmationId,
      container: EPHEMERAL,
    });
    const done = await respondedWith(t, confirmed.responseUrlId, 'Re-routed');
    expect(shownText(done)).toContain('Beta desk');
    expect(shownText(done)).toContain(`Re-routed *${first}* (GB) from *Alpha desk* (\`${alpha.id}\`) to *Beta desk*`);
    expect(t.sandbox.requestCount('mapNumber')).toBe(mapped + 1);

    expect(rowWith(await listing('numbers'), first)).toContain('Routes to *Beta desk*');
    expect(rowWith(await listing('agents'), '*Beta desk*')).toContain(first);
    expect(rowWith(await listing('agents'), '*Alpha desk*')).not.toContain(first);

    await announcedWith(
      t,
      `re-routed *${first}* (GB) from *Alpha desk* (\`${alpha.id}\`) to *Beta desk* (\`${beta.id}\`)`,
    );
    const rows = (await auditRows(t)).filter((row) => row.action === 'routing.map' && row.source !== 'modal');
    expect(rows.map((row) => row.outcome)).toEqual(['requested', 'confirmed', 'succeeded']);
    expect(new Set(rows.map((row) => row.correlation_id)).size).toBe(1);
  });

  it('says a mapping to the agent the number already routes to is unchanged', async () => {
    const mapped = t.sandbox.requestCount('mapNumber');
    const reply = await t.respondedTo((await t.command(`map ${first} ${beta.id}`, OPERATOR)).responseUrlId);
    expect(shownText(reply)).toContain('already routes to *Beta desk*');
    expect(shownText(reply)).toContain('nothing to change');
    expect(hasElement(blocksOf(reply), ACTION.confirmChange)).toBe(false);
    expect(t.sandbox.requestCount('mapNumber')).toBe(mapped);
  });

  it('refuses an unpurchased number or an unknown agent with a clear message', async () => {
    const mapped = t.sandbox.requestCount('mapNumber');
    const unbought = await t.respondedTo((await t.command(`map ${notForSale} ${alpha.id}`, OPERATOR)).responseUrlId);
    expect(shownText(unbought)).toContain(`${notForSale} is not one of your numbers`);
    expect(shownText(unbought)).toContain('buy it first');

    const unknown = await t.respondedTo((await t.command(`map ${second} agt_nosuchagent`, OPERATOR)).responseUrlId);
    expect(shownText(unknown)).toContain('No agent is named "agt_nosuchagent", and none has it as its id');

    expect(t.sandbox.requestCount('mapNumber')).toBe(mapped);
    expect((await sandboxNumbers(t)).map((entry) => entry.number)).not.toContain(notForSale);
    expect(rowWith(await listing('numbers'), second)).toContain('Not routed');
  });

  it('leaves the sandbox agreeing: the old agent is free of routes, the new one is not', async () => {
    const stillRouted = await sandboxRequest(t, 'DELETE', `/ai-agents/${beta.id}`);
    expect(stillRouted.status).toBe(409);
    const free = await sandboxRequest(t, 'DELETE', `/ai-agents/${alpha.id}`);
    expect(free).toMatchObject({ status: 200, body: { id: alpha.id, status: 'deleted' } });
  });
});
