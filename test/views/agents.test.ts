import { describe, expect, it } from 'vitest';
import { ACTION, PAGE } from '../../src/slack/ids.js';
import { agentCreatedMessage, agentInUseMessage, agentsMessage } from '../../src/slack/views/agents.js';
import {
  agent,
  agentsPage,
  buttonLabel,
  createdAgent,
  elements,
  HOSTILE,
  HOSTILE_ESCAPED,
  limitViolations,
  many,
  rawHostileKeys,
  rendered,
  unescapedMarkup,
} from './support.js';

const agents = [
  agent({ id: 'ag_1', name: 'Support bot', language: 'en-GB', numbers: ['+14155550100', '+14155550101'] }),
  agent({ id: 'ag_2', name: 'Sales bot', status: 'paused' }),
];

describe('agentsMessage', () => {
  it('shows each agent with name, id, status and routed numbers', () => {
    const text = rendered(agentsMessage({ page: agentsPage(agents), role: 'viewer' }));
    expect(text).toContain('*Support bot*  `ag_1`');
    expect(text).toContain('Status: active · Language: en-GB · Numbers: +14155550100, +14155550101');
    expect(text).toContain('Status: paused');
    expect(text).toMatch(/\*Sales bot\*.*\n.*no numbers routed/);
  });

  it('gives a viewer no change buttons', () => {
    const shown = agentsMessage({ page: agentsPage(agents), role: 'viewer' });
    expect(elements(shown, ACTION.deleteAgent)).toEqual([]);
    expect(elements(shown, ACTION.createAgent)).toEqual([]);
  });

  it('gives an operator Create agent but no Delete', () => {
    const shown = agentsMessage({ page: agentsPage(agents), role: 'operator' });
    expect(elements(shown, ACTION.createAgent).map(buttonLabel)).toEqual(['Create agent']);
    expect(elements(shown, ACTION.deleteAgent)).toEqual([]);
  });

  it('gives an admin a danger Delete per agent, valued with its id', () => {
    const deletes = elements(agentsMessage({ page: agentsPage(agents), role: 'admin' }), ACTION.deleteAgent);
    expect(deletes.map((button) => [button.value, button.style, buttonLabel(button)])).toEqual([
      ['ag_1', 'danger', 'Delete'],
      ['ag_2', 'danger', 'Delete'],
    ]);
  });

  it('says when there are no agents, and still offers Create agent', () => {
    const shown = agentsMessage({ page: agentsPage([]), role: 'operator' });
    expect(rendered(shown)).toContain('No agents yet.');
    expect(elements(shown, ACTION.createAgent)).toHaveLength(1);
  });

  it('shows a page of 500 agents within 50 blocks, where it stands, and Previous and Next to the pages beside it', () => {
    const all = many(500, (i) => agent({ id: `ag_${i}`, name: `Agent ${i}` }));
    const shown = agentsMessage({ page: agentsPage(all, 3, 25, { text: 'agent' }), role: 'admin' });
    expect(shown.blocks.length).toBeLessThanOrEqual(50);
    expect(limitViolations(shown)).toEqual([]);
    expect(rendered(shown)).toContain('Page 3 of 20 · 500 agents');
    expect(rendered(shown)).toContain('*Agent 50*');
    expect(rendered(shown)).not.toContain('*Agent 75*');
    const values = (id: string) => elements(shown, id).map((button) => JSON.parse(String(button.value)));
    expect(values(PAGE.agents.previous)).toEqual([{ page: 2, filter: { text: 'agent' } }]);
    expect(values(PAGE.agents.next)).toEqual([{ page: 4, filter: { text: 'agent' } }]);
  });

  it('leaves Previous off the first page and Next off the last', () => {
    const all = many(30, (i) => agent({ id: `ag_${i}` }));
    const first = agentsMessage({ page: agentsPage(all, 1), role: 'viewer' });
    expect(elements(first, PAGE.agents.previous)).toEqual([]);
    expect(elements(first, PAGE.agents.next)).toHaveLength(1);
    const last = agentsMessage({ page: agentsPage(all, 2), role: 'viewer' });
    expect(elements(last, PAGE.agents.next)).toEqual([]);
    expect(rendered(last)).toContain('Page 2 of 2 · 30 agents');
  });

  it('says what a name filter matched, or that nothing did', () => {
    const none = agentsMessage({ page: agentsPage([], 1, 25, { text: 'night' }), role: 'viewer' });
    expect(rendered(none)).toContain('*AI agents* · name contains `night`\nNo agents match.');
  });

  it('keeps one agent routed to a thousand numbers within the section limit', () => {
    const numbers = many(1000, (i) => `+1415555${String(i).padStart(4, '0')}`);
    const shown = agentsMessage({ page: agentsPage([agent({ numbers })]), role: 'admin' });
    expect(limitViolations(shown)).toEqual([]);
    expect(rendered(shown)).toContain('and 980 more');
  });

  it('escapes names, ids and statuses', () => {
    const shown = agentsMessage({
      page: agentsPage([agent({ id: HOSTILE, name: HOSTILE, status: HOSTILE, numbers: [HOSTILE] })], 1, 25, {
        text: HOSTILE,
      }),
      role: 'admin',
    });
    expect(rendered(shown)).toContain(`*${HOSTILE_ESCAPED}*`);
    expect(unescapedMarkup(shown)).toEqual([]);
    expect(rawHostileKeys(shown)).toEqual([]);
    expect(elements(shown, ACTION.deleteAgent)[0]?.value).toBe(HOSTILE);
  });
});

