// A newcomer's launch in Germany, in Chromium, on a fresh playground, by buttons, with no id typed or copied: three DE
// numbers bought in one plan, a de-DE agent created from the buy's answer, the three numbers routed to it in one plan;
// a number bought later routed to it by the button under the ready agent, then one undone. Each step a person takes is
// counted, and the launch must stay within 2 typed commands, 12 clicks and 5 form fields; each answer to a click shows
// where the person is looking.
// Also what a newcomer meets first: the welcome and its three commands, type-aheads that list options on focus, and
// Start over, which clears the playground and nothing else.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, OPERATOR, OPS_CHANNEL } from '../../src/playground/people.js';
import { WELCOME } from '../../src/playground/welcome.js';
import { eventually, noBrowser, person, usePlaygroundInChromium } from './in-chromium.js';
import type { TestPlayground } from './support.js';

/** What a person does, counted: commands typed, clicks (buttons, tabs), form fields given a value. */
interface Steps {
  commands: number;
  clicks: number;
  fields: number;
}

const AGENT = 'Berlin hotline';
const GERMAN_NUMBER = /\+49\d+/;

let t: TestPlayground;
let page: Page;

/** Whether the element is within the part of the conversation the panel shows. */
async function inView(target: Locator): Promise<boolean> {
  const [shown, box] = await Promise.all([page.locator('#panel').boundingBox(), target.boundingBox()]);
  return shown !== null && box !== null && box.y >= shown.y && box.y + box.height <= shown.y + shown.height;
}

// The launch is dozens of clicks through the page, the app and the sandbox: on a machine busy with other work it needs
// more than the suite's usual limit, which only ever ends a stuck test.
const LAUNCH_TIMEOUT_MS = 180_000;

