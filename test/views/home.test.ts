import { describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { homeView } from '../../src/slack/views/home.js';
import {
  agent,
  buttonLabel,
  elements,
  HOSTILE,
  HOSTILE_ESCAPED,
  limitViolations,
  many,
  purchased,
  rawHostileKeys,
  rendered,
  unescapedMarkup,
} from './support.js';

const agents = [agent({ id: 'ag_1', name: 'Support bot', numbers: ['+14155550100'] })];
const numbers = [purchased({ number: '+14155550100', agentId: 'ag_1' })];
const home = (overrides: Partial<Parameters<typeof homeView>[0]> = {}) =>
  homeView({ agents, numbers, role: 'admin', sandbox: false, ...overrides });

describe('homeView', () => {
  it('has a Voice AI section with the agents, then a Numbers section with their routes', () => {
    const view = home();
    expect(view.type).toBe('home');
    const headers = view.blocks.filter((block) => block.type === 'header').map((block) => JSON.stringify(block));
    expect(headers).toEqual([expect.stringContaining('Voice AI'), expect.stringContaining('Numbers')]);
    const text = rendered(view);
    expect(text).toContain('*Support bot*  `ag_1`\nStatus: active · Numbers: +14155550100');
    expect(text).toContain('Routes to *Support bot* (`ag_1`)');
    expect(text.indexOf('Support bot*  `ag_1`')).toBeLessThan(text.indexOf('Routes to'));
  });

  it('gives a viewer no change buttons', () => {
    const view = home({ role: 'viewer' });
    for (const action of Object.values(ACTION)) expect(elements(view, action)).toEqual([]);
    expect(rendered(view)).toContain('VOICE_OPERATORS');
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
    const failed = home({ agents: [], numbers: [], error: HOSTILE });
    expect(rendered(failed)).toContain(`Could not read the provider: ${HOSTILE_ESCAPED}`);
    expect(unescapedMarkup(failed)).toEqual([]);
  });

  it('shows empty states', () => {
    const text = rendered(home({ agents: [], numbers: [] }));
    expect(text).toContain('No agents yet.');
    expect(text).toContain('No numbers yet.');
  });

  it('stays within 100 blocks for 500 agents and 500 numbers, pointing to the full lists', () => {
    const view = home({
      agents: many(500, (i) => agent({ id: `ag_${i}`, name: `Agent ${i}` })),
      numbers: many(500, (i) =>
        purchased({ id: `pn_${i}`, number: `+1415555${String(i).padStart(4, '0')}`, agentId: `ag_${i}` }),
      ),
      sandbox: true,
      error: 'partial',
    });
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(limitViolations(view)).toEqual([]);
    const text = rendered(view);
    expect(text).toMatch(/and \d+ more: `\/voice agents`/);
    expect(text).toMatch(/and \d+ more: `\/voice numbers`/);
  });

  it('escapes agent names everywhere', () => {
    const view = home({ agents: [agent({ id: 'ag_1', name: HOSTILE })] });
    expect(rendered(view)).toContain(`*${HOSTILE_ESCAPED}*`);
    expect(unescapedMarkup(view)).toEqual([]);
    expect(rawHostileKeys(view)).toEqual([]);
  });
});
