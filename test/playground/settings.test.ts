// Settings in Chromium, by the names a screen reader hears: Vera, a viewer, is refused a buy; Ada, the admin, opens
// /voice settings, presses Change roles, adds Vera in the operators' people picker, reviews what that does and applies
// it; the change is announced in #voice-announcements, and Vera's buy then asks to be confirmed. Omar, an operator,
// is refused the settings. The policies' checkboxes and a channel picker that holds one channel reach the app as
// Slack sends them.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ANNOUNCEMENTS, OPERATOR, OPS_CHANNEL, TEAMS, VIEWER } from '../../src/playground/people.js';
import { eventually, noBrowser, person, usePlaygroundInChromium } from './in-chromium.js';
import type { TestPlayground } from './support.js';

let t: TestPlayground;
let page: Page;

describe.skipIf(noBrowser)('Settings, in Chromium', { timeout: 180_000 }, () => {
  const bed = usePlaygroundInChromium();
  beforeAll(() => {
    ({ page, t } = bed);
  });

  it('refuses the settings to an operator', async () => {
    const you = person(page, t.url);
    await you.openAs(OPERATOR.id);
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    await you.type('/voice settings');
    await you.message('You need the admin role to change the settings').waitFor();
    expect(await page.getByRole('button', { name: 'Change roles' }).count()).toBe(0);
  });

  it("reads the policies' checkboxes and a channel picker of one as Slack sends them, before anything applies", async () => {
    const you = person(page, t.url);
    await you.openAs(ADMIN.id);
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    await you.type('/voice settings');
    const settings = you.message('Settings');
    await settings.getByRole('button', { name: 'Change policies' }).click();
    const policies = page.getByRole('dialog', { name: 'Policies settings' });
    await policies.getByRole('group', { name: 'Typed release' }).getByRole('checkbox').check();
    await policies
      .getByRole('group', { name: 'Second approver for' })
      .getByRole('checkbox', { name: 'mapping' })
      .check();
    await policies.getByRole('button', { name: 'Review' }).click();
    const review = page.getByRole('dialog', { name: 'Change settings' });
    await eventually(() => review.innerText()).toContain('Releasing a routed number asks for its last four digits');
    expect(await review.innerText()).toContain('routing.map needs a second approver');
    await review.getByRole('button', { name: 'Dismiss' }).click();

    await settings.getByRole('button', { name: 'Change channels' }).click();
    const channels = page.getByRole('dialog', { name: 'Channels settings' });
    const approvals = 'Approval requests';
    await you.choose(channels, approvals, 'ops', `#${OPS_CHANNEL.name}`);
    await eventually(() => channels.getByText('Choose at most 1 item').count()).toBe(1);
    await channels
      .getByRole('button', { name: `Remove #${ANNOUNCEMENTS.name}` })
      .last()
      .click();
    await you.choose(channels, approvals, 'ops', `#${OPS_CHANNEL.name}`);
    expect(await channels.getByRole('list', { name: `${approvals}: chosen` }).innerText()).toContain(OPS_CHANNEL.name);
    await channels.getByRole('button', { name: 'Review' }).click();
    await eventually(() => review.innerText()).toContain(
      `Requests for approval are posted in: #${OPS_CHANNEL.name} (was #${ANNOUNCEMENTS.name})`,
    );
    await review.getByRole('button', { name: 'Dismiss' }).click();
  });

  it('lets an admin give a viewer the operator role, who can then buy', async () => {
    const you = person(page, t.url);
    await you.openAs(VIEWER.id);
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    await you.type('/voice numbers search GB');
    const results = you.message('Available numbers in');
    await results.waitFor();
    const number = /\+44\d+/.exec(await results.innerText())?.[0] ?? '';
    expect(number).not.toBe('');
    await you.type(`/voice numbers buy ${number}`);
    await you.message('You need the operator role to buy numbers').waitFor();

    await you.openAs(ADMIN.id);
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    await you.type('/voice settings');
    await you.message('Settings').getByRole('button', { name: 'Change roles' }).click();
    const form = page.getByRole('dialog', { name: 'Roles settings' });
    // The operators the playground seeds are its teams.
    const teams = form.getByRole('list', { name: 'Operators: user groups: chosen' });
    for (const team of TEAMS) await eventually(() => teams.innerText()).toContain(`@${team.handle}`);
    const operators = form.getByRole('list', { name: 'Operators: people: chosen' });
    await you.choose(form, 'Operators: people', 'Ver', VIEWER.name);
    await eventually(() => operators.innerText()).toContain(VIEWER.name);
    await form.getByRole('button', { name: 'Review' }).click();

    const review = page.getByRole('dialog', { name: 'Change settings' });
    await eventually(() => review.innerText()).toContain(`${VIEWER.name} becomes an operator`);
    await review.getByRole('button', { name: 'Apply', exact: true }).click();
    await eventually(() => page.getByRole('dialog').innerText()).toMatch(/changed the settings/i);

    await page.keyboard.press('Escape');
    await page.getByRole('tab', { name: `#${ANNOUNCEMENTS.name}` }).click();
    const announcement = you.message(`${ADMIN.name} changed the settings`);
    await eventually(() => announcement.innerText()).toContain(`${VIEWER.name} becomes an operator`);

    await you.openAs(VIEWER.id);
    // The page names the role the app holds now, not the one the playground seeded.
    await eventually(() => page.getByLabel('User').locator('option:checked').innerText()).toBe(
      `${VIEWER.name} (operator)`,
    );
    expect(await page.locator('#role').innerText()).toBe('An operator: may buy, create and map.');
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    await you.type(`/voice numbers buy ${number}`);
    const prompt = you.message('This spends money on the provider account.');
    await eventually(() => prompt.innerText()).toContain(number);
    expect(await page.getByRole('region', { name: 'Refused by Slack' }).isVisible()).toBe(false);
  });
});
