// Undo in Chromium, from the channel: an operator routes a number to one agent, an admin re-routes it to another, and
// the re-route's announcement in #voice-announcements carries Undo. Pressed, it plans the way back; applied, the
// number routes to the first agent again, as the Home tab shows.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ANNOUNCEMENTS, OPERATOR, OPS_CHANNEL } from '../../src/playground/people.js';
import { eventually, noBrowser, person, usePlaygroundInChromium } from './in-chromium.js';
import type { TestPlayground } from './support.js';

const FIRST = 'Morning desk';
const SECOND = 'Evening desk';

let t: TestPlayground;
let page: Page;

describe.skipIf(noBrowser)('Undo, in Chromium', { timeout: 180_000 }, () => {
  const bed = usePlaygroundInChromium();
  beforeAll(() => {
    ({ page, t } = bed);
  });

  it('walks a re-route back from its announcement', async () => {
    const you = person(page, t.url);
    await you.openAs(OPERATOR.id);
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    const ids: string[] = [];
    for (const name of [FIRST, SECOND]) {
      await you.type(`/voice agents create "${name}" en-GB`);
      const created = you.message(`Created agent ${name}`);
      await created.waitFor();
      ids.push(/agt_\w+/.exec(await created.innerText())?.[0] ?? '');
    }
    const [first = '', second = ''] = ids;
    await you.type('/voice numbers search GB');
    const results = you.message('Available numbers in');
    await results.getByRole('button', { name: 'Buy', exact: true }).first().click();
    const prompt = you.message('This spends money on the provider account.');
    const number = /Buy (\+44\d+)\./.exec(await prompt.innerText())?.[1] ?? '';
    expect(number).not.toBe('');
    await prompt.getByRole('button', { name: 'Buy', exact: true }).click();
    await you.message(`Bought ${number}`).waitFor();
    await you.type(`/voice map ${number} ${first}`);
    await you.message(new RegExp(`Routed \\${number} \\(GB\\) to ${FIRST}`)).waitFor();

    // Another person re-routes it: their change is announced on its own, with Undo.
    await you.openAs(ADMIN.id);
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    await you.type(`/voice map ${number} ${second}`);
    await you.message('callers will reach the new agent instead').getByRole('button', { name: 'Re-route' }).click();
    await you.message(new RegExp(`Re-routed \\${number}`)).waitFor();

    await page.getByRole('tab', { name: `#${ANNOUNCEMENTS.name}` }).click();
    const announcement = you.message(new RegExp(`${ADMIN.name} re-routed \\${number}`));
    await announcement.getByRole('button', { name: 'Undo', exact: true }).click();
    const plan = you.message('Apply to 1 number');
    await plan.waitFor();
    expect(await plan.innerText()).toContain(`re-route from ${SECOND} to ${FIRST}`);
    await plan.getByRole('button', { name: 'Apply to 1 number', exact: true }).click();
    await you.message('Routed 1 of 1 number').waitFor();

    await page.getByRole('tab', { name: 'Home' }).click();
    const home = page.getByRole('tabpanel');
    await eventually(() => home.innerText()).toMatch(new RegExp(`\\${number}[^\\n]*\\n?Routes to ${FIRST}`));
    expect(await page.getByRole('region', { name: 'Refused by Slack' }).isVisible()).toBe(false);
  });
});
