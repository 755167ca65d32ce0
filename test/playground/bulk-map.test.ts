// A bulk map in Chromium, as a person runs it on a fresh playground: two agents created and four DE numbers bought
// through the page, one of them routed by hand, then `/voice map unrouted to AGENT_ID` typed in the composer. The
// plan lists the three unrouted numbers (not the routed one) and its totals; Apply replaces the plan with the
// result, the announcements channel gets one message for the whole batch, and Slack refused nothing it was sent.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ANNOUNCEMENTS, OPERATOR, OPS_CHANNEL } from '../../src/playground/people.js';
import { eventually, noBrowser, person, usePlaygroundInChromium } from './in-chromium.js';
import type { TestPlayground } from './support.js';

const TARGET = 'Night desk';
const OTHER = 'Day desk';
const GERMAN_NUMBER = /\+49\d+/g;

let t: TestPlayground;
let page: Page;

describe.skipIf(noBrowser)('a bulk map, in Chromium', { timeout: 180_000 }, () => {
  const bed = usePlaygroundInChromium();
  beforeAll(() => {
    ({ page, t } = bed);
  });

  /** Creates an agent by command and reads its id from what the app answers. */
  async function createAgent(you: ReturnType<typeof person>, name: string): Promise<string> {
    await you.type(`/voice agents create "${name}" de-DE`);
    const created = you.message(`Created agent ${name}`);
    await created.waitFor();
    const id = /agt_\w+/.exec(await created.innerText())?.[0] ?? '';
    expect(id, `the id of ${name}`).not.toBe('');
    return id;
  }

  it('plans every unrouted number with its totals, and Apply replaces the plan with the result', async () => {
    const you = person(page, t.url);
    await you.openAs(OPERATOR.id);
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    const target = await createAgent(you, TARGET);
    const other = await createAgent(you, OTHER);

    await you.type('/voice numbers search DE');
    const results = you.message('Available numbers in Germany (DE)');
    const bought: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      await results.getByRole('button', { name: 'Buy', exact: true }).first().click();
      const prompt = you.message('This spends money on the provider account.');
      const number = /Buy (\+49\d+)\./.exec(await prompt.innerText())?.[1] ?? '';
      expect(number).not.toBe('');
      await prompt.getByRole('button', { name: 'Buy', exact: true }).click();
      await you.message(`Bought ${number}`).waitFor();
      bought.push(number);
    }
    expect(new Set(bought).size).toBe(4);
    const [routed = '', ...unrouted] = bought;
    await you.type(`/voice map ${routed} ${other}`);
    await you.message(new RegExp(`Routed \\${routed} \\(DE\\) to ${OTHER}`)).waitFor();

    await you.type(`/voice map unrouted to ${target}`);
    // The plan is the message with Apply, whose button names how many numbers it changes.
    const applyButton = page.getByRole('button', { name: 'Apply to 3 numbers', exact: true });
    const plans = page.getByRole('listitem').filter({ has: applyButton });
    await eventually(() => plans.count()).toBe(1);
    const plan = plans.first();
    const planned = await plan.innerText();
    expect(planned).toContain(`route to ${TARGET}`);
    expect(planned).toContain('3 numbers to route');
    expect(planned).not.toContain('re-rout');
    expect(new Set(planned.match(GERMAN_NUMBER))).toEqual(new Set(unrouted));
    expect(await plan.getByRole('button', { name: 'Cancel', exact: true }).isVisible()).toBe(true);
    // Nothing is routed yet: the plan only says what Apply will do.
    await page.getByRole('tab', { name: 'Home' }).click();
    const home = page.getByRole('tabpanel');
    await eventually(() => home.innerText()).toContain(routed);
    expect(await home.innerText()).not.toContain(`Routes to ${TARGET}`);
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();

    const messages = page.locator('#messages').getByRole('listitem');
    const shown = await messages.count();
    await plan.getByRole('button', { name: 'Apply to 3 numbers', exact: true }).click();
    const result = you.message(`Routed 3 of 3 numbers to ${TARGET}`);
    await result.waitFor();
    // The result took the plan's place, the last message still: no plan is left, and no button to apply it again,
    // only Undo.
    expect(await messages.count()).toBe(shown);
    expect(await messages.last().innerText()).toContain(`Routed 3 of 3 numbers to ${TARGET}`);
    expect(await plans.count()).toBe(0);
    expect(await result.getByRole('button').allInnerTexts()).toEqual(['Undo']);
    expect(await result.innerText()).toContain('/voice audit');

    await page.getByRole('tab', { name: `#${ANNOUNCEMENTS.name}` }).click();
    const announcements = page.getByRole('listitem').filter({ hasText: `routed 3 numbers to ${TARGET}` });
    await eventually(() => announcements.count()).toBe(1);
    expect(await announcements.innerText()).toContain(`${OPERATOR.name} routed 3 numbers to ${TARGET}`);

    await page.getByRole('tab', { name: 'Home' }).click();
    for (const number of unrouted) {
      await eventually(() => home.innerText()).toMatch(new RegExp(`\\${number}[^\\n]*\\n?Routes to ${TARGET}`));
    }
    expect(await home.innerText()).toMatch(new RegExp(`\\${routed}[^\\n]*\\n?Routes to ${OTHER}`));
    expect(await page.getByRole('region', { name: 'Refused by Slack' }).isVisible()).toBe(false);
  });
});
