// Searching available numbers: by command, page by page, and in the search modal; Buy only where it can work.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, PAGE } from '../../src/slack/ids.js';
import { OPERATOR, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import {
  type Block,
  blocksOf,
  buttonValues,
  buyThroughApp,
  confirmAs,
  EPHEMERAL,
  hasElement,
  onlyButton,
  type SandboxAvailable,
  sandboxAvailable,
  sandboxRequest,
  shownText,
  viewOf,
} from './support.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

interface ResultRow {
  number: string;
  text: string;
  buy?: string;
}

/** The result rows of a search answer: one section per number, `*+1…*` first, with its Buy button if any. */
function resultRows(blocks: Block[]): ResultRow[] {
  return blocks.flatMap((block) => {
    const text = block.type === 'section' ? (block.text?.text ?? '') : '';
    const number = /^\*(\+\d+)\*/.exec(text)?.[1];
    if (!number) return [];
    const buy = block.accessory?.action_id === ACTION.buyNumber ? block.accessory.value : undefined;
    return [{ number, text, buy }];
  });
}

/** Every row offers Buy exactly when the sandbox says the number can take voice calls; the others say why not. */
function expectBuyOnlyOnVoice(rows: ResultRow[], inventory: SandboxAvailable[]) {
  for (const row of rows) {
    const available = inventory.find((entry) => entry.number === row.number);
    expect(available, `${row.number} is for sale at the sandbox`).toBeDefined();
    if (available?.capabilities.includes('voice')) {
      expect(row.buy, `Buy on ${row.number}`).toBe(row.number);
      expect(row.text).not.toContain('no voice');
    } else {
      expect(row.buy, `no Buy on SMS-only ${row.number}`).toBeUndefined();
      expect(row.text).toContain('no voice');
    }
  }
}

/** The value of the Next (or Previous) button, or undefined when the answer has none. */
function moreValue(blocks: Block[], actionId: string = PAGE.search.next): string | undefined {
  const [value, ...others] = buttonValues(blocks, actionId);
  expect(others).toHaveLength(0);
  return value;
}

describe('/voice numbers search REGION', () => {
  it('lists numbers with Buy on voice-capable ones only, marks the others, and offers Next', async () => {
    const searchesBefore = t.sandbox.requestCount('searchNumbers');
    const sent = await t.command('numbers search US', OPERATOR);
    expect(sent.status).toBe(200);
    const reply = await t.respondedTo(sent.responseUrlId);

    expect(reply.body.response_type).toBe('ephemeral');
    expect(shownText(reply)).toContain('Available numbers in United States (US)');
    const rows = resultRows(blocksOf(reply));
    expect(rows.length).toBeGreaterThan(1);
    // The sandbox offers every 7th number without voice: the first page holds some of each.
    expect(rows.some((row) => row.buy === undefined)).toBe(true);
    expect(rows.some((row) => row.buy !== undefined)).toBe(true);
    expect(t.sandbox.requestCount('searchNumbers')).toBe(searchesBefore + 1);
    expectBuyOnlyOnVoice(rows, await sandboxAvailable(t, 'US'));
    for (const row of rows) expect(row.text).toContain('US');

    const more = moreValue(blocksOf(reply));
    expect(more, 'a Next button while next_cursor is set').toBeDefined();
    expect(JSON.parse(more ?? '{}')).toMatchObject({ region: 'US', starts: [{ cursor: expect.any(String) }] });
    expect(moreValue(blocksOf(reply), PAGE.search.previous), 'no way back from the first page').toBeUndefined();
    expect(shownText(reply)).toContain('Page 1 · more on the next pages');
  });

  it('pages with Next, in place and numbered, to the last page, and back with Previous to the same pages', async () => {
    const first = await t.respondedTo((await t.command('numbers search US', OPERATOR)).responseUrlId);
    const pagesSeen = [resultRows(blocksOf(first)).map((row) => row.number)];
    const seen = new Set(pagesSeen[0]);
    let more = moreValue(blocksOf(first));
    let last = first;

    const press = async (actionId: string, value: string) => {
      const pressed = await t.action({ userId: OPERATOR, actionId, value, container: EPHEMERAL });
      const page = await t.respondedTo(pressed.responseUrlId);
      expect(page.body.replace_original, 'each page replaces the one before').toBe(true);
      return page;
    };
    while (more !== undefined) {
      const page = await press(PAGE.search.next, more);
      const rows = resultRows(blocksOf(page));
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(seen.has(row.number), `${row.number} was not on an earlier page`).toBe(false);
        expect(row.text).toContain('US');
        seen.add(row.number);
      }
      pagesSeen.push(rows.map((row) => row.number));
      expect(shownText(page)).toContain(`Page ${pagesSeen.length} ·`);
      more = moreValue(blocksOf(page));
      last = page;
      expect(pagesSeen.length, 'the pages come to an end').toBeLessThan(10);
    }

    // The sandbox's US inventory spans several pages, and the last one has no Next.
    expect(pagesSeen.length).toBeGreaterThan(1);
    expect(seen.size).toBeGreaterThan(20);
    expect(shownText(last)).toContain('the last page');

    for (let back = pagesSeen.length - 1; back >= 1; back--) {
      const previous = moreValue(blocksOf(last), PAGE.search.previous);
      expect(previous, `Previous on page ${back + 1}`).toBeDefined();
      last = await press(PAGE.search.previous, previous ?? '');
      expect(resultRows(blocksOf(last)).map((row) => row.number)).toEqual(pagesSeen[back - 1]);
      expect(shownText(last)).toContain(`Page ${back} ·`);
    }
    expect(moreValue(blocksOf(last), PAGE.search.previous)).toBeUndefined();
  });

  it('answers a malformed region with a clear message, without asking the provider', async () => {
    const searchesBefore = t.sandbox.requestCount('searchNumbers');
    const reply = await t.respondedTo((await t.command('numbers search USA', OPERATOR)).responseUrlId);
    const shown = shownText(reply);
    expect(shown).toContain('Region must be a two-letter region code');
    expect(shown).not.toContain('Input');
    expect(shown).toContain('US');
    expect(resultRows(blocksOf(reply))).toHaveLength(0);
    expect(t.sandbox.requestCount('searchNumbers')).toBe(searchesBefore);
  });

  it('shows a viewer the numbers without any Buy button, and says which role buying needs', async () => {
    const reply = await t.respondedTo((await t.command('numbers search US', VIEWER)).responseUrlId);
    expect(resultRows(blocksOf(reply)).length).toBeGreaterThan(0);
    expect(hasElement(blocksOf(reply), ACTION.buyNumber)).toBe(false);
    expect(shownText(reply)).toContain('`/voice access` says who can give it');
    // Looking further is still allowed.
    expect(moreValue(blocksOf(reply))).toBeDefined();
  });
});

