// The Workflows panel in Chromium: a newcomer runs Voice Ops' Workflow Builder steps without a paid Slack workspace.
// The "New store line" of docs/workflows.md, step by step: an agent created (its token shown privately, never in the
// step's outputs), a number bought on the plan's Confirm in Messages, the number routed to the agent. The panel offers
// every step the manifest declares, with its inputs.
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OPERATOR } from '../../src/playground/people.js';
import { PLAYGROUND_STEPS } from '../../src/playground/workflows.js';
import { eventually, noBrowser, person, usePlaygroundInChromium } from './in-chromium.js';
import type { TestPlayground } from './support.js';

let t: TestPlayground;
let page: Page;

describe('the Workflows panel', () => {
  it('offers every step the manifest declares, with the inputs a builder sets (who runs it, and where, aside)', async () => {
    const manifest = parse(await readFile('manifest.yml', 'utf8')) as {
      functions: Record<string, { title: string; input_parameters: { properties: Record<string, unknown> } }>;
    };
    const declared = Object.entries(manifest.functions).map(([callbackId, step]) => ({
      callbackId,
      title: step.title,
      inputs: Object.keys(step.input_parameters.properties).filter(
        (name) => !['user_id', 'interactivity', 'channel_id'].includes(name),
      ),
    }));
    const offered = PLAYGROUND_STEPS.map((step) => ({
      callbackId: step.callbackId,
      title: step.title,
      inputs: step.inputs.map((input) => input.name),
    }));
    expect(offered).toEqual(expect.arrayContaining(declared));
    expect(offered).toHaveLength(declared.length);
  });
});

describe.skipIf(noBrowser)('the Workflows panel, in Chromium', { timeout: 180_000 }, () => {
  const bed = usePlaygroundInChromium();
  beforeAll(() => {
    ({ page, t } = bed);
  });

  it('runs a new store line: create an agent, buy a number on Confirm, route it to the agent', async () => {
    const you = person(page, t.url);
    await you.openAs(OPERATOR.id);
    await page.getByRole('tab', { name: 'Workflows' }).click();
    const runs = page.getByRole('list', { name: 'Steps you ran' });
    const lastRun = () => runs.getByRole('listitem').first().innerText();

    const create = page.getByRole('form', { name: 'Create an AI agent' });
    await create.getByLabel('Name').fill('Berlin store');
    await create.getByLabel('Language').fill('de-DE');
    await create.getByRole('button', { name: 'Run Create an AI agent' }).click();
    await eventually(lastRun).toMatch(/Completed · agent_id: agt_\w+/);
    const agentId = /agent_id: (agt_\w+)/.exec(await lastRun())?.[1] ?? '';
    expect(await lastRun()).not.toMatch(/atk_/);

    const buy = page.getByRole('form', { name: 'Buy numbers' });
    await buy.getByLabel('Region').fill('DE');
    await buy.getByLabel('Count').fill('1');
    await buy.getByRole('button', { name: 'Run Buy numbers' }).click();
    await eventually(lastRun).toContain('Running');

    await page.getByRole('tab', { name: 'Messages' }).click();
    const plan = you.message('A workflow you ran asks for this');
    await plan.getByRole('button', { name: 'Buy 1 number', exact: true }).click();
    await you.message('Bought 1 of 1 number').waitFor();

    await page.getByRole('tab', { name: 'Workflows' }).click();
    await eventually(lastRun).toMatch(/Completed · numbers: \+49\d+ · count: 1/);
    const number = /numbers: (\+49\d+)/.exec(await lastRun())?.[1] ?? '';

    const route = page.getByRole('form', { name: 'Route numbers to an agent' });
    await route.getByLabel('Numbers').fill(number);
    await route.getByLabel('Agent id').fill(agentId);
    await route.getByRole('button', { name: 'Run Route numbers to an agent' }).click();
    await page.getByRole('tab', { name: 'Messages' }).click();
    const routePlan = you.message(/A workflow you ran asks for this[\s\S]*Apply to 1 number/);
    await routePlan.getByRole('button', { name: 'Apply to 1 number', exact: true }).click();
    await you.message('Routed 1 of 1 number').waitFor();
    await page.getByRole('tab', { name: 'Workflows' }).click();
    await eventually(lastRun).toContain(`Completed · numbers: ${number} · count: 1`);
    expect(await page.getByRole('region', { name: 'Refused by Slack' }).isVisible()).toBe(false);
  });
});
