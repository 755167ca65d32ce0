import type { StaticSelect } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { ACTION, PAGE } from '../../src/slack/ids.js';
import { FIRST_HOME_POSITION } from '../../src/slack/paging.js';
import { homeView } from '../../src/slack/views/home.js';
import {
  agent,
  agentsPage,
  buttonLabel,
  elements,
  HOSTILE,
  HOSTILE_ESCAPED,
  limitViolations,
  many,
  numbersPage,
  purchased,
  rawHostileKeys,
  rendered,
  unescapedMarkup,
} from './support.js';

const agents = agentsPage([agent({ id: 'ag_1', name: 'Support bot', numbers: ['+14155550100'] })]);
const numbers = numbersPage([purchased({ number: '+14155550100', agentId: 'ag_1', agentName: 'Support bot' })]);
const home = (overrides: Partial<Parameters<typeof homeView>[0]> = {}) =>
  homeView({ agents, numbers, role: 'admin', sandbox: false, position: FIRST_HOME_POSITION, ...overrides });

describe('homeView', () => {
  it('has a Voice AI section with the agents, then a Numbers section with their routes', () => {
    const view = home();
    expect(view.type).toBe('home');
    const headers = view.blocks.filter((block) => block.type === 'header').map((block) => JSON.stringify(block));
    expect(headers).toEqual([expect.stringContaining('Voice AI'), expect.stringContaining('Numbers')]);
    const text = rendered(view);
    // Each section is headed once: its list does not title itself again beneath the heading.
    expect(text).not.toContain('AI agents');
    expect(text).not.toContain('Phone numbers');
    expect(text).toContain('*Support bot*  `ag_1`\nStatus: active · Numbers: +14155550100');
    expect(text).toContain('Routes to *Support bot* (`ag_1`)');
    expect(text.indexOf('Support bot*  `ag_1`')).toBeLessThan(text.indexOf('Routes to'));
  });

  it('gives a viewer no change buttons, only the filter and the export', () => {
    const view = home({ role: 'viewer' });
    const reads: string[] = [ACTION.homeNumbersFilter, ACTION.exportRouting];
    for (const action of Object.values(ACTION)) {
      if (!reads.includes(action)) expect(elements(view, action)).toEqual([]);
    }
    expect(elements(view, ACTION.homeNumbersFilter)).toHaveLength(1);
    expect(elements(view, ACTION.exportRouting)).toHaveLength(1);
    expect(rendered(view)).toContain('ask an admin for the operator role');
  });

  it('offers a filter of the numbers, set to the one in force, each option valued with its filter', () => {
    const position = { ...FIRST_HOME_POSITION, numbersFilter: { routed: false } };
    const [select] = elements(home({ position }), ACTION.homeNumbersFilter) as unknown as StaticSelect[];
    const options = select?.options ?? [];
    expect(options.slice(0, 4).map((choice) => [choice.text.text, JSON.parse(choice.value ?? '')])).toEqual([
      ['All numbers', {}],
      ['Not routed', { routed: false }],
      ['Routed', { routed: true }],
      ['In United States (US)', { region: 'US' }],
    ]);
    expect(select?.initial_option?.text.text).toBe('Not routed');
    expect(limitViolations(home({ position }))).toEqual([]);
  });

  it('gives an operator Create agent, Buy a number and Map, but no Release or Delete', () => {
    const view = home({ role: 'operator' });
    expect(elements(view, ACTION.createAgent).map(buttonLabel)).toEqual(['Create agent']);
    expect(elements(view, ACTION.searchNumbers).map(buttonLabel)).toEqual(['Buy a number']);
    expect(elements(view, ACTION.mapNumber).map((button) => [buttonLabel(button), button.value])).toEqual([
      ['Map a number', undefined],
      ['Map', '+14155550100'],
    ]);
    expect(elements(view, ACTION.releaseNumber)).toEqual([]);
    expect(elements(view, ACTION.deleteAgent)).toEqual([]);
  });

  it('gives an admin Release and Delete too', () => {
    const view = home({ role: 'admin' });
    expect(elements(view, ACTION.releaseNumber).map((button) => button.value)).toEqual(['pn_1']);
    expect(elements(view, ACTION.deleteAgent).map((button) => button.value)).toEqual(['ag_1']);
  });

  it('warns about the sandbox, and shows a provider error escaped', () => {
    expect(rendered(home({ sandbox: true }))).toContain('Sandbox provider: nothing real is bought or routed');
    expect(rendered(home())).not.toContain('Sandbox');
    const failed = home({ agents: undefined, numbers: undefined, error: HOSTILE });
    expect(rendered(failed)).toContain(`Could not read the provider: ${HOSTILE_ESCAPED}`);
    expect(unescapedMarkup(failed)).toEqual([]);
  });

  it('shows empty states', () => {
    const text = rendered(home({ agents: agentsPage([]), numbers: numbersPage([]) }));
    expect(text).toContain('No agents yet.');
    expect(text).toContain('No numbers yet.');
  });

  it('pages 1,000 agents and 10,000 numbers within 100 blocks, each section with its own Previous and Next', () => {
    const position = { agentsPage: 7, numbersPage: 40, numbersFilter: { routed: true } };
    const view = home({
      agents: agentsPage(
        many(1000, (i) => agent({ id: `ag_${i}`, name: `Agent ${i}` })),
        7,
        15,
      ),
      numbers: numbersPage(
        many(10_000, (i) =>
          purchased({ id: `pn_${i}`, number: `+1415555${String(i).padStart(4, '0')}`, agentId: `ag_${i}` }),
        ),
        40,
        25,
        { routed: true },
      ),
      position,
      sandbox: true,
      error: 'partial',
    });
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(limitViolations(view)).toEqual([]);
    const text = rendered(view);
    expect(text).toContain('Page 7 of 67 · 1,000 agents');
    expect(text).toContain('Page 40 of 400 · 10,000 numbers');
    expect(JSON.parse(view.private_metadata ?? '')).toEqual(position);
    const page = (id: string) => elements(view, id).map((button) => JSON.parse(String(button.value)).page);
    expect([page(PAGE.homeAgents.previous), page(PAGE.homeAgents.next)]).toEqual([[6], [8]]);
    expect([page(PAGE.homeNumbers.previous), page(PAGE.homeNumbers.next)]).toEqual([[39], [41]]);
  });

  it('escapes agent names everywhere', () => {
    const view = home({ agents: agentsPage([agent({ id: 'ag_1', name: HOSTILE })]) });
    expect(rendered(view)).toContain(`*${HOSTILE_ESCAPED}*`);
    expect(unescapedMarkup(view)).toEqual([]);
    expect(rawHostileKeys(view)).toEqual([]);
  });
});