describe('/voice numbers search without a region', () => {
  it('opens the search modal at once, with the trigger_id, before any provider call', async () => {
    const searchesBefore = t.sandbox.requestCount('searchNumbers');
    const mark = t.slack.mark();
    const sent = await t.command('numbers search', OPERATOR);
    const opened = await t.slack.waitFor('views.open', (call) => call.body.trigger_id === sent.triggerId, {
      since: mark,
    });
    const view = viewOf(opened);
    expect(view.callback_id).toBe(CALLBACK.searchNumbers);
    const regions = view.blocks
      .flatMap((block) => block.elements ?? [])
      .find((e) => e.action_id === ACTION.searchRegion);
    expect(regions?.options?.map((entry) => entry.value)).toEqual(expect.arrayContaining(['US', 'GB', 'DE']));
    expect(resultRows(view.blocks)).toHaveLength(0);
    expect(t.sandbox.requestCount('searchNumbers')).toBe(searchesBefore);
    // Nothing went to the channel or the response_url instead.
    expect(t.slack.calls('response_url').filter((call) => call.responseUrlId === sent.responseUrlId)).toHaveLength(0);
  });

  it('fills the modal with the chosen region’s numbers, and its Next button pages within the modal', async () => {
    const sent = await t.command('numbers search', OPERATOR);
    const open = await t.slack.waitFor('views.open', (call) => call.body.trigger_id === sent.triggerId);
    const privateMetadata = viewOf(open).private_metadata ?? '';
    const viewId = 'VSEARCHGB';

    const mark = t.slack.mark();
    const picked = await t.action({
      userId: OPERATOR,
      actionId: ACTION.searchRegion,
      selectedOption: { text: 'United Kingdom (GB)', value: 'GB' },
      container: { type: 'view', viewId, viewType: 'modal', callbackId: CALLBACK.searchNumbers, privateMetadata },
    });
    expect(picked.status).toBe(200);
    const filled = await t.slack.waitFor(
      'views.update',
      (call) => call.body.view_id === viewId && resultRows(blocksOf(call)).length > 0,
      { since: mark },
    );
    const view = viewOf(filled);
    expect(view.callback_id).toBe(CALLBACK.searchNumbers);
    expect(view.private_metadata).toBe(privateMetadata);
    expect(shownText(filled)).toContain('United Kingdom (GB)');
    const rows = resultRows(view.blocks);
    for (const row of rows) expect(row.number.startsWith('+44')).toBe(true);
    expectBuyOnlyOnVoice(rows, await sandboxAvailable(t, 'GB'));

    const more = onlyButton(view.blocks, PAGE.search.next);
    const moreMark = t.slack.mark();
    await t.action({
      userId: OPERATOR,
      actionId: PAGE.search.next,
      value: more,
      container: { type: 'view', viewId, viewType: 'modal', callbackId: CALLBACK.searchNumbers, privateMetadata },
    });
    const next = await t.slack.waitFor(
      'views.update',
      (call) => call.body.view_id === viewId && resultRows(blocksOf(call)).length > 0,
      { since: moreMark },
    );
    const nextRows = resultRows(blocksOf(next));
    const firstNumbers = new Set(rows.map((row) => row.number));
    for (const row of nextRows) {
      expect(row.number.startsWith('+44')).toBe(true);
      expect(firstNumbers.has(row.number)).toBe(false);
    }
  });

  it('shows a viewer who picks a region the numbers without Buy buttons', async () => {
    const viewId = 'VSEARCHVIEWER';
    const mark = t.slack.mark();
    await t.action({
      userId: VIEWER,
      actionId: ACTION.searchRegion,
      selectedOption: 'DE',
      container: { type: 'view', viewId, viewType: 'modal', callbackId: CALLBACK.searchNumbers },
    });
    const filled = await t.slack.waitFor(
      'views.update',
      (call) => call.body.view_id === viewId && resultRows(blocksOf(call)).length > 0,
      { since: mark },
    );
    expect(hasElement(blocksOf(filled), ACTION.buyNumber)).toBe(false);
    expect(shownText(filled)).toContain('`/voice access` says who can give it');
  });
});

