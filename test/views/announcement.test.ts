import { describe, expect, it } from 'vitest';
import type { Change } from '../../src/ops/notify.js';
import { announcementMessage } from '../../src/slack/views/announcement.js';
import { HOSTILE, HOSTILE_ESCAPED, rawHostileKeys, rendered, unescapedMarkup } from './support.js';

const announce = (change: Change, userId = 'U0ALICE') =>
  announcementMessage({ actor: { userId, source: 'command' }, change });

describe('announcementMessage', () => {
  it('says who did what to which number or agent', () => {
    expect(announce({ action: 'number.buy', number: { id: 'pn_1', number: '+14155550100' } }).text).toBe(
      '<@U0ALICE> bought *+14155550100* (id `pn_1`)',
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
      number: { id: 'pn_1', number: '+14155550100' },
      unroutedAgent: { id: 'ag_1', name: 'Support bot' },
    };
    expect(announce(change).text).toBe(
      '<@U0ALICE> released *+14155550100* (id `pn_1`) (its route to *Support bot* was removed)',
    );
  });

  it('says where a re-routed number pointed before', () => {
    const change: Change = {
      action: 'routing.map',
      number: '+14155550100',
      agent: { id: 'ag_2', name: 'Sales bot' },
      previousAgent: { id: 'ag_1', name: 'Support bot' },
    };
    expect(announce(change).text).toBe(
      '<@U0ALICE> routed *+14155550100* to *Sales bot* (`ag_2`), previously *Support bot*',
    );
    expect(announce({ ...change, previousAgent: undefined }).text).not.toContain('previously');
  });

  it('mentions only the actor, and escapes every name', () => {
    const shown = announce({ action: 'agent.create', agent: { id: HOSTILE, name: HOSTILE, language: HOSTILE } });
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
