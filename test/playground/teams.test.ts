// Two teams in Chromium, as a visitor sees them: the greeting and the person picker name @sales and @support; Ada
// buys two US numbers through the page, routes them to an agent and gives one to @sales and one to @support with
// /voice own; then Omar, an operator through @sales, sees only the sales number in #sales (bound to @sales),
// re-routes it after its confirmation, and is refused the support number by a reply naming @support, which leaves
// it routed as it was.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  OPERATOR,
  OPS_CHANNEL,
  SALES,
  SALES_CHANNEL,
  SUPPORT,
  SUPPORT_OPERATOR,
} from '../../src/playground/people.js';
import { eventually, noBrowser, person, usePlaygroundInChromium } from './in-chromium.js';
import type { TestPlayground } from './support.js';

const DESK = 'Front desk';
const NIGHT = 'Night line';
const US_NUMBER = /\+1\d{10}/g;

let t: TestPlayground;
let page: Page;

describe.skipIf(noBrowser)('two teams, in Chromium', { timeout: 180_000 }, () => {
  const bed = usePlaygroundInChromium();
  beforeAll(() => {
    ({ page, t } = bed);
  });

  /** Creates an agent by command and reads its id from what the app answers. */
  async function createAgent(you: ReturnType<typeof person>, name: string): Promise<string> {
    await you.type(`/voice agents create "${name}" en-US`);
    const created = you.message(`Created agent ${name}`);
    await created.waitFor();
    const id = /agt_\w+/.exec(await created.innerText())?.[0] ?? '';
    expect(id, `the id of ${name}`).not.toBe('');
    return id;
  }

  /** The routes a `/voice numbers` typed now lists: the listing, not the echo of the command. */
  async function listedNumbers(you: ReturnType<typeof person>): Promise<string> {
    const lists = page.getByRole('listitem').filter({ hasText: 'Phone numbers' });
    const before = await lists.count();
    await you.type('/voice numbers');
    await eventually(() => lists.count()).toBe(before + 1);
    return lists.last().innerText();
  }

  const routesTo = (number: string, agent: string) => new RegExp(`\\${number}[^\\n]*\\n?Routes to ${agent}`);

  let sales = '';
  let support = '';
  let night = '';

  it('lets Ada buy two numbers, route them and give one to each team', async () => {
    const you = person(page, t.url);
    await you.openAs(ADMIN.id);
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    const welcome = page.getByRole('region', { name: 'Welcome to Voice Ops' });
    await eventually(() => welcome.innerText()).toContain(`in @${SALES.handle} and Sam in @${SUPPORT.handle}`);
    expect(await welcome.innerText()).toContain(`/voice own +NUMBER @${SALES.handle}`);
    const desk = await createAgent(you, DESK);
    night = await createAgent(you, NIGHT);

    await you.type('/voice numbers buy US 2');
    await you.message('Buy 2 numbers').getByRole('button', { name: 'Buy 2 numbers', exact: true }).click();
    const bought = you.message('Bought 2 of 2 numbers');
    await bought.waitFor();
    [sales = '', support = ''] = (await bought.innerText()).match(US_NUMBER) ?? [];
    expect(new Set([sales, support]).size, 'two numbers bought').toBe(2);

    await you.type(`/voice map unrouted to ${desk}`);
    await page.getByRole('button', { name: 'Apply to 2 numbers', exact: true }).click();
    await you.message(`Routed 2 of 2 numbers to ${DESK}`).waitFor();

    for (const [number, team] of [
      [sales, SALES],
      [support, SUPPORT],
    ] as const) {
      await you.type(`/voice own ${number} @${team.handle}`);
      await you.message(`owner now @${team.handle}`).waitFor();
    }
  });

  it('lets Omar in #sales re-route the sales number, and refuses him the support number, naming @support', async () => {
    const you = person(page, t.url);
    await you.openAs(OPERATOR.id);
    expect(await page.getByLabel('User').locator('option').allInnerTexts()).toEqual(
      expect.arrayContaining([
        `${OPERATOR.name} (operator, @${SALES.handle})`,
        `${SUPPORT_OPERATOR.name} (operator, @${SUPPORT.handle})`,
      ]),
    );
    expect(await page.getByLabel('User').locator('option:checked').innerText()).toContain(OPERATOR.name);
    await page.getByRole('tab', { name: `#${SALES_CHANNEL.name}` }).click();
    const listed = await listedNumbers(you);
    expect(listed).toContain(`Showing @${SALES.handle}`);
    expect(listed).toMatch(routesTo(sales, DESK));
    expect(listed).not.toContain(support);

    await you.type(`/voice map ${sales} ${night}`);
    const prompt = you.message('Only you can confirm it');
    await eventually(() => prompt.innerText()).toContain(sales);
    await prompt.getByRole('button', { name: 'Re-route', exact: true }).click();
    await you.message(new RegExp(`Re-routed \\${sales} \\(US\\) from ${DESK}`)).waitFor();

    await you.type(`/voice map ${support} ${night}`);
    const refused = you.message(`${support} is owned by`);
    await eventually(() => refused.innerText()).toContain(`${support} is owned by @${SUPPORT.handle}`);
    expect(await page.getByRole('button', { name: 'Re-route', exact: true }).count()).toBe(0);

    // Outside a bound channel Omar sees every number: the support number still routes where it did.
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    const after = await listedNumbers(you);
    expect(after).toMatch(routesTo(sales, NIGHT));
    expect(after).toMatch(routesTo(support, DESK));
  });
});
