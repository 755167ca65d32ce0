import { describe, expect, it } from 'vitest';
import { ACTION, PAGE } from '../../src/slack/ids.js';
import { numbersMessage, searchResultsBlocks, searchResultsMessage } from '../../src/slack/views/numbers.js';
import {
  available,
  buttonLabel,
  elements,
  HOSTILE,
  HOSTILE_ESCAPED,
  limitViolations,
  many,
  numbersPage,
  page,
  purchased,
  rawHostileKeys,
  rendered,
  unescapedMarkup,
} from './support.js';

const numbers = numbersPage([
  purchased({
    id: 'pn_1',
    number: '+14155550100',
    region: 'US',
    capabilities: ['voice', 'sms'],
    agentId: 'ag_1',
    agentName: 'Support bot',
  }),
  purchased({ id: 'pn_2', number: '+14155550101', region: 'US' }),
  purchased({ id: 'pn_3', number: '+14155550102', region: 'US', capabilities: ['sms'] }),
]);
/** Where a search stands: its region and the provider cursors where the pages so far started. */
const at = (region?: string, cursors: string[] = [], skipped = 0) => ({
  region,
  starts: cursors.map((cursor) => ({ cursor })),
  skipped,
});

describe('numbersMessage', () => {
  it('shows each number with id, status and its route', () => {
    const text = rendered(numbersMessage({ page: numbers, role: 'viewer' }));
    expect(text).toContain('*+14155550100*  `pn_1` · active · US · voice, sms\nRoutes to *Support bot* (`ag_1`)');
    expect(text).toContain('*+14155550101*  `pn_2` · active · US\n_Not routed_');
    expect(text).toContain(
      "*+14155550102*  `pn_3` · active · US · sms\n:no_entry_sign: no voice: can't serve an AI agent",
    );
  });

  it('names an agent it has no name for by its id', () => {
    const text = rendered(numbersMessage({ page: numbersPage([purchased({ agentId: 'ag_gone' })]), role: 'viewer' }));
    expect(text).toContain('Routes to `ag_gone`');
  });

  it('gives a viewer no change buttons', () => {
    const shown = numbersMessage({ page: numbers, role: 'viewer' });
    for (const action of [ACTION.mapNumber, ACTION.releaseNumber, ACTION.searchNumbers]) {
      expect(elements(shown, action)).toEqual([]);
    }
  });

  it('gives an operator Map per number and Buy a number, but no Release', () => {
    const shown = numbersMessage({ page: numbers, role: 'operator' });
    expect(elements(shown, ACTION.mapNumber).map((button) => button.value)).toEqual([
      '+14155550100',
      '+14155550101',
      '+14155550102',
    ]);
    expect(elements(shown, ACTION.searchNumbers).map(buttonLabel)).toEqual(['Buy a number']);
    expect(elements(shown, ACTION.releaseNumber)).toEqual([]);
  });

  it('gives an admin a danger Release per number, valued with the number id', () => {
    const releases = elements(numbersMessage({ page: numbers, role: 'admin' }), ACTION.releaseNumber);
    expect(releases.map((button) => [button.value, button.style])).toEqual([
      ['pn_1', 'danger'],
      ['pn_2', 'danger'],
      ['pn_3', 'danger'],
    ]);
  });

  it('says when there are no numbers', () => {
    expect(rendered(numbersMessage({ page: numbersPage([]), role: 'admin' }))).toContain('No numbers yet.');
  });

  it('shows a page of 10,000 numbers within 50 blocks, where it stands, and Previous and Next with the filter', () => {
    const lots = many(10_000, (i) => purchased({ id: `pn_${i}`, number: `+1415555${String(i).padStart(4, '0')}` }));
    const shown = numbersMessage({ page: numbersPage(lots, 250, 20, { routed: false }), role: 'admin' });
    expect(shown.blocks.length).toBeLessThanOrEqual(50);
    expect(limitViolations(shown)).toEqual([]);
    expect(elements(shown, ACTION.releaseNumber).map((button) => button.value)).toEqual(
      many(20, (i) => `pn_${4980 + i}`),
    );
    expect(rendered(shown)).toContain('*Phone numbers* · not routed');
    expect(rendered(shown)).toContain('Page 250 of 500 · 10,000 numbers');
    const value = (id: string) => JSON.parse(String(elements(shown, id)[0]?.value));
    expect(value(PAGE.numbers.previous)).toEqual({ page: 249, filter: { routed: false } });
    expect(value(PAGE.numbers.next)).toEqual({ page: 251, filter: { routed: false } });
  });

  it('says when no number matches a filter', () => {
    const shown = numbersMessage({ page: numbersPage([], 1, 20, { region: 'DE', digits: '30' }), role: 'viewer' });
    expect(rendered(shown)).toContain('*Phone numbers* · in Germany (DE), containing `30`\nNo numbers match.');
    expect(rendered(shown)).toContain('Page 1 of 1 · 0 numbers');
    expect(elements(shown, PAGE.numbers.next)).toEqual([]);
  });

  it('escapes agent names and provider values', () => {
    const shown = numbersMessage({
      page: numbersPage([
        purchased({
          id: HOSTILE,
          number: HOSTILE,
          status: HOSTILE,
          region: HOSTILE,
          agentId: 'ag_1',
          agentName: HOSTILE,
        }),
      ]),
      role: 'admin',
    });
    expect(rendered(shown)).toContain(`Routes to *${HOSTILE_ESCAPED}*`);
    expect(unescapedMarkup(shown)).toEqual([]);
    expect(rawHostileKeys(shown)).toEqual([]);
  });
});