describe('agentInUseMessage', () => {
  const inUse = (total: number, shown = Math.min(total, 10)) => ({
    agent: { id: 'ag_1', name: 'Support bot' },
    numbers: many(shown, (i) => `+1415555${String(i).padStart(4, '0')}`),
    total,
  });

  it('says why the agent cannot be deleted, in good grammar for one number and for several', () => {
    expect(rendered(agentInUseMessage(inUse(1)))).toContain(
      ':no_entry: Agent *Support bot* (`ag_1`) cannot be deleted: 1 number still routes to it',
    );
    expect(rendered(agentInUseMessage(inUse(3)))).toContain('cannot be deleted: 3 numbers still route to it');
  });

  it('offers Map on each number it names, and says where the rest are', () => {
    const shown = agentInUseMessage(inUse(5000));
    expect(elements(shown, ACTION.mapNumber).map((button) => button.value)).toEqual(
      many(10, (i) => `+1415555${String(i).padStart(4, '0')}`),
    );
    expect(rendered(shown)).toContain('…and 4,990 more: `/voice numbers agent ag_1` lists them all, each with Map.');
    expect(shown.blocks.length).toBeLessThanOrEqual(50);
    expect(limitViolations(shown)).toEqual([]);
    expect(elements(shown, ACTION.confirmChange)).toEqual([]);
  });

  it('escapes the name and the id', () => {
    const shown = agentInUseMessage({ agent: { id: HOSTILE, name: HOSTILE }, numbers: ['+14155550100'], total: 2 });
    expect(unescapedMarkup(shown)).toEqual([]);
    expect(rawHostileKeys(shown)).toEqual([]);
  });
});

describe('agentCreatedMessage', () => {
  it('shows the token once, with the advice to store it now', () => {
    const shown = agentCreatedMessage(createdAgent());
    const text = rendered(shown.blocks);
    expect(text).toContain('```tok_SECRET_only_once```');
    expect(text).toContain('Store this token now');
    expect(text).toContain('will not be shown again');
    expect(text).toContain('*Sales bot* (`ag_9`)');
  });

  it('keeps the token out of the notification text', () => {
    expect(agentCreatedMessage(createdAgent()).text).not.toContain('tok_SECRET');
  });

  it('escapes the name and the token', () => {
    const shown = agentCreatedMessage(createdAgent({ name: HOSTILE, agent_token: 'a<b>&c' }));
    expect(rendered(shown)).toContain('a&lt;b&gt;&amp;c');
    expect(unescapedMarkup(shown)).toEqual([]);
  });
});