describe.skipIf(noBrowser)('a launch in Germany, in Chromium', { timeout: LAUNCH_TIMEOUT_MS }, () => {
  const bed = usePlaygroundInChromium();
  beforeAll(() => {
    ({ page, t } = bed);
  });

  /** A person's ways of using the page, each counted in `steps`. */
  function counted(steps: Steps) {
    const you = person(page, t.url);
    return {
      ...you,
      async command(text: string): Promise<void> {
        steps.commands += 1;
        await you.type(text);
      },
      async click(target: Locator): Promise<void> {
        steps.clicks += 1;
        await target.click();
      },
      async fill(form: Locator, label: string, text: string): Promise<void> {
        steps.fields += 1;
        await form.getByLabel(label, { exact: true }).fill(text);
      },
      /** A picker of several: one field, and a click for each option chosen in the list it shows on focus. */
      async pickSeveral(form: Locator, label: string, options: string[]): Promise<void> {
        steps.fields += 1;
        await form.getByRole('combobox', { name: label, exact: true }).click();
        const list = form.getByRole('listbox', { name: label });
        for (const option of options) {
          steps.clicks += 1;
          await list.getByRole('option', { name: new RegExp(`^\\${option}`) }).click();
        }
        const chosen = form.getByRole('list', { name: `${label}: chosen` }).getByRole('listitem');
        await eventually(() => chosen.count()).toBe(options.length);
      },
      /** Typing to narrow a picker and choosing what it offers gives one field its value. */
      async pick(form: Locator, label: string, typed: string, option: string | RegExp): Promise<void> {
        steps.fields += 1;
        await you.choose(form, label, typed, option);
      },
    };
  }

  it('first shows what Voice Ops manages, with three commands to try that run as if typed', async () => {
    const you = person(page, t.url);
    await you.openAs(OPERATOR.id);
    const welcome = page.getByRole('region', { name: 'Welcome to Voice Ops' });
    await eventually(() => welcome.innerText()).toContain('phone numbers');
    const said = await welcome.innerText();
    for (const words of ['AI agents', 'routes', 'confirmed', 'role', 'audit log', 'nothing real is bought']) {
      expect(said).toContain(words);
    }
    for (const { command } of WELCOME.tries) {
      expect(await welcome.getByRole('button', { name: command, exact: true }).isVisible()).toBe(true);
    }
    expect(await page.locator('#panel-note').innerText()).not.toContain('Nothing here yet');

    await welcome.getByRole('button', { name: '/voice help', exact: true }).click();
    const help = you.message('Voice Ops commands');
    await help.waitFor();
    expect(await help.innerText()).toContain('Only visible to you');
    // Sent as if typed: the command shows as the person's own, and ↑ recalls it.
    await you.message(/^Omar Operator.*\/voice help$/s).waitFor();
    await page.getByRole('textbox', { name: 'Message' }).press('ArrowUp');
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('/voice help');
  });

  const launch: Steps = { commands: 0, clicks: 0, fields: 0 };
  const routed: string[] = [];
  /** A number bought after the launch, routed nowhere yet. */
  const lastBought: string[] = [];

  it('buys three DE numbers, creates a de-DE agent and routes the three to it by buttons, within 2 commands and 12 clicks', async () => {
    const you = counted(launch);
    await you.openAs(OPERATOR.id);

    await you.command('/voice numbers buy DE 3');
    const plan = you.message('Buy 3 numbers');
    await you.click(plan.getByRole('button', { name: 'Buy 3 numbers', exact: true }));
    const bought = you.message('Bought 3 of 3 numbers');
    await bought.waitFor();
    // The answer to the click is where the person is looking.
    await eventually(() => inView(bought.getByText('Bought 3 of 3 numbers'))).toBe(true);
    const numbers = (await bought.innerText()).match(/\+49\d+/g) ?? [];
    expect(new Set(numbers).size).toBe(3);

    // No agent yet: the way on from the buy makes one, and the numbers bought go with it.
    await you.click(bought.getByRole('button', { name: 'Create an agent', exact: true }));
    const create = page.getByRole('dialog', { name: 'Create AI agent' });
    await you.fill(create, 'Name', AGENT);
    await you.pick(create, 'Language', 'de', 'de-DE');
    await you.click(create.getByRole('button', { name: 'Create', exact: true }));
    const created = page.getByRole('dialog', { name: 'Agent created' });
    await eventually(() => created.innerText()).toContain(`Created agent ${AGENT}`);
    await you.click(created.getByRole('button', { name: 'Close', exact: true }));
    await eventually(() => page.getByRole('dialog').count()).toBe(0);

    const routing = you.message('Apply to 3 numbers');
    expect(await routing.innerText()).toContain('3 numbers to route');
    await eventually(() => inView(routing.getByRole('button', { name: 'Apply to 3 numbers', exact: true }))).toBe(true);
    await you.click(routing.getByRole('button', { name: 'Apply to 3 numbers', exact: true }));
    await you.message(`Routed 3 of 3 numbers to ${AGENT}`).waitFor();
    routed.push(...numbers);

    await page.getByRole('tab', { name: 'Home' }).click();
    const home = page.getByRole('tabpanel');
    for (const number of numbers) {
      await eventually(() => home.innerText()).toMatch(new RegExp(`\\${number}[^\\n]*\\n?Routes to ${AGENT}`));
    }
    console.info(`A launch in Germany took ${JSON.stringify(launch)}`);
    expect(launch.commands).toBeLessThanOrEqual(2);
    expect(launch.clicks).toBeLessThanOrEqual(12);
    expect(launch.fields).toBeLessThanOrEqual(5);
  });

  it('shows the outcome of a Buy confirmed under a long search from its first line, the search after it', async () => {
    const you = person(page, t.url);
    await you.openAs(OPERATOR.id);
    await you.type('/voice numbers search DE');
    const results = you.message('Available numbers in Germany (DE)');
    await results.getByRole('button', { name: 'Buy', exact: true }).last().click();
    const prompt = you.message('This spends money on the provider account.');
    const number = /Buy (\+49\d+)\./.exec(await prompt.innerText())?.[1] ?? '';
    await prompt.getByRole('button', { name: 'Buy', exact: true }).click();
    const outcome = you.message(`Bought ${number}`);
    await eventually(() => outcome.innerText()).toContain('Available numbers in Germany (DE)');
    await eventually(() => inView(outcome.getByText(`Bought ${number}`).first())).toBe(true);
    lastBought.push(number);
  });

  it('routes a number bought later by the button under the ready agent: one form for several numbers, one plan', async () => {
    const you = counted({ commands: 0, clicks: 0, fields: 0 });
    await you.openAs(OPERATOR.id);
    const ready = you.message(`Agent ${AGENT} is ready`);
    expect(await ready.innerText()).toMatch(/agt_\w+/);
    await you.click(ready.getByRole('button', { name: 'Route numbers to this agent' }));
    const form = page.getByRole('dialog', { name: 'Route numbers' });
    await eventually(() => form.innerText()).toContain(AGENT);
    await you.pickSeveral(form, 'Numbers', lastBought);
    await you.click(form.getByRole('button', { name: 'Plan', exact: true }));
    const plan = you.message('Apply to 1 number');
    await you.click(plan.getByRole('button', { name: 'Apply to 1 number', exact: true }));
    await you.message(`Routed 1 of 1 number to ${AGENT}`).waitFor();
    routed.push(...lastBought);
  });

  it('undoes one number: unmap says the provider cannot, and the admin releases it instead', async () => {
    const undone = routed[0] ?? '';
    expect(undone).toMatch(GERMAN_NUMBER);
    const you = person(page, t.url);
    await you.openAs(OPERATOR.id);
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    await you.type(`/voice unmap ${undone}`);
    const answer = you.message('There is no unmap');
    await answer.waitFor();
    expect(await answer.innerText()).toContain(`/voice numbers release ${undone}`);

    await page.getByLabel('User').selectOption(ADMIN.id);
    await you.type(`/voice numbers release ${undone}`);
    const prompt = you.message(`Release ${undone}`);
    await prompt.getByRole('button', { name: 'Release', exact: true }).click();
    await you.message(`Released ${undone}`).waitFor();
    // The listing, not the echo of the command typed: wait for one more list than there was.
    const lists = page.getByRole('listitem').filter({ hasText: 'Phone numbers' });
    const before = await lists.count();
    await you.type('/voice numbers DE');
    await eventually(() => lists.count()).toBe(before + 1);
    const listed = await lists.last().innerText();
    expect(listed).not.toContain(undone);
    for (const kept of routed.slice(1)) expect(listed).toContain(kept);
  });

  it('lists a type-ahead’s options as soon as it is focused when it needs no characters first', async () => {
    const you = person(page, t.url);
    await you.openAs(OPERATOR.id);
    await you.type('/voice map');
    const form = page.getByRole('dialog', { name: 'Map a number' });
    await form.getByRole('combobox', { name: 'Agent', exact: true }).click();
    await eventually(() => form.getByRole('option').allInnerTexts()).toContainEqual(expect.stringContaining(AGENT));
    await form.getByRole('button', { name: 'Cancel', exact: true }).click();
    await eventually(() => page.getByRole('dialog').count()).toBe(0);
  });

  it('starts over after a confirmation: no numbers, agents or messages, its audit log kept, nothing else in its folder touched', async () => {
    const folder = dirname(t.config.databasePath);
    const notes = join(folder, 'notes.txt');
    await writeFile(notes, 'not the playground’s');
    const you = person(page, t.url);
    await you.openAs(OPERATOR.id);
    await page.getByRole('button', { name: 'Start over' }).click();
    const ask = page.getByRole('alertdialog', { name: 'Start over?' });
    // It names what goes, and what stays: the audit log among it.
    const says = await ask.innerText();
    expect(says).toContain(t.config.databasePath);
    expect(says).toContain(join(folder, 'sandbox.db'));
    expect(says).toContain('The audit log stays');
    expect(says).toContain(`Everything else stays, in ${folder}`);
    await ask.getByRole('button', { name: 'Keep it' }).click();
    await you.type('/voice numbers');
    await eventually(() => you.message('Numbers').innerText()).toContain('+49');

    await page.getByRole('button', { name: 'Start over' }).click();
    await ask.getByRole('button', { name: 'Start over' }).click();
    await eventually(() => page.locator('#messages').getByRole('listitem').count()).toBe(0);
    await page.getByRole('region', { name: 'Welcome to Voice Ops' }).waitFor();
    await you.type('/voice agents');
    await eventually(() => you.message('agents').innerText()).toMatch(/no agents/i);
    await page.getByRole('tab', { name: 'Home' }).click();
    await eventually(() => page.getByRole('tabpanel').innerText()).toContain('Buy a number');
    expect(await page.getByRole('tabpanel').innerText()).not.toContain(AGENT);
    expect(existsSync(notes)).toBe(true);
    // The audit log kept what happened before, and says the playground was reset.
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    await you.type('/voice audit');
    await eventually(() => you.message('Audit log').innerText()).toContain('playground reset');
    expect(await you.message('Audit log').innerText()).toContain('bought');
  });
});
