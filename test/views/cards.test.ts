import { describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { agentCardMessage, numberCardMessage } from '../../src/slack/views/cards.js';
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
    const shown = numberCardMessage({ number, history: [auditChange({ action: 'routing.map' })], tags: BARE }, 'viewer');
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
    const card = { agent: agent({ language: 'fr-CA', numbers: ['+14155550100', '+14155550101'] }), history: [], tags: BARE };
    const text = rendered(agentCardMessage(card, 'viewer'));
    expect(text).toContain(
      '*Support bot*  `ag_1`\nStatus: active · Language: fr-CA\nNumbers: 2 routed: +14155550100, +14155550101',
    );
    expect(rendered(agentCardMessage({ agent: agent(), history: [], tags: BARE }, 'viewer'))).toContain('Language: not known');
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
      { number: purchased({ id: HOSTILE, number: HOSTILE, status: HOSTILE, region: HOSTILE }), history: [], tags: BARE },
      'admin',
    );
    expect(unescapedMarkup(number)).toEqual([]);
    expect(rawHostileKeys(number)).toEqual([]);
  });
});
