// The second hour, in Chromium, as a person meets it on a playground with numbers and an agent: a routing pasted with
// six faulty lines is fixed in one round (the form stays open with the text and every problem), the export pasted
// back through the plan form plans nothing to change, and a slip of a command word is answered with the command meant.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR, OPS_CHANNEL } from '../../src/playground/people.js';
import { eventually, noBrowser, person, usePlaygroundInChromium } from './in-chromium.js';
import type { TestPlayground } from './support.js';

const AGENT = 'Hamburg desk';
const TEXT_LABEL = 'Routing, one NUMBER AGENT_ID a line';

let t: TestPlayground;
let page: Page;
let you: ReturnType<typeof person>;
let agentId = '';
const bought: string[] = [];

describe.skipIf(noBrowser)('the second hour, in Chromium', { timeout: 180_000 }, () => {
  const bed = usePlaygroundInChromium();
  beforeAll(() => {
    ({ page, t } = bed);
  });

  it('starts from an agent made by command and two numbers bought by their buttons', async () => {
    you = person(page, t.url);
    await you.openAs(OPERATOR.id);
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    await you.type(`/voice agents create "${AGENT}" de-DE`);
    const created = you.message(`Created agent ${AGENT}`);
    await created.waitFor();
    agentId = /agt_\w+/.exec(await created.innerText())?.[0] ?? '';
    await you.type('/voice numbers search DE');
    const results = you.message('Available numbers in Germany (DE)');
    for (let index = 0; index < 2; index += 1) {
      await results.getByRole('button', { name: 'Buy', exact: true }).first().click();
      const prompt = you.message('This spends money on the provider account.');
      const number = /Buy (\+49\d+)\./.exec(await prompt.innerText())?.[1] ?? '';
      await prompt.getByRole('button', { name: 'Buy', exact: true }).click();
      await you.message(`Bought ${number}`).waitFor();
      bought.push(number);
    }
    expect(agentId).toMatch(/^agt_/);
    expect(new Set(bought).size).toBe(2);
  });

  /** Opens `/voice plan` and sends `text` from its form; resolves with the form, which may stay open. */
  async function sendPlan(text: string) {
    await you.type('/voice plan');
    const form = page.getByRole('dialog', { name: 'Plan routing' });
    await form.getByLabel(TEXT_LABEL, { exact: true }).fill(text);
    await form.getByRole('button', { name: 'Plan', exact: true }).click();
    return form;
  }

  it('fixes a routing with six faulty lines in one round: the form keeps the text and shows every problem', async () => {
    const [first = '', second = ''] = bought;
    const faulty = [
      `${first} ${agentId}`,
      'call-me agt_x',
      `+1 (202) 555-0199 ${agentId}`,
      `030 1234567 ${agentId}`,
      `${second} agt_nobody`,
      `${first} ${agentId}`,
      `+49 123 ${agentId}`,
    ].join('\n');
    let rounds = 1;
    const form = await sendPlan(faulty);
    await eventually(() => form.innerText()).toContain('Fix these 6 problems');
    const shown = await form.innerText();
    for (const problem of [
      '"call-me" is not a phone number',
      '+12025550199 is not one of your numbers',
      '"030 1234567" needs its country code',
      'no agent is named "agt_nobody"',
      `${first} is listed twice (first on line 1)`,
      '"+49 123" is too short',
    ]) {
      expect(shown).toContain(problem);
    }
    const box = form.getByLabel(TEXT_LABEL, { exact: true });
    expect(await box.inputValue()).toBe(faulty);

    // Fixed in place, every line at once, and sent again.
    await box.fill([`${first} ${agentId}`, `${second} ${agentId}`].join('\n'));
    rounds += 1;
    await form.getByRole('button', { name: 'Plan', exact: true }).click();
    await eventually(() => page.getByRole('dialog').count()).toBe(0);
    const plan = you.message('Apply to 2 numbers');
    expect(await plan.innerText()).toContain('2 numbers to route');
    await plan.getByRole('button', { name: 'Apply to 2 numbers', exact: true }).click();
    await you.message('Routed 2 of 2 numbers').waitFor();
    expect(rounds).toBe(2);
  });

  it('pastes what the export shows back through the plan form, and the plan has nothing to change', async () => {
    await you.type('/voice export');
    const exported = you.message('2 numbers routed');
    await exported.waitFor();
    const copied = await exported.locator('pre').innerText();
    expect(copied.split('\n').filter((line) => !line.startsWith('#'))).toHaveLength(2);
    await sendPlan(copied);
    await eventually(() => page.getByRole('dialog').count()).toBe(0);
    await you.message('nothing to change').waitFor();
  });

  it('answers a slip of a command word with the command meant, and lists or changes nothing', async () => {
    const messages = page.locator('#messages').getByRole('listitem');
    await you.type('/voice numbers by DE 1');
    const answer = you.message('Did you mean');
    await answer.waitFor();
    expect(await answer.innerText()).toContain('/voice numbers buy DE 1');
    expect(await answer.innerText()).toContain('Nothing was listed or changed');
    const shown = await messages.count();
    await you.type('/voice agents creat Kiel de-DE');
    await eventually(() => messages.count()).toBeGreaterThan(shown);
    await eventually(() => you.message('Did you mean').innerText()).toContain('/voice agents create Kiel de-DE');
    await page.getByRole('tab', { name: 'Home' }).click();
    expect(await page.getByRole('tabpanel').innerText()).not.toContain('Kiel');
  });
});