describe('what a purchase learns', () => {
  it('keeps the capabilities a search showed, asking the provider nothing more, and shows them in the lists', async () => {
    const results = await t.respondedTo((await t.command('numbers search IT', OPERATOR)).responseUrlId);
    const [chosen] = resultRows(blocksOf(results)).filter((row) => row.buy !== undefined);
    const searches = t.sandbox.requestCount('searchNumbers');
    const pressed = await t.action({
      userId: OPERATOR,
      actionId: ACTION.buyNumber,
      value: chosen?.buy ?? '',
      container: EPHEMERAL,
    });
    const prompt = await t.respondedTo(pressed.responseUrlId);
    await confirmAs(t, OPERATOR, onlyButton(blocksOf(prompt), ACTION.confirmChange));
    // The one search more shows the list again after the buy; none was needed to learn the capabilities.
    expect(t.sandbox.requestCount('searchNumbers'), 'the search already said').toBe(searches + 1);

    const listed = shownText(
      await t.respondedTo((await t.command(`numbers ${chosen?.number}`, OPERATOR)).responseUrlId),
    );
    expect(listed).toContain('Region: Italy (IT) · Capabilities: voice, sms');
  });

  it('looks up the capabilities of a number bought by typing it, and marks one without voice', async () => {
    const smsOnly = (await sandboxAvailable(t, 'NL')).find((entry) => !entry.capabilities.includes('voice'));
    expect(smsOnly).toBeDefined();
    await buyThroughApp(t, OPERATOR, smsOnly?.number ?? '');
    const listed = shownText(await t.respondedTo((await t.command('numbers NL', OPERATOR)).responseUrlId));
    expect(listed).toContain(`*${smsOnly?.number}*`);
    expect(listed).toContain("· NL · sms\n:no_entry_sign: no voice: can't serve an AI agent");
  });
});

