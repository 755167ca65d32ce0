// What a newcomer tripped on in the first hour, each seen in Chromium as the person sees it: the audit found by
// @name and by `failed`, a made-up locale refused, a region typed by name and a national number answered with what to
// type, counts that agree with their nouns, one heading per Home section, and a red button for a release from the
// Home tab.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, OPS_CHANNEL, VIEWER } from '../../src/playground/people.js';
import { eventually, noBrowser, person, usePlaygroundInChromium } from './in-chromium.js';
import type { TestPlayground } from './support.js';

let t: TestPlayground;
let page: Page;

describe.skipIf(noBrowser)('the first hour, in Chromium', { timeout: 180_000 }, () => {
  const bed = usePlaygroundInChromium();
  beforeAll(() => {
    ({ page, t } = bed);
  });

  it('finds a viewer’s refused attempt by @Name and by `failed`', async () => {
    const you = person(page, t.url);
    await you.openAs(VIEWER.id);
    await you.type('/voice agents delete agt_nobody');
    await you.message('admin role').waitFor();

    await you.type(`/voice audit @${VIEWER.name}`);
    const byName = you.message(/Audit log/);
    await eventually(() => byName.innerText()).toContain('agt_nobody');

    await you.type('/voice audit failed');
    await eventually(() => you.message(/Audit log/).innerText()).toContain('agt_nobody');
    expect(await you.message(/Audit log/).innerText()).not.toContain('No changes match');
  });

  it('answers a made-up locale, a region typed by name and a national number with what to type', async () => {
    const you = person(page, t.url);
    await you.openAs(ADMIN.id);
    await you.type('/voice agents create "Made up" xx-YY');
    await eventually(() => you.message('xx-YY').innerText()).toMatch(/language|locale/i);

    await you.type('/voice numbers search germany');
    await eventually(() => you.message('Did you mean').innerText()).toContain('DE');

    await you.type('/voice numbers buy 030 23125001');
    await eventually(() => you.message('international form').innerText()).toContain('+49 30 23125001');
  });

  it('shows counts that agree with their nouns and one heading per Home section', async () => {
    const you = person(page, t.url);
    await you.openAs(ADMIN.id);
    await you.type('/voice agents create "Only desk" de-DE');
    await you.message('Only desk').waitFor();
    await you.type('/voice agents');
    await eventually(() => you.message(/agents?\b/).innerText()).toMatch(/\b1 agent\b/);
    expect(await you.message(/agents?\b/).innerText()).not.toMatch(/\b1 agents\b/);

    await page.getByRole('tab', { name: 'Home' }).click();
    const home = page.getByRole('tabpanel');
    await eventually(() => home.innerText()).toContain('Voice AI');
    const text = await home.innerText();
    expect(text.match(/^Voice AI$/gm) ?? []).toHaveLength(1);
    expect(text).not.toMatch(/^AI agents$/m);
    expect(text).not.toMatch(/^Phone numbers$/m);
  });

  it('confirms a release from the Home tab with a red button', async () => {
    const you = person(page, t.url);
    await you.openAs(ADMIN.id);
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    await you.type('/voice numbers search DE');
    await you.message('Available numbers').getByRole('button', { name: 'Buy', exact: true }).first().click();
    await you.message('This spends money').getByRole('button', { name: 'Buy', exact: true }).click();
    await you.message('Bought').waitFor();

    await page.getByRole('tab', { name: 'Home' }).click();
    await page.getByRole('tabpanel').getByRole('button', { name: 'Release', exact: true }).first().click();
    const confirmation = page.getByRole('dialog');
    const release = confirmation.getByRole('button', { name: /^Release/ }).first();
    await release.waitFor();
    expect(await release.getAttribute('class')).toContain('bk-danger');
  });
});
