import { describe, expect, it } from 'vitest';
import type { Change } from '../../src/ops/api.js';
import { ACTION } from '../../src/slack/ids.js';
import { announcementMessage, CHANGES_IN_ONE_MESSAGE } from '../../src/slack/views/announcement.js';
import {
  HOSTILE,
  HOSTILE_ESCAPED,
  limitViolations,
  many,
  rawHostileKeys,
  rendered,
  unescapedMarkup,
} from './support.js';

const announce = (change: Change, userId = 'U0ALICE') => announcementMessage(userId, [{ change }]);

describe('announcementMessage', () => {
  it('says who did what to which number, with its region, or which agent, by name and id', () => {
    expect(announce({ action: 'number.buy', number: { id: 'pn_1', number: '+14155550100' } }).text).toBe(
      '<@U0ALICE> bought *+14155550100* (US, id `pn_1`)',
    );
    expect(
      announce({ action: 'agent.create', agent: { id: 'ag_1', name: 'Support bot', language: 'en-US' } }).text,
    ).toBe('<@U0ALICE> created agent *Support bot* (`ag_1`, en-US)');
    expect(announce({ action: 'agent.delete', agent: { id: 'ag_1', name: 'Support bot' } }).text).toBe(
      '<@U0ALICE> deleted agent *Support bot* (`ag_1`)',
    );
  });

  it('says which route a release removed', () => {
    const change: Change = {
      action: 'number.release',
      number: { id: 'pn_1', number: '+442079460000' },
      unroutedAgent: { id: 'ag_1', name: 'Support bot' },
    };
    expect(announce(change).text).toBe(
      '<@U0ALICE> released *+442079460000* (GB, id `pn_1`): it no longer routes to *Support bot* (`ag_1`)',
    );
  });

  it('says from which agent to which a number was re-routed', () => {
    const change: Change = {
      action: 'routing.map',
      number: '+14165550100',
      agent: { id: 'ag_2', name: 'Sales bot' },
      previousAgent: { id: 'ag_1', name: 'Support bot' },
    };
    expect(announce(change).text).toBe(
      '<@U0ALICE> re-routed *+14165550100* (CA) from *Support bot* (`ag_1`) to *Sales bot* (`ag_2`)',
    );
    expect(announce({ ...change, previousAgent: { id: 'ag_gone' } }).text).toContain('from `ag_gone` to');
    expect(announce({ ...change, previousAgent: undefined }).text).toBe(
      '<@U0ALICE> routed *+14165550100* (CA) to *Sales bot* (`ag_2`)',
    );
  });

  it('says where to read more: the card of a number or agent that exists, the audit of one that is gone', () => {
    const number = { id: 'pn_1', number: '+14155550100' };
    expect(rendered(announce({ action: 'number.buy', number }))).toContain('More: `/voice numbers +14155550100`');
    expect(rendered(announce({ action: 'number.release', number }))).toContain('More: `/voice audit +14155550100`');
    expect(
      rendered(announce({ action: 'agent.create', agent: { id: 'ag_1', name: 'A', language: 'en-US' } })),
    ).toContain('More: `/voice agents ag_1`');
    expect(rendered(announce({ action: 'agent.delete', agent: { id: 'ag_1', name: 'A' } }))).toContain(
      'More: `/voice audit ag_1`',
    );
  });

  it('gathers one person’s burst of changes into one message, a line each with its Undo, within Slack’s limits', () => {
    const changes = many(CHANGES_IN_ONE_MESSAGE, (i) => ({
      change: {
        action: 'routing.map',
        number: `+1415555${String(i).padStart(4, '0')}`,
        agent: { id: `ag_${i}`, name: `${'Long agent name '.repeat(6)}${i}` },
      },
      // Every other change offers Undo; a first route withholds it.
      undo: { correlationId: `change-${i}`, offer: i % 2 ? { withheld: 'a first route' } : {} },
    }));
    const shown = announcementMessage('U0ALICE', changes);
    const text = rendered(shown);
    expect(text).toContain('<@U0ALICE> made 48 changes:\n• routed *+14155550000* (US) to *');
    expect(text.match(/^• /gm)).toHaveLength(CHANGES_IN_ONE_MESSAGE);
    expect(text).toContain('Each with its outcome: `/voice audit U0ALICE`');
    // Each Undo sits beside the line of its change, and names its request.
    const undos = shown.blocks.flatMap((block) =>
      block.type === 'section' && block.accessory?.type === 'button' && block.accessory.action_id === ACTION.undoChange
        ? [[block.text?.text.slice(0, 31), block.accessory.value]]
        : [],
    );
    expect(undos).toHaveLength(CHANGES_IN_ONE_MESSAGE / 2);
    expect(undos[1]).toEqual(['• routed *+14155550002* (US) to', 'change-2']);
    expect(shown.blocks.length).toBeLessThanOrEqual(50);
    expect(limitViolations(shown)).toEqual([]);
    expect(shown.text.length).toBeLessThanOrEqual(3000);
  });

  it('mentions only the actor, and escapes every name', () => {
    const shown = announcementMessage('U0ALICE', [
      { change: { action: 'agent.create', agent: { id: HOSTILE, name: HOSTILE, language: HOSTILE } } },
      { change: { action: 'number.buy', number: { id: HOSTILE, number: HOSTILE } } },
    ]);
    expect(rendered(shown)).toContain(`*${HOSTILE_ESCAPED}*`);
    expect(unescapedMarkup(shown, ['<@U0ALICE>'])).toEqual([]);
    expect(rawHostileKeys(shown)).toEqual([]);
  });

  it('renders an actor id that is not a Slack user id as text', () => {
    const shown = announce({ action: 'number.buy', number: { id: 'pn_1', number: '+1415' } }, '<!channel>');
    expect(shown.text.startsWith('&lt;!channel&gt; bought')).toBe(true);
    expect(unescapedMarkup(shown)).toEqual([]);
  });
});
