// The playground in Chromium, used as a person would: by the names a screen reader gives the page's controls. Each
// flow of the README, clicked through against the real app behind the stand-in for Slack. In CI (CI set) a missing
// browser fails these tests; elsewhere they are skipped with a message saying how to get one.
import { webApi } from '@slack/bolt';
import type { Dialog, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Browser, launchChromium } from '../../src/playground/browser.js';
import { ADMIN, ANNOUNCEMENTS, OPERATOR, OPS_CHANNEL, VIEWER } from '../../src/playground/people.js';
import { eventually, noBrowser, person, requireChromium } from './in-chromium.js';
import { startTestPlayground, type TestPlayground } from './support.js';

let t: TestPlayground;
let browser: Browser;
let page: Page;
const dialogs: Dialog[] = [];

describe.skipIf(noBrowser)('the playground in Chromium', () => {
  beforeAll(async () => {
    const chromiumPath = requireChromium();
    t = await startTestPlayground();
    browser = await launchChromium(chromiumPath);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(async () => {
    await page?.close();
  });

  beforeEach(async () => {
    page = await browser.context.newPage();
    page.setDefaultTimeout(30_000);
    page.on('dialog', (dialog) => {
      dialogs.push(dialog);
      void dialog.dismiss();
    });
  });

  const as = () => person(page, t.url);
  const openAs = (userId: string) => as().openAs(userId);
  const type = (text: string) => as().type(text);
  const message = (text: string | RegExp) => as().message(text);
  const choose = (...args: Parameters<ReturnType<typeof as>['choose']>) => as().choose(...args);

  it('says it is a playground where nothing real is bought, and so does /voice help', async () => {
    await openAs(OPERATOR.id);
    await eventually(() => page.locator('#banner').innerText()).toContain('Nothing real is bought');
    await type('/voice help');
    const help = message('Voice Ops commands');
    await help.waitFor();
    expect(await help.innerText()).toContain('Sandbox provider: nothing real is bought or routed.');
    expect(await help.innerText()).toContain('Only visible to you');
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.press('ArrowUp');
    expect(await composer.inputValue()).toBe('/voice help');
  });

  it('searches US, buys the first number, confirms, shows the bought reply in place and announces it', async () => {
    await openAs(OPERATOR.id);
    await type('/voice numbers search US');
    const results = message('Available numbers in United States (US)');
    await results.getByRole('button', { name: 'Buy', exact: true }).first().click();
    const prompt = message('This spends money on the provider account.');
    const number = /Buy (\+\d+)\./.exec(await prompt.innerText())?.[1] ?? '';
    expect(number).toMatch(/^\+1\d{10}$/);
    await prompt.getByRole('button', { name: 'Buy', exact: true }).click();

    const bought = message(`Bought ${number}`);
    await bought.waitFor();
    expect(await bought.innerText()).toContain('Only visible to you');
    // Replaced in place: the prompt is gone, as Slack replaces the message that held the button.
    await eventually(() => page.getByRole('listitem').filter({ hasText: 'This spends money' }).count()).toBe(0);

    await page.getByRole('tab', { name: `#${ANNOUNCEMENTS.name}` }).click();
    const announced = message(`bought ${number}`);
    await announced.waitFor();
    expect(await announced.innerText()).toContain(`@${OPERATOR.name} bought ${number}`);
  });

  let token = '';

  it('creates an agent through the form: an inline error first, then the token, shown once', async () => {
    await openAs(OPERATOR.id);
    await type('/voice agents create');
    const form = page.getByRole('dialog', { name: 'Create AI agent' });
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await eventually(() => form.getByRole('alert').allInnerTexts()).toContain('Name must not be empty');
    expect(await form.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');

    await form.getByLabel('Name', { exact: true }).fill('Front desk');
    await choose(form, 'Language', 'en', 'en-US');
    await form.getByRole('button', { name: 'Create', exact: true }).click();

    const created = page.getByRole('dialog', { name: 'Agent created' });
    token = /atk_[0-9a-f]{32}/.exec(await created.innerText())?.[0] ?? '';
    expect(token).not.toBe('');
    await created.getByRole('button', { name: 'Close', exact: true }).click();
    await eventually(() => page.getByRole('dialog').count()).toBe(0);

    for (const tab of [`#${OPS_CHANNEL.name}`, `#${ANNOUNCEMENTS.name}`, 'Home', 'Messages']) {
      await page.getByRole('tab', { name: tab }).click();
      await page.waitForLoadState('networkidle');
      expect(await page.locator('body').innerText(), `the token on ${tab}`).not.toContain(token);
    }
  });

  it('maps the number to the agent through the form, and the Home tab lists the routed number', async () => {
    await openAs(OPERATOR.id);
    await type('/voice map');
    const form = page.getByRole('dialog', { name: 'Map a number' });
    await form.getByRole('button', { name: 'Map', exact: true }).waitFor();
    await choose(form, 'Number', '+1212', /\+1\d{10}/);
    await choose(form, 'Agent', 'Front', /Front desk/);
    await form.getByRole('button', { name: 'Map', exact: true }).click();
    const done = page.getByRole('dialog', { name: 'Done' });
    await eventually(() => done.innerText()).toMatch(/Routed \+1\d{10} \(US\) to Front desk/);
    // The next number is a click away: the result becomes the map form again, its agent picked.
    await done.getByRole('button', { name: 'Map another number to this agent' }).click();
    await eventually(() => form.getByRole('combobox', { name: 'Agent', exact: true }).inputValue()).toContain(
      'Front desk',
    );
    expect(await page.getByRole('dialog').count()).toBe(1);
    await form.getByRole('button', { name: 'Cancel', exact: true }).click();

    await page.getByRole('tab', { name: 'Home' }).click();
    const home = page.getByRole('tabpanel');
    await eventually(() => home.innerText()).toMatch(/\+1\d{10}[^\n]*\n?Routes to Front desk/);
    expect(await home.getByRole('button', { name: 'Map', exact: true }).count()).toBeGreaterThan(0);
  });

  it('shows the viewer no change buttons: not in search results, not on the Home tab', async () => {
    await openAs(OPERATOR.id);
    await page.getByRole('tab', { name: 'Home' }).click();
    await page.getByRole('tabpanel').getByRole('button', { name: 'Buy a number' }).waitFor();
    await page.getByLabel('User').selectOption(VIEWER.id);
    const home = page.getByRole('tabpanel');
    await eventually(() => home.innerText()).toContain('Your role: viewer');
    // Reading the routing out is all a viewer's Home tab offers.
    expect(await home.getByRole('button').allInnerTexts()).toEqual(['Export routing']);

    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    await type('/voice numbers search US');
    const results = message('Available numbers in United States (US)');
    await results.waitFor();
    expect(await results.getByRole('button', { name: 'Buy', exact: true }).count()).toBe(0);
    expect(await results.innerText()).toContain('Buying a number needs the operator role');
  });

  it('switches to the person chosen even while the previous person’s view is still on its way', async () => {
    await openAs(OPERATOR.id);
    // Hold the operator's next view until the switch has happened.
    let heldSince!: () => void;
    const held = new Promise<void>((resolve) => {
      heldSince = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(
      (url) => url.pathname === '/api/state' && url.searchParams.get('user') === OPERATOR.id,
      async (route) => {
        heldSince();
        await released;
        await route.continue();
      },
      { times: 1 },
    );
    const client = new webApi.WebClient(t.config.slack.botToken, { slackApiUrl: t.playground.slack.apiUrl });
    await client.chat.postMessage({ channel: OPS_CHANNEL.id, text: 'Something new in the channel.' });
    await held;
    await page.getByLabel('User').selectOption(VIEWER.id);
    const stale = page.waitForResponse((response) => new URL(response.url()).searchParams.get('user') === OPERATOR.id);
    release();
    await stale;
    await page.getByRole('tab', { name: 'Home' }).click();
    await eventually(() => page.getByRole('tabpanel').innerText()).toContain('Your role: viewer');
    expect(await page.getByLabel('User').inputValue()).toBe(VIEWER.id);
  });

  it('buys from the Home tab through stacked modals: the region picker updates the search, Buy pushes the confirmation', async () => {
    await openAs(OPERATOR.id);
    await page.getByRole('tab', { name: 'Home' }).click();
    await page.getByRole('tabpanel').getByRole('button', { name: 'Buy a number' }).click();
    const search = page.getByRole('dialog', { name: 'Search numbers' });
    await search.getByRole('combobox', { name: 'Pick a region' }).selectOption('GB');
    await eventually(() => search.innerText()).toContain('Available numbers in United Kingdom (GB)');
    await search.getByRole('button', { name: 'Buy', exact: true }).first().click();
    const confirm = page.getByRole('dialog', { name: 'Confirm purchase' });
    const number = /Buy (\+44\d+)\./.exec(await confirm.innerText())?.[1] ?? '';
    expect(number).not.toBe('');
    await confirm.getByRole('button', { name: 'Buy', exact: true }).click();
    const done = page.getByRole('dialog', { name: 'Done' });
    await eventually(() => done.innerText()).toContain(`Bought ${number}`);
    await done.getByRole('button', { name: 'Close', exact: true }).click();
    // The confirmation was pushed onto the search: closing it leads back there.
    await search.waitFor();
    await search.getByRole('button', { name: 'Done', exact: true }).click();
    await eventually(() => page.getByRole('dialog').count()).toBe(0);
    await eventually(() => page.getByRole('tabpanel').innerText()).toContain(number);
  });

  it('cancels a release by closing its confirmation: the app hears view_closed and audits the cancellation', async () => {
    await openAs(ADMIN.id);
    await page.getByRole('tab', { name: 'Home' }).click();
    await page.getByRole('tabpanel').getByRole('button', { name: 'Release' }).first().click();
    const confirm = page.getByRole('dialog', { name: 'Confirm release' });
    const number = /Release (\+\d+)/.exec(await confirm.innerText())?.[1] ?? '';
    await confirm.getByRole('button', { name: 'Cancel', exact: true }).click();
    await eventually(() => page.getByRole('dialog').count()).toBe(0);
    await page.getByRole('tab', { name: `#${OPS_CHANNEL.name}` }).click();
    await type(`/voice audit ${number}`);
    await eventually(() => message('Audit log').innerText()).toMatch(new RegExp(`release \\${number}.*cancelled`));
  });

  it('shows the app’s direct messages in its Messages tab, which has no composer', async () => {
    const client = new webApi.WebClient(t.config.slack.botToken, { slackApiUrl: t.playground.slack.apiUrl });
    await client.chat.postMessage({ channel: VIEWER.id, text: 'A reply that found no other way to you.' });
    await openAs(VIEWER.id);
    await page.getByRole('tab', { name: 'Messages' }).click();
    await message('found no other way').waitFor();
    expect(await page.getByRole('textbox', { name: 'Message' }).isVisible()).toBe(false);
    await page.getByLabel('User').selectOption(OPERATOR.id);
    await eventually(() => page.getByRole('tabpanel').innerText()).not.toContain('found no other way');
  });

  it('shows an agent named like markup as text, and no dialog fires', async () => {
    const name = '<img src=x onerror=alert(1)>';
    await openAs(OPERATOR.id);
    await type(`/voice agents create "${name}" en-US`);
    const created = message(`Created agent ${name}`);
    await created.waitFor();
    await page.getByRole('tab', { name: `#${ANNOUNCEMENTS.name}` }).click();
    await message(`created agent ${name}`).waitFor();
    await page.getByRole('tab', { name: 'Home' }).click();
    await eventually(() => page.getByRole('tabpanel').innerText()).toContain(name);
    expect(await page.locator('img').count()).toBe(0);
    expect(dialogs.map((dialog) => dialog.message())).toEqual([]);
  });

  it('draws mrkdwn as Slack does and shows a block it cannot draw as a placeholder', async () => {
    const client = new webApi.WebClient(t.config.slack.botToken, { slackApiUrl: t.playground.slack.apiUrl });
    const text =
      '*bold* _italic_ ~strike~ `code` <https://example.com|a link> <@UPLAYOPER> <#CPLAYOPS> &lt;b&gt; &amp;\n```block```';
    await client.chat.postMessage({
      channel: OPS_CHANNEL.id,
      text: 'formatting',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text } },
        { type: 'image', image_url: 'https://example.com/x.png', alt_text: 'a chart' },
      ],
    });
    await openAs(OPERATOR.id);
    const shown = message('italic');
    await shown.waitFor();
    const body = shown.locator('.message-body');
    expect(await body.locator('strong').first().innerText()).toBe('bold');
    expect(await body.locator('em').first().innerText()).toBe('italic');
    expect(await body.locator('s').first().innerText()).toBe('strike');
    expect(await body.locator('code').first().innerText()).toBe('code');
    expect(await body.locator('pre').innerText()).toBe('block');
    expect(await shown.getByRole('link', { name: 'a link' }).getAttribute('href')).toBe('https://example.com');
    const shownText = await shown.innerText();
    expect(shownText).toContain(`@${OPERATOR.name}`);
    expect(shownText).toContain(`#${OPS_CHANNEL.name}`);
    expect(shownText).toContain('<b> &');
    expect(await shown.getByRole('note').innerText()).toContain('Unsupported block: image');
  });

  it('shows a message Slack would refuse as refused, with the reason, and the call gets Slack’s error', async () => {
    const client = new webApi.WebClient(t.config.slack.botToken, {
      slackApiUrl: t.playground.slack.apiUrl,
      retryConfig: { retries: 0 },
    });
    await expect(
      client.chat.postMessage({
        channel: OPS_CHANNEL.id,
        text: 'too long',
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(3001) } }],
      }),
    ).rejects.toMatchObject({ data: { error: 'invalid_blocks' } });
    await openAs(OPERATOR.id);
    const refusals = page.getByRole('region', { name: 'Refused by Slack' });
    await eventually(() => refusals.innerText()).toContain('chat.postMessage: invalid_blocks');
    expect(await refusals.innerText()).toContain(
      'must be less than 3001 characters [json-pointer:/blocks/0/text/text]',
    );
  });
});
