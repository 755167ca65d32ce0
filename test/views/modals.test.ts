import type { InputBlock, StaticSelect } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { REGIONS } from '../../src/ops/regions.js';
import { ACTION, CALLBACK, INPUT, PAGE } from '../../src/slack/ids.js';
import { COMMON_LOCALES } from '../../src/slack/views/locales.js';
import {
  agentCreatedModal,
  createAgentModal,
  infoModal,
  loadingModal,
  mapModal,
  searchModal,
} from '../../src/slack/views/modals.js';
import {
  agent,
  available,
  createdAgent,
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

function input(view: { blocks: unknown[] }, blockId: string): InputBlock {
  const found = view.blocks.find((block) => (block as InputBlock).block_id === blockId);
  if (!found) throw new Error(`no input block ${blockId}`);
  return found as InputBlock;
}

function select(view: { blocks: unknown[] }, blockId: string): StaticSelect {
  return input(view, blockId).element as StaticSelect;
}

describe('createAgentModal', () => {
  it('asks for a name and a language, and submits as Create', () => {
    const view = createAgentModal({ privateMetadata: '{"channel":"C1"}' });
    expect(view.callback_id).toBe(CALLBACK.createAgent);
    expect(view.submit?.text).toBe('Create');
    expect(view.close?.text).toBe('Cancel');
    expect(view.private_metadata).toBe('{"channel":"C1"}');
    const name = input(view, INPUT.agentName.block);
    expect(name.element).toMatchObject({
      type: 'plain_text_input',
      action_id: INPUT.agentName.action,
      max_length: 100,
    });
    expect(name.optional).toBeUndefined();
    const language = select(view, INPUT.agentLanguage.block);
    expect(language.action_id).toBe(INPUT.agentLanguage.action);
    expect(language.options?.map((choice) => choice.value)).toEqual(COMMON_LOCALES.map((locale) => locale.tag));
    expect(language.initial_option).toBeUndefined();
    expect(input(view, INPUT.agentLanguage.block).optional).toBe(true);
    const other = input(view, INPUT.agentLanguageOther.block);
    expect(other.optional).toBe(true);
    expect(other.label.text).toBe('Other locale, e.g. sv-SE');
    expect(other.element).toMatchObject({ action_id: INPUT.agentLanguageOther.action });
  });

  it('fills in what the command already gave', () => {
    const view = createAgentModal({ agentName: 'Support bot', language: 'fr-CA', privateMetadata: '' });
    expect(input(view, INPUT.agentName.block).element).toMatchObject({ initial_value: 'Support bot' });
    expect(select(view, INPUT.agentLanguage.block).initial_option?.value).toBe('fr-CA');
    expect(input(view, INPUT.agentLanguageOther.block).element).not.toHaveProperty('initial_value');
  });

  it('puts a language missing from the list in the other-locale field', () => {
    const view = createAgentModal({ language: 'sv-SE', privateMetadata: '' });
    expect(select(view, INPUT.agentLanguage.block).initial_option).toBeUndefined();
    expect(input(view, INPUT.agentLanguageOther.block).element).toMatchObject({ initial_value: 'sv-SE' });
  });

  it('refuses private_metadata longer than Slack keeps, rather than cut it', () => {
    expect(() => createAgentModal({ privateMetadata: 'x'.repeat(3001) })).toThrow(RangeError);
  });
});

describe('searchModal', () => {
  const at = (region: string) => ({ region, cursors: [], skipped: 0 });

  it('offers a region picker set to the region searched', () => {
    const view = searchModal({ position: at('GB'), role: 'viewer', privateMetadata: '' });
    const [picker] = elements(view, ACTION.searchRegion) as unknown as StaticSelect[];
    expect(picker?.options?.map((choice) => choice.value)).toEqual(REGIONS.map((region) => region.code));
    expect(picker?.initial_option?.value).toBe('GB');
    expect(view.callback_id).toBe(CALLBACK.searchNumbers);
    expect(view.submit).toBeUndefined();
    expect(view.close?.text).toBe('Done');
  });

  it('shows loading, then the error or the results', () => {
    expect(rendered(searchModal({ role: 'viewer', loading: true, privateMetadata: '' }))).toContain('Searching…');
    const failed = searchModal({ position: at('US'), role: 'viewer', error: HOSTILE, privateMetadata: '' });
    expect(rendered(failed)).toContain(`:warning: ${HOSTILE_ESCAPED}`);
    expect(unescapedMarkup(failed)).toEqual([]);
    const found = searchModal({
      position: at('US'),
      page: page([available()], 'c_2'),
      role: 'operator',
      privateMetadata: '',
    });
    expect(elements(found, ACTION.buyNumber)).toHaveLength(1);
    expect(elements(found, PAGE.search.next)).toHaveLength(1);
  });

  it('asks for a region before any search', () => {
    expect(rendered(searchModal({ role: 'viewer', privateMetadata: '' }))).toContain('Pick a region');
  });

  it('keeps a 100-number page within the limits of a modal', () => {
    const results = page(
      many(100, (i) => available({ number: `+1415555${String(i).padStart(4, '0')}` })),
      'c',
    );
    const view = searchModal({ position: at('US'), page: results, role: 'admin', privateMetadata: '' });
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(limitViolations(view)).toEqual([]);
  });
});

describe('mapModal', () => {
  const numbers = [
    purchased({ number: '+14155550100', agentId: 'ag_1' }),
    purchased({ id: 'pn_2', number: '+14155550101' }),
  ];
  const agents = [agent({ id: 'ag_1', name: 'Support bot' }), agent({ id: 'ag_2', name: 'Sales bot' })];

  it('offers purchased numbers with their current route, and agents by name and id', () => {
    const view = mapModal({ numbers, agents, privateMetadata: 'm' });
    expect(view.callback_id).toBe(CALLBACK.mapNumber);
    expect(view.submit?.text).toBe('Map');
    const numberChoices = select(view, INPUT.mapNumber.block).options ?? [];
    expect(numberChoices.map((choice) => [choice.text.text, choice.value])).toEqual([
      ['+14155550100 → Support bot', '+14155550100'],
      ['+14155550101 (not routed)', '+14155550101'],
    ]);
    const agentChoices = select(view, INPUT.mapAgent.block).options ?? [];
    expect(agentChoices.map((choice) => [choice.text.text, choice.value])).toEqual([
      ['Support bot (ag_1)', 'ag_1'],
      ['Sales bot (ag_2)', 'ag_2'],
    ]);
    expect(select(view, INPUT.mapNumber.block).action_id).toBe(INPUT.mapNumber.action);
    expect(select(view, INPUT.mapAgent.block).action_id).toBe(INPUT.mapAgent.action);
  });

  it('preselects the number it was opened for', () => {
    const view = mapModal({ numbers, agents, initialNumber: '+14155550101', privateMetadata: '' });
    expect(select(view, INPUT.mapNumber.block).initial_option?.value).toBe('+14155550101');
  });

  it('explains what is missing instead of a form that cannot be submitted', () => {
    const noNumbers = mapModal({ numbers: [], agents, privateMetadata: '' });
    expect(noNumbers.callback_id).toBe(CALLBACK.info);
    expect(noNumbers.submit).toBeUndefined();
    expect(rendered(noNumbers)).toContain('Buy a number first');
    const noAgents = mapModal({ numbers, agents: [], privateMetadata: '' });
    expect(rendered(noAgents)).toContain('Create an agent first');
  });

  it('keeps to 100 options of 75 characters, keeping the agent id visible', () => {
    const lots = many(150, (i) => purchased({ id: `pn_${i}`, number: `+1415555${String(i).padStart(4, '0')}` }));
    const longNamed = many(150, (i) => agent({ id: `ag_${i}`, name: `${'Very long agent name '.repeat(5)}${i}` }));
    const view = mapModal({ numbers: lots, agents: longNamed, privateMetadata: '' });
    expect(limitViolations(view)).toEqual([]);
    expect(select(view, INPUT.mapNumber.block).options).toHaveLength(100);
    expect(select(view, INPUT.mapAgent.block).options?.[7]?.text.text).toMatch(/… \(ag_7\)$/);
    expect(rendered(view)).toContain('/voice map NUMBER AGENT_ID');
  });

  it('shows hostile names only as plain text, which Slack never parses', () => {
    const view = mapModal({ numbers, agents: [agent({ id: 'ag_1', name: HOSTILE })], privateMetadata: '' });
    expect(select(view, INPUT.mapAgent.block).options?.[0]?.text).toEqual({
      type: 'plain_text',
      text: `${HOSTILE} (ag_1)`,
      emoji: true,
    });
    expect(rawHostileKeys(view)).toEqual([]);
    expect(unescapedMarkup(view)).toEqual([]);
  });
});

describe('infoModal, loadingModal and agentCreatedModal', () => {
  it('are read-only modals with short titles', () => {
    const loading = loadingModal('Searching the provider for numbers');
    expect(loading.callback_id).toBe(CALLBACK.info);
    expect(loading.title.text.length).toBeLessThanOrEqual(24);
    expect(loading.title.text.endsWith('…')).toBe(true);
    expect(rendered(loading)).toContain('Loading…');
    const info = infoModal('Numbers', { text: 'x', blocks: [] });
    expect(info.submit).toBeUndefined();
    expect(info.close?.text).toBe('Close');
  });

  it('shows a created agent its token', () => {
    const view = agentCreatedModal(createdAgent());
    expect(view.callback_id).toBe(CALLBACK.info);
    expect(rendered(view)).toContain('tok_SECRET_only_once');
  });
});
