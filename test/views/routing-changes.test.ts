// `/voice changes since TIME` and `/voice export as of TIME` as Slack receives them: a line per number with its agents
// then and now, what was bought or released and by whom, escaped; a long list cut short within a message's limits.
import { describe, expect, it } from 'vitest';
import type { NamedRouteChange } from '../../src/ops/api.js';
import { check, messageBody } from '../../src/playground/block-kit.js';
import { CHANGES_SHOWN, routingChangesMessage } from '../../src/slack/views/routing-changes.js';
import { exportMessage } from '../../src/slack/views/routing-plan.js';
import { HOSTILE, HOSTILE_ESCAPED, limitViolations, many, rendered, unescapedMarkup } from './support.js';

const SINCE = '2026-11-27 09:00 UTC';

function change(overrides: Partial<NamedRouteChange> = {}): NamedRouteChange {
  return {
    number: '+14155550100',
    before: { id: 'agt_1', name: 'Front desk' },
    after: { id: 'agt_2', name: 'Night shift' },
    ownership: [],
    by: ['U0ALICE'],
    outside: false,
    undone: false,
    ...overrides,
  };
}

describe('routingChangesMessage', () => {
  it('gives each number a line: its agent then → now, what was bought or released, and who, as mentions', () => {
    const shown = rendered(
      routingChangesMessage({
        since: SINCE,
        sinceUtc: SINCE,
        changes: [
          change(),
          change({
            number: '+4930123456',
            before: undefined,
            after: undefined,
            ownership: ['bought', 'released'],
            by: ['U0BOB', 'U0ALICE'],
            outside: true,
          }),
          change({ number: '+14155550101', after: { id: 'agt_gone' }, by: [], outside: true }),
        ],
      }),
    );
    expect(shown).toContain(`*Routing changes since ${SINCE}*: 3 numbers`);
    expect(shown).toContain('• *+14155550100* (US): *Front desk* (`agt_1`) → *Night shift* (`agt_2`) · by <@U0ALICE>');
    expect(shown).toContain(
      '• *+4930123456* (DE): nowhere → nowhere · bought, then released · by <@U0BOB>, <@U0ALICE> and outside Voice Ops',
    );
    expect(shown).toContain('→ `agt_gone` · by outside Voice Ops');
    expect(shown).toContain(`\`/voice export as of ${SINCE}\``);
  });

  it('says a number routed away and back, by an Undo or another change, as no net change rather than A → A', () => {
    const back = { before: { id: 'agt_1', name: 'Berlin Support' }, after: { id: 'agt_1', name: 'Berlin Support' } };
    const shown = rendered(
      routingChangesMessage({
        since: SINCE,
        sinceUtc: SINCE,
        changes: [
          change({ ...back, undone: true }),
          change({ ...back, number: '+14155550101' }),
          change({ number: '+14155550102', undone: true }),
        ],
      }),
    );
    expect(shown).not.toContain('*Berlin Support* (`agt_1`) → *Berlin Support*');
    expect(shown).toContain(
      '• *+14155550100* (US): *Berlin Support* (`agt_1`) then and now: re-routed, then undone, no net change · by',
    );
    expect(shown).toContain('*Berlin Support* (`agt_1`) then and now: re-routed, then routed back, no net change');
    expect(shown).toContain('*Front desk* (`agt_1`) → *Night shift* (`agt_2`) · an Undo among the changes · by');
  });

  it('says so when nothing changed', () => {
    const message = routingChangesMessage({ since: SINCE, sinceUtc: SINCE, changes: [] });
    expect(rendered(message)).toContain(`Nothing in the routing changed since ${SINCE}`);
    expect(message.blocks).toHaveLength(1);
  });

  it('escapes agent names and anything not a Slack user id among the people', () => {
    const message = routingChangesMessage({
      since: SINCE,
      sinceUtc: SINCE,
      changes: [change({ before: { id: 'agt_1', name: HOSTILE }, by: ['U0ALICE', HOSTILE] })],
    });
    expect(rendered(message)).toContain(HOSTILE_ESCAPED);
    expect(unescapedMarkup(message, ['<@U0ALICE>'])).toEqual([]);
  });

  it(`lists ${CHANGES_SHOWN} numbers and counts the rest, within Slack's limits however long each line`, () => {
    const long = { id: `agt_${'x'.repeat(146)}`, name: 'N'.repeat(100) };
    const people = many(12, (index) => `U0PERSON${index}`);
    const changes = many(CHANGES_SHOWN + 25, (index) =>
      change({ number: `+1415555${String(index).padStart(4, '0')}`, before: long, after: long, by: people }),
    );
    const message = routingChangesMessage({ since: SINCE, sinceUtc: SINCE, changes });
    const shown = rendered(message);
    expect(shown.match(/^• /gm)).toHaveLength(CHANGES_SHOWN);
    expect(shown).toContain('And 25 more numbers.');
    expect(shown).toContain('<@U0PERSON4> and 7 others');
    expect(limitViolations(message)).toEqual([]);
    expect(check(messageBody, message)).toEqual(expect.objectContaining({ ok: true }));
  });
});

describe('exportMessage as of a moment past', () => {
  const exported = { text: '# header\n+14155550100 agt_1  # Front desk', routed: 1, asOf: SINCE };

  it('says which moment it shows, that it was rebuilt from the verified log, and that a plan of it routes back', () => {
    const shown = rendered(exportMessage(exported, { asFile: false, mayPlan: true }));
    expect(shown).toContain(`1 number routed as of ${SINCE}, rebuilt from the verified audit log.`);
    expect(shown).toContain('Paste it into `/voice plan` to route them back.');
    expect(shown).toContain('```# header\n+14155550100 agt_1  # Front desk```');
    expect(shown).toContain('Numbers that routed nowhere then keep the route they have now');
  });

  it('tells a viewer an operator can plan it, and says where a long one went', () => {
    const shown = rendered(exportMessage(exported, { asFile: true, mayPlan: false }));
    expect(shown).toContain(`:page_facing_up: The routing as of ${SINCE} is in the file above.`);
    expect(shown).toContain('An operator can paste it into `/voice plan` to route them back.');
    expect(shown).not.toContain('```');
  });
});
