import type { ExternalSelect, InputBlock, StaticSelect } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { REGIONS } from '../../src/ops/regions.js';
import { ACTION, CALLBACK, INPUT, PAGE } from '../../src/slack/ids.js';
import { COMMON_LOCALES, OTHER_LOCALE } from '../../src/slack/views/locales.js';
import {
  agentCreatedModal,
  agentOptions,
  createAgentModal,
  infoModal,
  loadingModal,
  mapModal,
  numberOptions,
  searchModal,
} from '../../src/slack/views/modals.js';
import {
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

function typeAhead(view: { blocks: unknown[] }, blockId: string): ExternalSelect {
  return input(view, blockId).element as ExternalSelect;
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
    expect(language.options?.map((choice) => choice.value)).toEqual([
      ...COMMON_LOCALES.map((locale) => locale.tag),
      OTHER_LOCALE,
    ]);
    expect(language.initial_option).toBeUndefined();
    const other = input(view, INPUT.agentLanguageOther.block);
    expect(other.label.text).toBe('Other locale, e.g. sv-SE');
    expect(other.element).toMatchObject({ action_id: INPUT.agentLanguageOther.action });
  });

  it('requires a language, and marks optional only the locale field needed when Language is “Other locale”', () => {
    const view = createAgentModal({ privateMetadata: '' });
    expect(input(view, INPUT.agentLanguage.block).optional).toBeUndefined();
    expect(select(view, INPUT.agentLanguage.block).options?.at(-1)?.text.text).toBe('Other locale: type it below');
    const other = input(view, INPUT.agentLanguageOther.block);
    expect(other.optional).toBe(true);
    expect(other.hint?.text).toMatch(/^Needed only when Language is “Other locale”/);
  });

  it('fills in what the command already gave', () => {
    const view = createAgentModal({ agentName: 'Support bot', language: 'fr-CA', privateMetadata: '' });
    expect(input(view, INPUT.agentName.block).element).toMatchObject({ initial_value: 'Support bot' });
    expect(select(view, INPUT.agentLanguage.block).initial_option?.value).toBe('fr-CA');
    expect(input(view, INPUT.agentLanguageOther.block).element).not.toHaveProperty('initial_value');
  });

  it('puts a language missing from the list in the other-locale field', () => {
    const view = createAgentModal({ language: 'sv-SE', privateMetadata: '' });
    expect(select(view, INPUT.agentLanguage.block).initial_option?.value).toBe(OTHER_LOCALE);
    expect(input(view, INPUT.agentLanguageOther.block).element).toMatchObject({ initial_value: 'sv-SE' });
  });

  it('refuses private_metadata longer than Slack keeps, rather than cut it', () => {
    expect(() => createAgentModal({ privateMetadata: 'x'.repeat(3001) })).toThrow(RangeError);
  });
});

