// The Workflows panel in Chromium chains Voice Ops' steps as Workflow Builder does: the ready-made "New store line" of
// docs/workflows.md runs end to end, each step's outputs feeding the next step's inputs, no id copied by hand; the
// agent's token goes where the panel says and nowhere else. A step that fails stops the workflow, saying where and why.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR, OPS_CHANNEL } from '../../src/playground/people.js';
import { sandboxAgents, sandboxNumbers, sandboxRequest } from '../e2e/support.js';
import { eventually, noBrowser, person, usePlaygroundInChromium } from './in-chromium.js';
import type { TestPlayground } from './support.js';

let t: TestPlayground;
let page: Page;

const AGENT_TOKEN = /atk_[0-9a-f]{32}/;

/** The playground's sandbox, through its own HTTP API. */
function sandbox() {
  const running = t.playground.app.sandbox;
  if (!running) throw new Error('the playground runs no sandbox');
  return { sandbox: running };
}

describe.skipIf(noBrowser)('the Workflows panel, in Chromium', { timeout: 180_000 }, () => {
  const bed = usePlaygroundInChromium();
  beforeAll(() => {
    ({ page, t } = bed);
  });

  const lastRun = () => page.getByRole('list', { name: 'Workflows you ran' }).getByRole('listitem').first().innerText();
  const workflows = () => page.getByRole('tab', { name: 'Workflows' }).click();
  const messages = () => page.getByRole('tab', { name: 'Messages' }).click();

  it('runs "New store line" end to end: an agent created, a number bought and routed to it, no id copied', async () => {
    const you = person(page, t.url);
    await you.openAs(OPERATOR.id);
    await workflows();
    await page.getByRole('button', { name: 'New store line' }).click();
    const route = page.getByRole('group', { name: 'Step 3: Route numbers to an agent' });
    expect(await route.getByRole('combobox', { name: 'Numbers comes from' }).inputValue()).toBe('2:numbers');
    expect(await route.getByRole('combobox', { name: 'Agent id comes from' }).inputValue()).toBe('1:agent_id');
    const create = page.getByRole('group', { name: 'Step 1: Create an AI agent' });
    expect(await create.innerText()).toContain(
      "The agent's token comes to you alone, in a message only you see in #voice-ops",
    );
    await page.getByRole('button', { name: 'Run workflow' }).click();

    await eventually(lastRun).toMatch(/1\. Create an AI agent[\s\S]*Completed · Agent id: agt_\w+/);
    const agentId = /Agent id: (agt_\w+)/.exec(await lastRun())?.[1] ?? '';
    await eventually(lastRun).toContain('Running step 2 of 3.');
    await messages();
    await you
      .message('A workflow you ran asks for this')
      .getByRole('button', { name: 'Buy 1 number', exact: true })
      .click();
    await you.message('Bought 1 of 1 number').waitFor();

    // Step 3 starts with step 2's numbers and step 1's agent, and sends its plan.
    const routePlan = you.message(/A workflow you ran asks for this[\s\S]*Apply to 1 number/);
    await routePlan.getByRole('button', { name: 'Apply to 1 number', exact: true }).click();
    await you.message('Routed 1 of 1 number').waitFor();
    await workflows();
    await eventually(lastRun).toContain('Completed: every step ran.');
    const run = await lastRun();
    const number = /Numbers bought: (\+49\d+)/.exec(run)?.[1] ?? '';
    expect(run).toContain(`3. Route numbers to an agent\nNumbers: ${number} · Agent id: ${agentId}`);
    expect(run).toContain(`Completed · Numbers routed: ${number} · Count routed: 1`);
    expect(run).not.toMatch(AGENT_TOKEN);

    // Slack's part: one workflow execution, each step started with the outputs of those before it.
    const steps = t.playground.slack.functions.all();
    expect(steps.map((step) => step.callbackId)).toEqual(['create_agent', 'buy_numbers', 'route_numbers']);
    expect(new Set(steps.map((step) => step.workflowExecutionId)).size).toBe(1);
    expect(steps[2]?.inputs).toMatchObject({ numbers: number, agent_id: agentId });

    // The sandbox holds the agent and the number, and refuses to delete an agent a number routes to, naming it.
    expect(await sandboxAgents(sandbox())).toContainEqual(
      expect.objectContaining({ id: agentId, name: 'Berlin store' }),
    );
    expect((await sandboxNumbers(sandbox())).map((owned) => owned.number)).toEqual([number]);
    const deleting = await sandboxRequest(sandbox(), 'DELETE', `/ai-agents/${agentId}`);
    expect(deleting.status).toBe(409);
    expect(JSON.stringify(deleting.body)).toContain(number);

    // The token went where the panel said: a message only its creator sees in #voice-ops.
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    const token = you.message(AGENT_TOKEN);
    expect(await token.innerText()).toContain('Only visible to you');
  });

  it('stops at the step whose input is malformed, naming the input and its value, and starts none after it', async () => {
    const you = person(page, t.url);
    await you.openAs(OPERATOR.id);
    const owned = await sandboxNumbers(sandbox());
    await workflows();
    const adding = page.getByRole('combobox', { name: 'Step to add' });
    await adding.selectOption({ label: 'Buy numbers' });
    await page.getByRole('button', { name: 'Add step' }).click();
    await adding.selectOption({ label: 'Route numbers to an agent' });
    await page.getByRole('button', { name: 'Add step' }).click();
    const buy = page.getByRole('group', { name: 'Step 1: Buy numbers' });
    await buy.getByLabel('Region', { exact: true }).fill('DE');
    await buy.getByLabel('Count', { exact: true }).fill('two');
    const route = page.getByRole('group', { name: 'Step 2: Route numbers to an agent' });
    await route
      .getByRole('combobox', { name: 'Numbers comes from' })
      .selectOption({ label: "Step 1's Numbers bought" });
    await route.getByLabel('Agent id', { exact: true }).fill('agt_nobody');
    await page.getByRole('button', { name: 'Run workflow' }).click();

    await eventually(lastRun).toContain(
      'Stopped at step 1, Buy numbers: The input “count”: “two” is not a count; write it in digits, e.g. 3.',
    );
    expect(await lastRun()).toMatch(/1\. Buy numbers\nRegion: DE · Count: two\nFailed/);
    expect(await lastRun()).toMatch(/2\. Route numbers to an agent\n+Not started/);
    expect(t.playground.slack.functions.all().filter((step) => step.callbackId === 'route_numbers')).toHaveLength(1);
    expect(await sandboxNumbers(sandbox())).toEqual(owned);
  });
});
