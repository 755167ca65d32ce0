import { describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { agentCardMessage, numberCardMessage } from '../../src/slack/views/cards.js';
import { labelsModal, NOBODY, ownerOptions } from '../../src/slack/views/labels.js';
import {
  agent,
  auditChange,
  elements,
  HOSTILE,
  limitViolations,
  many,
  purchased,
  rawHostileKeys,
  rendered,
  unescapedMarkup,
} from './support.js';

const BARE = { labels: [] };
const routed = purchased({ number: '+14155550100', region: 'US', agentId: 'ag_1', agentName: 'Support bot' });

describe('numberCardMessage', () => {
  it('shows status, region, capabilities and route, its latest changes and where to see them all', () => {
    const number = { ...routed, capabilities: ['voice', 'sms'] };
    const shown = numberCardMessage(
      { number, history: [auditChange({ action: 'routing.map' })], tags: BARE },
      'viewer',
    );
    const text = rendered(shown);
    expect(text).toContain(
      '*+14155550100*  `pn_1`\nStatus: active · Region: United States (US) · Capabilities: voice, sms\nRoutes to',
    );
    expect(text).toContain('Routes to *Support bot* (`ag_1`)');
    expect(text).toContain('*Latest changes*\n`2025-03-01T12:34Z` <@U0ALICE> routed');
    expect(text).toContain('All of them: `/voice audit +14155550100`');
  });

  it('says when it routes nowhere and has no history', () => {
    const text = rendered(numberCardMessage({ number: purchased(), history: [], tags: BARE }, 'viewer'));
    expect(text).toContain('_Not routed_: calls reach no agent.');
    expect(text).toContain('Region: unknown · Capabilities: not known');
    const smsOnly = rendered(
      numberCardMessage({ number: purchased({ capabilities: ['sms'] }), history: [], tags: BARE }, 'viewer'),
    );
    expect(smsOnly).toContain("Capabilities: sms\n:no_entry_sign: no voice: can't serve an AI agent");
    expect(text).toContain('No changes in the audit log yet');
  });

  it('offers Map to an operator, and Release (danger) to an admin only', () => {
    const card = { number: routed, history: [], tags: BARE };
    expect(elements(numberCardMessage(card, 'viewer'), ACTION.mapNumber)).toEqual([]);
    expect(elements(numberCardMessage(card, 'operator'), ACTION.mapNumber).map((b) => b.value)).toEqual([
      '+14155550100',
    ]);
    expect(elements(numberCardMessage(card, 'operator'), ACTION.releaseNumber)).toEqual([]);
    const release = elements(numberCardMessage(card, 'admin'), ACTION.releaseNumber);
    expect(release.map((b) => [b.value, b.style])).toEqual([['pn_1', 'danger']]);
  });
});

describe('agentCardMessage', () => {
  it('shows the agent, the numbers routed to it and its latest changes', () => {
    const card = {
      agent: agent({ language: 'fr-CA', numbers: ['+14155550100', '+14155550101'] }),
      history: [],
      tags: BARE,
    };
    const text = rendered(agentCardMessage(card, 'viewer'));
    expect(text).toContain(
      '*Support bot*  `ag_1`\nStatus: active · Language: fr-CA\nNumbers: 2 routed: +14155550100, +14155550101',
    );
    expect(rendered(agentCardMessage({ agent: agent(), history: [], tags: BARE }, 'viewer'))).toContain(
      'Language: not known',
    );
    expect(text).toContain('`/voice audit ag_1`');
  });

  it('names the first 20 of many numbers and points to the list of them all', () => {
    const numbers = many(5000, (i) => `+1415555${String(i).padStart(4, '0')}`);
    const shown = agentCardMessage({ agent: agent({ numbers }), history: [], tags: BARE }, 'admin');
    expect(rendered(shown)).toContain('5,000 routed:');
    expect(rendered(shown)).toContain('and 4,980 more. All of them, each with Map: `/voice numbers agent ag_1`');
    expect(limitViolations(shown)).toEqual([]);
    expect(elements(shown, ACTION.deleteAgent).map((b) => b.style)).toEqual(['danger']);
  });

  it('escapes what it shows', () => {
    const card = {
      agent: agent({ id: HOSTILE, name: HOSTILE, status: HOSTILE, numbers: [HOSTILE] }),
      history: [auditChange({ target: HOSTILE, agent: { id: HOSTILE, name: HOSTILE } })],
      tags: BARE,
    };
    const shown = agentCardMessage(card, 'admin');
    expect(unescapedMarkup(shown, ['<@U0ALICE>'])).toEqual([]);
    expect(rawHostileKeys(shown)).toEqual([]);
    const number = numberCardMessage(
      {
        number: purchased({ id: HOSTILE, number: HOSTILE, status: HOSTILE, region: HOSTILE }),
        history: [],
        tags: BARE,
      },
      'admin',
    );
    expect(unescapedMarkup(number)).toEqual([]);
    expect(rawHostileKeys(number)).toEqual([]);
  });
});

describe('labels and owner on a card', () => {
  const tags = { labels: ['team:sales', 'vip'], owner: 'S0SALES' };

  it('shows them on a number’s card and an agent’s, with a Labels button for operators carrying what it showed', () => {
    const number = numberCardMessage({ number: routed, history: [], tags }, 'operator');
    expect(rendered(number)).toContain('Labels: `team:sales`, `vip` · Owner: <!subteam^S0SALES>');
    expect(elements(number, ACTION.editLabels).map((b) => JSON.parse(String(b.value)))).toEqual([
      { subject: '+14155550100', ...tags },
    ]);
    expect(elements(numberCardMessage({ number: routed, history: [], tags }, 'viewer'), ACTION.editLabels)).toEqual([]);
    const bare = agentCardMessage({ agent: agent(), history: [], tags: BARE }, 'operator');
    expect(rendered(bare)).toContain('Labels: none · Owner: nobody');
    expect(elements(bare, ACTION.editLabels).map((b) => JSON.parse(String(b.value)))).toEqual([
      { subject: 'ag_1', name: 'Support bot', labels: [] },
    ]);
  });
});

describe('labelsModal', () => {
  it('starts from what the card showed: the labels as text, the owner picked, nobody among the choices', () => {
    const shown = { subject: '+14155550100', labels: ['vip', 'team:sales'], owner: 'S0SALES', channelId: 'C1' };
    const view = labelsModal(shown, new Map([['S0SALES', '@sales']]));
    expect(JSON.parse(view.private_metadata ?? '')).toEqual(shown);
    const [, labels, owner] = view.blocks;
    expect(labels).toMatchObject({ element: { initial_value: 'vip team:sales' } });
    expect(owner).toMatchObject({ element: { initial_option: { value: 'S0SALES', text: { text: '@sales' } } } });
    const nobody = labelsModal({ ...shown, labels: [], owner: undefined }, new Map());
    expect(nobody.blocks[2]).toMatchObject({ element: { initial_option: { value: NOBODY } } });
    expect(ownerOptions([['S0SALES', '@sales']]).map((entry) => entry.value)).toEqual([NOBODY, 'S0SALES']);
    expect(limitViolations(view)).toEqual([]);
  });
});