describe('searchResultsBlocks', () => {
  it('shows each number with its region and capabilities', () => {
    const text = rendered(searchResultsBlocks({ page: page([available()]), position: at('US'), role: 'viewer' }));
    expect(text).toContain('*Available numbers in United States (US)*');
    expect(text).toContain('*+14155550123*  US · voice, sms');
  });

  it('offers Buy, valued with the number, only on voice-capable numbers', () => {
    const results = page([
      available({ number: '+14155550123', capabilities: ['voice', 'sms'] }),
      available({ number: '+14155550124', capabilities: ['sms'] }),
      available({ number: '+14155550125', capabilities: [] }),
    ]);
    const blocks = searchResultsBlocks({ page: results, position: at('US'), role: 'operator' });
    expect(elements(blocks, ACTION.buyNumber).map((button) => [button.value, buttonLabel(button)])).toEqual([
      ['+14155550123', 'Buy'],
    ]);
    const text = rendered(blocks);
    expect(text).toContain("*+14155550124*  US · sms\n:no_entry_sign: no voice: can't serve an AI agent");
    expect(text).toContain("*+14155550125*  US · none\n:no_entry_sign: no voice: can't serve an AI agent");
    expect(text).not.toMatch(/\+14155550123[^\n]*\n:no_entry_sign:/);
  });

  it('gives a viewer no Buy button and says what buying needs', () => {
    const blocks = searchResultsBlocks({ page: page([available()]), position: at('US'), role: 'viewer' });
    expect(elements(blocks, ACTION.buyNumber)).toEqual([]);
    expect(rendered(blocks)).toContain('`/voice access` says who can give it');
  });

  it('offers Next, carrying the region and where the pages so far started, exactly while there are more', () => {
    const withMore = searchResultsBlocks({ page: page([available()], 'c_2'), position: at('GB'), role: 'viewer' });
    const next = elements(withMore, PAGE.search.next);
    expect(next).toHaveLength(1);
    expect(JSON.parse(String(next[0]?.value))).toEqual({ region: 'GB', starts: [{ cursor: 'c_2' }], skipped: 0 });
    expect(elements(withMore, PAGE.search.previous)).toEqual([]);
    expect(rendered(withMore)).toContain('Page 1 · more on the next pages');
    const last = searchResultsBlocks({ page: page([available()], null), position: at('GB'), role: 'viewer' });
    expect(elements(last, PAGE.search.next)).toEqual([]);
  });

  it('offers Previous back along the kept cursors, with the page number', () => {
    const third = searchResultsBlocks({
      page: page([available()], null),
      position: at('US', ['c2', 'c3']),
      role: 'viewer',
    });
    expect(rendered(third)).toContain('Page 3 · the last page');
    expect(JSON.parse(String(elements(third, PAGE.search.previous)[0]?.value))).toEqual({
      region: 'US',
      starts: [{ cursor: 'c2' }],
      skipped: 0,
    });
  });

  it('keeps a long way back within a button, and says when Previous goes back to the first page', () => {
    let position = at('US');
    for (let i = 0; i < 200; i++) {
      const [next] = elements(
        searchResultsBlocks({ page: page([available()], `cursor-${i}-${'x'.repeat(30)}`), position, role: 'viewer' }),
        PAGE.search.next,
      );
      expect(String(next?.value).length).toBeLessThanOrEqual(2000);
      position = JSON.parse(String(next?.value));
    }
    const deep = searchResultsBlocks({ page: page([available()], 'more'), position, role: 'viewer' });
    expect(rendered(deep)).toContain('Page 201 ·');
    expect(position.skipped).toBeGreaterThan(0);
    const oldest = { ...position, starts: position.starts.slice(-1) };
    const back = searchResultsBlocks({ page: page([available()], 'more'), position: oldest, role: 'viewer' });
    const [previous] = elements(back, PAGE.search.previous);
    expect(buttonLabel(previous ?? {})).toBe('◀ First page');
    expect(JSON.parse(String(previous?.value))).toEqual({ region: 'US', starts: [], skipped: 0 });
  });

  it('names the digits searched for, and says when it stopped looking before filling the page', () => {
    const position = { ...at('US'), digits: '415' };
    const found = page([available()], 'c_9', { scanned: 1000, stopped: true });
    const text = rendered(searchResultsBlocks({ page: found, position, role: 'viewer' }));
    expect(text).toContain('*Available numbers in United States (US) containing `415`*');
    expect(text).toContain(
      'Looked through 1,000 numbers for sale and stopped there, having found 1: Next looks further.',
    );
    const [next] = elements(searchResultsBlocks({ page: found, position, role: 'viewer' }), PAGE.search.next);
    expect(JSON.parse(String(next?.value))).toEqual({
      region: 'US',
      digits: '415',
      starts: [{ cursor: 'c_9' }],
      skipped: 0,
    });
    const none = searchResultsBlocks({ page: page([]), position: { ...position, digits: '999' }, role: 'viewer' });
    expect(rendered(none)).toBe('No numbers available in United States (US) containing `999`.');
  });

  it('says when no numbers are available in the region', () => {
    const blocks = searchResultsBlocks({ page: page([]), position: at('JP'), role: 'operator' });
    expect(rendered(blocks)).toBe('No numbers available in Japan (JP).');
  });

  it('keeps a 100-number page within 50 blocks and says that some are not shown', () => {
    const results = page(
      many(100, (i) => available({ number: `+1415555${String(i).padStart(4, '0')}` })),
      'c_2',
    );
    const shown = searchResultsMessage({ page: results, position: at('US'), role: 'viewer' });
    expect(shown.blocks.length).toBeLessThanOrEqual(50);
    expect(rendered(shown)).toContain('Showing 40 of the 100 numbers on this page.');
    expect(elements(shown, PAGE.search.next)).toHaveLength(1);
    expect(limitViolations(shown)).toEqual([]);
  });

  it('escapes the region, numbers and capabilities the provider sends', () => {
    const results = page([available({ number: HOSTILE, region: HOSTILE, capabilities: ['voice', HOSTILE] })]);
    const shown = searchResultsMessage({ page: results, position: at(HOSTILE), role: 'operator' });
    expect(rendered(shown)).toContain(`Available numbers in ${HOSTILE_ESCAPED}`);
    expect(unescapedMarkup(shown)).toEqual([]);
    expect(rawHostileKeys(shown)).toEqual([]);
  });
});