describe('/voice numbers search REGION DIGITS', () => {
  it('keeps only numbers containing the digits, across the provider’s pages, to the last', async () => {
    const forSale = await sandboxRequest(t, 'GET', '/list-available-numbers?region=US&limit=100');
    const wanted = (forSale.body.data as SandboxAvailable[]).filter((entry) => entry.number.includes('0105'));
    expect(wanted.length).toBeGreaterThan(1);
    const first = await t.respondedTo((await t.command('numbers search US 0105', VIEWER)).responseUrlId);
    expect(shownText(first)).toContain('Available numbers in United States (US) containing `0105`');
    const found = resultRows(blocksOf(first)).map((row) => row.number);
    expect(found).toEqual(wanted.map((entry) => entry.number));
    expect(moreValue(blocksOf(first)), 'one page holds them all').toBeUndefined();
    expect(shownText(first)).toContain('Page 1 · the last page');
  });

  it('splits a provider page holding more matches than a page over pages of its own, each match once', async () => {
    const forSale = await sandboxRequest(t, 'GET', '/list-available-numbers?region=DE&limit=100');
    const wanted = (forSale.body.data as SandboxAvailable[]).map((entry) => entry.number);
    expect(wanted.length).toBeGreaterThan(40);
    let page = await t.respondedTo((await t.command('numbers search DE 49', VIEWER)).responseUrlId);
    const seen = resultRows(blocksOf(page)).map((row) => row.number);
    for (let next = moreValue(blocksOf(page)); next !== undefined; next = moreValue(blocksOf(page))) {
      const pressed = await t.action({ userId: VIEWER, actionId: PAGE.search.next, value: next, container: EPHEMERAL });
      page = await t.respondedTo(pressed.responseUrlId);
      seen.push(...resultRows(blocksOf(page)).map((row) => row.number));
    }
    expect(seen).toEqual(wanted);
  });

  it('answers an unknown region as unknown, listing the known ones, without asking the provider', async () => {
    const searches = t.sandbox.requestCount('searchNumbers');
    const answer = shownText(await t.respondedTo((await t.command('numbers search ZZ', VIEWER)).responseUrlId));
    expect(answer).toContain('ZZ is not a region Voice Ops knows. Known regions: US (United States), CA (Canada)');
    expect(answer).not.toContain('No numbers available');
    expect(t.sandbox.requestCount('searchNumbers')).toBe(searches);
  });

  it('stops after 1,000 numbers and says so, Next looks further, and Previous comes back', async () => {
    const big = await startTestApp({ sandboxNumbersPerRegion: 2000 });
    try {
      // Line 0199 of each area code is among the last of the region's 2,000 numbers.
      const first = await big.respondedTo((await big.command('numbers search US 0199', VIEWER)).responseUrlId);
      expect(resultRows(blocksOf(first))).toEqual([]);
      expect(shownText(first)).toContain(
        'Looked through 1,000 numbers for sale and stopped there, having found 0: Next looks further.',
      );
      expect(big.sandbox.requestCount('searchNumbers')).toBe(10);

      const next = await big.action({
        userId: VIEWER,
        actionId: PAGE.search.next,
        value: moreValue(blocksOf(first)) ?? '',
        container: EPHEMERAL,
      });
      const second = await big.respondedTo(next.responseUrlId);
      const found = resultRows(blocksOf(second)).map((row) => row.number);
      expect(found).toHaveLength(20);
      for (const number of found) expect(number).toMatch(/^\+1\d{3}5550199$/);
      expect(shownText(second)).toContain('Page 2 · the last page');

      const back = await big.action({
        userId: VIEWER,
        actionId: PAGE.search.previous,
        value: moreValue(blocksOf(second), PAGE.search.previous) ?? '',
        container: EPHEMERAL,
      });
      expect(shownText(await big.respondedTo(back.responseUrlId))).toContain('Page 1 · more on the next pages');
    } finally {
      await big.close();
    }
  });
});

describe('a buy from the search form', () => {
  it('rewrites the form underneath once confirmed, without a Buy button for the number bought', async () => {
    const viewId = 'VSEARCHBUY';
    const container = { type: 'view', viewId, viewType: 'modal', callbackId: CALLBACK.searchNumbers } as const;
    let mark = t.slack.mark();
    await t.action({ userId: OPERATOR, actionId: ACTION.searchRegion, selectedOption: 'FR', container });
    const filled = await t.slack.waitFor(
      'views.update',
      (call) => call.body.view_id === viewId && resultRows(blocksOf(call)).length > 0,
      { since: mark },
    );
    const number = resultRows(blocksOf(filled)).find((row) => row.buy)?.buy ?? '';

    mark = t.slack.mark();
    await t.action({ userId: OPERATOR, actionId: ACTION.buyNumber, value: number, container });
    const pushed = await t.slack.waitFor('views.push', () => true, { since: mark });
    const prompt = await t.slack.waitFor(
      'views.update',
      (call) => viewOf(call).callback_id === CALLBACK.confirmChange,
      { since: mark },
    );
    expect(pushed.body.trigger_id).toBeDefined();

    mark = t.slack.mark();
    await t.submit({
      userId: OPERATOR,
      viewId: String(prompt.body.view_id),
      callbackId: CALLBACK.confirmChange,
      privateMetadata: viewOf(prompt).private_metadata,
      stateValues: {},
    });
    const rewritten = await t.slack.waitFor('views.update', (call) => call.body.view_id === viewId, { since: mark });
    expect(viewOf(rewritten).callback_id).toBe(CALLBACK.searchNumbers);
    const rows = resultRows(blocksOf(rewritten));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((row) => row.buy)).not.toContain(number);
    expect(t.sandbox.requestCount('buyNumber')).toBeGreaterThan(0);
  });
});
