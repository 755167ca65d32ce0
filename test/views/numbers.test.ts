import { describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { numbersMessage, searchResultsBlocks, searchResultsMessage } from '../../src/slack/views/numbers.js';
import {
  available,
  buttonLabel,
  elements,
  HOSTILE,
  HOSTILE_ESCAPED,
  limitViolations,
  many,
  page,
  purchased,
  rawHostileKeys,
  rendered,
  unescapedMarkup,
} from './support.js';

const numbers = [
  purchased({ id: 'pn_1', number: '+14155550100', agentId: 'ag_1' }),
  purchased({ id: 'pn_2', number: '+14155550101' }),
];
const agentNames = { ag_1: 'Support bot' };

describe('numbersMessage', () => {
  it('shows each number with id, status and its route', () => {
    const text = rendered(numbersMessage({ numbers, agentNames, role: 'viewer' }));
    expect(text).toContain('*+14155550100*  `pn_1` · active\nRoutes to *Support bot* (`ag_1`)');
    expect(text).toContain('*+14155550101*  `pn_2` · active\n_Not routed_');
  });

  it('names an agent it has no name for by its id', () => {
    const text = rendered(numbersMessage({ numbers: [purchased({ agentId: 'ag_gone' })], agentNames, role: 'viewer' }));
    expect(text).toContain('Routes to `ag_gone`');
  });

  it('gives a viewer no change buttons', () => {
    const shown = numbersMessage({ numbers, agentNames, role: 'viewer' });
    for (const action of [ACTION.mapNumber, ACTION.releaseNumber, ACTION.searchNumbers]) {
      expect(elements(shown, action)).toEqual([]);
    }
  });

  it('gives an operator Map per number and Buy a number, but no Release', () => {
    const shown = numbersMessage({ numbers, agentNames, role: 'operator' });
    expect(elements(shown, ACTION.mapNumber).map((button) => button.value)).toEqual(['+14155550100', '+14155550101']);
    expect(elements(shown, ACTION.searchNumbers).map(buttonLabel)).toEqual(['Buy a number']);
    expect(elements(shown, ACTION.releaseNumber)).toEqual([]);
  });

  it('gives an admin a danger Release per number, valued with the number id', () => {
    const releases = elements(numbersMessage({ numbers, agentNames, role: 'admin' }), ACTION.releaseNumber);
    expect(releases.map((button) => [button.value, button.style])).toEqual([
      ['pn_1', 'danger'],
      ['pn_2', 'danger'],
    ]);
  });

  it('says when there are no numbers', () => {
    expect(rendered(numbersMessage({ numbers: [], agentNames, role: 'admin' }))).toContain('No numbers yet.');
  });

  it('stays within 50 blocks for 300 numbers and says how many are left out', () => {
    const lots = many(300, (i) => purchased({ id: `pn_${i}`, number: `+1415555${String(i).padStart(4, '0')}` }));
    const shown = numbersMessage({ numbers: lots, agentNames, role: 'admin' });
    expect(shown.blocks.length).toBeLessThanOrEqual(50);
    expect(elements(shown, ACTION.releaseNumber)).toHaveLength(20);
    expect(rendered(shown)).toContain('and 280 more');
  });

  it('escapes agent names and provider values', () => {
    const shown = numbersMessage({
      numbers: [purchased({ id: HOSTILE, number: HOSTILE, status: HOSTILE, agentId: 'ag_1' })],
      agentNames: { ag_1: HOSTILE },
      role: 'admin',
    });
    expect(rendered(shown)).toContain(`Routes to *${HOSTILE_ESCAPED}*`);
    expect(unescapedMarkup(shown)).toEqual([]);
    expect(rawHostileKeys(shown)).toEqual([]);
  });
});

describe('searchResultsBlocks', () => {
  it('shows each number with its region and capabilities', () => {
    const text = rendered(searchResultsBlocks({ page: page([available()]), region: 'US', role: 'viewer' }));
    expect(text).toContain('*Available numbers in United States (US)*');
    expect(text).toContain('*+14155550123*  US · voice, sms');
  });

  it('offers Buy, valued with the number, only on voice-capable numbers', () => {
    const results = page([
      available({ number: '+14155550123', capabilities: ['voice', 'sms'] }),
      available({ number: '+14155550124', capabilities: ['sms'] }),
      available({ number: '+14155550125', capabilities: [] }),
    ]);
    const blocks = searchResultsBlocks({ page: results, region: 'US', role: 'operator' });
    expect(elements(blocks, ACTION.buyNumber).map((button) => [button.value, buttonLabel(button)])).toEqual([
      ['+14155550123', 'Buy'],
    ]);
    const text = rendered(blocks);
    expect(text).toContain("*+14155550124*  US · sms\n:no_entry_sign: no voice: can't serve an AI agent");
    expect(text).toContain("*+14155550125*  US · none\n:no_entry_sign: no voice: can't serve an AI agent");
    expect(text).not.toMatch(/\+14155550123[^\n]*\n:no_entry_sign:/);
  });

  it('gives a viewer no Buy button and says what buying needs', () => {
    const blocks = searchResultsBlocks({ page: page([available()]), region: 'US', role: 'viewer' });
    expect(elements(blocks, ACTION.buyNumber)).toEqual([]);
    expect(rendered(blocks)).toContain('VOICE_OPERATORS');
  });

  it('offers More, carrying region and cursor, exactly while next_cursor is not null', () => {
    const withMore = searchResultsBlocks({ page: page([available()], 'c_2'), region: 'GB', role: 'viewer' });
    const more = elements(withMore, ACTION.moreNumbers);
    expect(more).toHaveLength(1);
    expect(JSON.parse(String(more[0]?.value))).toEqual({ region: 'GB', cursor: 'c_2' });
    const last = searchResultsBlocks({ page: page([available()], null), region: 'GB', role: 'viewer' });
    expect(elements(last, ACTION.moreNumbers)).toEqual([]);
  });

  it('leaves the region out of More when the search had none', () => {
    const more = elements(
      searchResultsBlocks({ page: page([available()], 'c_2'), role: 'viewer' }),
      ACTION.moreNumbers,
    );
    expect(JSON.parse(String(more[0]?.value))).toEqual({ cursor: 'c_2' });
  });

  it('says when no numbers are available in the region', () => {
    const blocks = searchResultsBlocks({ page: page([]), region: 'JP', role: 'operator' });
    expect(rendered(blocks)).toBe('No numbers available in JP.');
  });

  it('keeps a 100-number page within 50 blocks and says that some are not shown', () => {
    const results = page(
      many(100, (i) => available({ number: `+1415555${String(i).padStart(4, '0')}` })),
      'c_2',
    );
    const shown = searchResultsMessage({ page: results, region: 'US', role: 'viewer' });
    expect(shown.blocks.length).toBeLessThanOrEqual(50);
    expect(rendered(shown)).toContain('Showing 40 of the 100 numbers on this page.');
    expect(elements(shown, ACTION.moreNumbers)).toHaveLength(1);
    expect(limitViolations(shown)).toEqual([]);
  });

  it('escapes the region, numbers and capabilities the provider sends', () => {
    const results = page([available({ number: HOSTILE, region: HOSTILE, capabilities: ['voice', HOSTILE] })]);
    const shown = searchResultsMessage({ page: results, region: HOSTILE, role: 'operator' });
    expect(rendered(shown)).toContain(`Available numbers in ${HOSTILE_ESCAPED}`);
    expect(unescapedMarkup(shown)).toEqual([]);
    expect(rawHostileKeys(shown)).toEqual([]);
  });
});