describe('searchModal', () => {
  const at = (region: string) => ({ region, starts: [], skipped: 0 });

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
  const routed = purchased({ number: '+14155550100', region: 'US', agentId: 'ag_1', agentName: 'Support bot' });

  it('offers type-ahead pickers for the number and the agent, saying how many there are', () => {
    const view = mapModal({ numbers: 10_000, agents: 1000, privateMetadata: 'm' });
    expect(view.callback_id).toBe(CALLBACK.mapNumber);
    expect(view.submit?.text).toBe('Map');
    for (const input of [INPUT.mapNumber, INPUT.mapAgent]) {
      expect(typeAhead(view, input.block)).toMatchObject({
        type: 'external_select',
        action_id: input.action,
        min_query_length: 0,
      });
      expect(typeAhead(view, input.block).initial_option).toBeUndefined();
    }
    expect(JSON.stringify(view)).toContain('10,000 numbers; those that route nowhere come first.');
    expect(JSON.stringify(view)).toContain('1,000 agents.');
    expect(rendered(view)).toContain('The provider cannot remove a route: to stop a number reaching an agent');
    const one = JSON.stringify(mapModal({ numbers: 1, agents: 1, privateMetadata: 'm' }));
    expect(one).toContain('"1 number; those that route nowhere come first."');
    expect(one).toContain('"1 agent."');
  });

  it('preselects the number it was opened for, wherever it stands, with its route', () => {
    const view = mapModal({ numbers: 2, agents: 2, initial: routed, privateMetadata: '' });
    expect(typeAhead(view, INPUT.mapNumber.block).initial_option).toEqual({
      text: { type: 'plain_text', text: '+14155550100 · US → Support bot', emoji: true },
      value: '+14155550100',
    });
  });

  it('says when the number it was opened for is not one of the account’s', () => {
    const view = mapModal({ numbers: 2, agents: 2, notOurs: '+14155550199', privateMetadata: '' });
    expect(rendered(view)).toContain('*+14155550199* is not one of your numbers');
    expect(typeAhead(view, INPUT.mapNumber.block).initial_option).toBeUndefined();
  });

  it('explains what is missing instead of a form that cannot be submitted', () => {
    const noNumbers = mapModal({ numbers: 0, agents: 2, privateMetadata: '' });
    expect(noNumbers.callback_id).toBe(CALLBACK.info);
    expect(noNumbers.submit).toBeUndefined();
    expect(rendered(noNumbers)).toContain('Buy a number first');
    const noAgents = mapModal({ numbers: 2, agents: 0, privateMetadata: '' });
    expect(rendered(noAgents)).toContain('Create an agent first');
  });
});

describe('numberOptions and agentOptions, the options listener’s answers', () => {
  const numberSummaries = (count: number, routedTo?: string) =>
    many(count, (i) =>
      purchased({ id: `pn_${i}`, number: `+1415555${String(i).padStart(4, '0')}`, region: 'US', agentId: routedTo }),
    );

  it('lists numbers that route nowhere first, each group saying when it is cut short', () => {
    const answer = numberOptions({
      unrouted: numberSummaries(60),
      routed: numberSummaries(40, 'ag_1').map((entry) => ({ ...entry, agentName: 'Support bot' })),
      matching: { unrouted: 9850, routed: 150 },
    });
    expect('option_groups' in answer && answer.option_groups.map((group) => group.label.text)).toEqual([
      'Not routed: the first 60 of 9,850: type digits to narrow',
      'Routed: the first 40 of 150: type digits to narrow',
    ]);
    expect(limitViolations(answer)).toEqual([]);
    const options = 'option_groups' in answer ? answer.option_groups.flatMap((group) => group.options) : [];
    expect(options).toHaveLength(100);
    expect(options[0]).toEqual({
      text: { type: 'plain_text', text: '+14155550000 · US (not routed)', emoji: true },
      value: '+14155550000',
    });
    expect(options[60]?.text.text).toBe('+14155550000 · US → Support bot');
  });

  it('answers no options when nothing matches', () => {
    expect(numberOptions({ unrouted: [], routed: [], matching: { unrouted: 0, routed: 0 } })).toEqual({ options: [] });
    expect(agentOptions({ agents: [], matching: 0 })).toEqual({ options: [] });
  });

  it('names agents by name and id within 75 characters, shortening the name rather than the id', () => {
    const longNamed = many(100, (i) => ({
      id: `ag_${i}`,
      name: `${'Very long agent name '.repeat(5)}${i}`,
      status: 'active',
    }));
    const answer = agentOptions({ agents: longNamed, matching: 1000 });
    expect(limitViolations(answer)).toEqual([]);
    const [group] = 'option_groups' in answer ? answer.option_groups : [];
    expect(group?.label.text).toBe('Agents: the first 100 of 1,000: type to narrow');
    expect(group?.options[7]?.text.text).toMatch(/… \(ag_7\)$/);
    expect(group?.options[7]?.value).toBe('ag_7');
  });

  it('shows hostile names only as plain text, which Slack never parses', () => {
    const answer = agentOptions({ agents: [{ id: 'ag_1', name: HOSTILE, status: 'active' }], matching: 1 });
    expect(JSON.stringify(answer)).toContain(JSON.stringify(`${HOSTILE} (ag_1)`));
    expect(rawHostileKeys(answer)).toEqual([]);
    expect(unescapedMarkup(answer)).toEqual([]);
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
