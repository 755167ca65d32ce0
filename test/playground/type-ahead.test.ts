// The playground's type-ahead, on any app: a small Bolt app whose form has external_select pickers, filled through
// its options listener as a person types (Slack's block_suggestion), submitted with the chosen option; an options
// answer Slack would refuse is refused on the page with the reason. Driven in Chromium, like the other browser tests.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel } from '@slack/bolt';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type Browser, findChromium, launchChromium } from '../../src/playground/browser.js';
import { type FakeSlack, startFakeSlack } from '../../src/playground/fake-slack.js';
import { Interactions } from '../../src/playground/interactions.js';
import { bindPage, type PageServer, servePage } from '../../src/playground/page-server.js';
import { CHANNELS, OPERATOR, PEOPLE, seededRole } from '../../src/playground/people.js';

const SIGNING_SECRET = 'type-ahead-secret';
const TOKEN = 'xoxb-type-ahead';
const CITIES = ['Amsterdam', 'Antwerp', 'Athens', 'Berlin', 'Bern'];

const chromiumPath = findChromium();
const inCi = Boolean(process.env.CI);

let slack: FakeSlack;
let app: App;
let pageServer: PageServer;
let browser: Browser;
const chosen: string[] = [];

/** A form with two type-ahead pickers: one answered within Slack's limits, one with an option text too long. */
function pickerForm() {
  const picker = (blockId: string, label: string) => ({
    type: 'input' as const,
    block_id: blockId,
    label: { type: 'plain_text' as const, text: label },
    element: {
      type: 'external_select' as const,
      action_id: 'value',
      placeholder: { type: 'plain_text' as const, text: 'Start typing' },
      min_query_length: 2,
    },
  });
  return {
    type: 'modal' as const,
    callback_id: 'pick',
    title: { type: 'plain_text' as const, text: 'Pick a city' },
    submit: { type: 'plain_text' as const, text: 'Save' },
    blocks: [picker('city', 'City'), { ...picker('broken', 'Broken'), optional: true }],
  };
}

describe.skipIf(!chromiumPath && !inCi)('type-ahead pickers in the playground', () => {
  beforeAll(async () => {
    if (!chromiumPath) throw new Error('CI is set and no Chromium was found: apt-get install chromium');
    slack = await startFakeSlack({ strict: true });
    for (const person of PEOPLE) slack.workspace.addPerson(person);
    for (const channel of CHANNELS) slack.workspace.addChannel(channel);
    app = new App({
      token: TOKEN,
      signingSecret: SIGNING_SECRET,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } },
    });
    app.command('/voice', async ({ ack, body, client }) => {
      await ack();
      await client.views.open({ trigger_id: body.trigger_id, view: pickerForm() });
    });
    app.options<'block_suggestion'>({ block_id: 'city', action_id: 'value' }, async ({ ack, options }) => {
      const typed = options.value.toLowerCase();
      const matches = CITIES.filter((city) => city.toLowerCase().startsWith(typed));
      await ack({ options: matches.map((city) => ({ text: { type: 'plain_text', text: city }, value: city })) });
    });
    app.options<'block_suggestion'>({ block_id: 'broken', action_id: 'value' }, async ({ ack }) => {
      await ack({ options: [{ text: { type: 'plain_text', text: 'x'.repeat(76) }, value: 'x' }] });
    });
    app.view('pick', async ({ ack, view }) => {
      chosen.push(view.state.values.city?.value?.selected_option?.value ?? '');
      await ack();
    });
    const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
    const { port } = server.address() as AddressInfo;
    const logger = createLogger('silent');
    const interactions = new Interactions(
      slack,
      { eventsUrl: `http://127.0.0.1:${port}/slack/events`, signingSecret: SIGNING_SECRET },
      logger,
    );
    pageServer = servePage({
      front: await bindPage(0),
      probesUrl: () => `http://127.0.0.1:${port}`,
      workspace: slack.workspace,
      // No Voice Ops behind this page: its people keep the roles the playground seeds.
      roleOf: async (userId) => seededRole(userId),
      workflows: slack.workflows,
      interactions,
      startOver: async () => ({ ok: false, reason: 'This page has no playground to start over.' }),
      whatStartOverDoes: () => ({ ok: false, says: ['This page has no playground to start over.'] }),
      logger,
    });
    browser = await launchChromium(chromiumPath);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await pageServer?.close();
    await app?.stop();
    await slack?.close();
  });

  async function openForm(): Promise<Page> {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${pageServer.url}?user=${OPERATOR.id}`);
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill('/voice pick');
    await composer.press('Enter');
    return page;
  }

  it('offers the app’s options as the person types, and submits the one chosen', async () => {
    const page = await openForm();
    const form = page.getByRole('dialog', { name: 'Pick a city' });
    const city = form.getByRole('combobox', { name: 'City' });
    await city.fill('A');
    await form.getByText('Type at least 2 characters.').waitFor();
    await city.fill('At');
    await form.getByRole('option', { name: 'Athens' }).waitFor();
    expect(await form.getByRole('option').allInnerTexts()).toEqual(['Athens']);
    await city.fill('B');
    await city.fill('Be');
    await expect.poll(() => form.getByRole('option').allInnerTexts(), { timeout: 30_000 }).toEqual(['Berlin', 'Bern']);
    await form.getByRole('option', { name: 'Bern' }).click();
    expect(await city.inputValue()).toBe('Bern');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => form.count(), { timeout: 30_000 }).toBe(0);
    expect(chosen).toEqual(['Bern']);
    await page.close();
  });

  it('refuses an options answer Slack would refuse, and says why', async () => {
    const page = await openForm();
    const form = page.getByRole('dialog', { name: 'Pick a city' });
    await form.getByRole('combobox', { name: 'Broken' }).fill('xx');
    const refusals = page.getByRole('region', { name: 'Refused by Slack' });
    await expect
      .poll(() => refusals.innerText(), { timeout: 30_000 })
      .toContain('block_suggestion answer: invalid_options');
    expect(await refusals.innerText()).toContain('must be less than 76 characters [json-pointer:/options/0/text/text]');
    expect(await form.getByRole('option').count()).toBe(0);
    await page.close();
  });
});
