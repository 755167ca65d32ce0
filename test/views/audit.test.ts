import { describe, expect, it } from 'vitest';
import { check, messageBody } from '../../src/playground/block-kit.js';
import { ACTION, PAGE } from '../../src/slack/ids.js';
import { auditMessage } from '../../src/slack/views/audit.js';
import {
  auditChange,
  auditPageOf,
  elements,
  HOSTILE,
  HOSTILE_ESCAPED,
  limitViolations,
  many,
  rawHostileKeys,
  rendered,
  unescapedMarkup,
} from './support.js';

describe('auditMessage', () => {
  it('shows one line per change: time to the minute in UTC, actor, action in words, target and latest outcome', () => {
    expect(rendered(auditMessage(auditPageOf([auditChange()])))).toContain(
      '`2025-03-01T12:34Z` <@U0ALICE> bought *+14155550100* :white_check_mark: succeeded',
    );
    expect(rendered(auditMessage(auditPageOf([auditChange({ outcome: 'failed' })])))).toContain(
      '<@U0ALICE> buy *+14155550100* :x: failed',
    );
  });

  it('says every action in words, an action it has no words for too, never as the name the log keeps', () => {
    const actions = ['agent.create', 'settings.change', 'batch.map', 'change.undo', 'playground.reset', 'number.note'];
    const text = rendered(auditMessage(auditPageOf(actions.map((action) => auditChange({ action, target: 'x' })))));
    for (const words of ['agent created', 'settings changed', 'routed in bulk', 'change undone', 'playground reset']) {
      expect(text).toContain(`<@U0ALICE> ${words} *x*`);
    }
    expect(text).toContain('<@U0ALICE> number note *x*');
    expect(text).not.toMatch(/`[a-z_]+\.[a-z_]+`/);
  });

  it('gives each batch on the page its own Items button, in a block of its own, as Slack asks', () => {
    const batch = (id: string, minute: string) =>
      auditChange({
        correlationId: id,
        action: 'batch.map',
        target: 'agt_berlin',
        at: `2025-03-01T12:${minute}:00.000Z`,
        batch: { succeeded: 2, failed: 0, cancelled: 0 },
      });
    const shown = auditMessage(auditPageOf([batch('b_1', '34'), auditChange(), batch('b_2', '40')]));
    const buttons = elements(shown, ACTION.batchItems);
    expect(buttons.map((button) => String(button.value))).toEqual([
      expect.stringContaining('b_1'),
      expect.stringContaining('b_2'),
    ]);
    expect(check(messageBody, shown)).toEqual(expect.objectContaining({ ok: true }));
  });

  it('labels each Items button with what its batch did and when, to the second, so that no two read alike', () => {
    const buy = (id: string, at: string, region = 'DE') =>
      auditChange({
        correlationId: id,
        action: 'batch.buy',
        target: '3 numbers',
        region,
        at: `2025-03-01T19:07:${at}.000Z`,
        batch: { succeeded: 3, failed: 0, cancelled: 0 },
      });
    const release = auditChange({
      correlationId: 'c_release',
      action: 'batch.release',
      target: '3 numbers',
      at: '2025-03-01T19:07:30.000Z',
      batch: { succeeded: 3, failed: 0, cancelled: 0 },
    });
    const page = auditPageOf([buy('b_1aaaaaaa-1', '12'), buy('b_2bbbbbbb-2', '12'), buy('b_3', '40', 'US'), release]);
    const labels = elements(auditMessage(page), ACTION.batchItems).map((button) =>
      String((button.text as { text: string }).text),
    );
    expect(labels).toEqual([
      'Items: buy of 3 numbers in DE, 19:07:12 UTC · b_1aaaaa',
      'Items: buy of 3 numbers in DE, 19:07:12 UTC · b_2bbbbb',
      'Items: buy of 3 numbers in US, 19:07:40 UTC',
      'Items: release of 3 numbers, 19:07:30 UTC',
    ]);
    expect(new Set(labels).size).toBe(labels.length);
  });

  it('shows the error code and message of a failure', () => {
    const page = auditPageOf([auditChange({ outcome: 'failed', errorCode: 'conflict', errorMessage: 'Taken.' })]);
    expect(rendered(auditMessage(page))).toContain(':x: failed `conflict` Taken.');
  });

  it('says a change whose outcome is unknown is being settled, and how many items of a batch are', () => {
    const lost = auditChange({ action: 'routing.map', outcome: 'unknown', errorCode: 'network' });
    const batch = auditChange({
      action: 'batch.map',
      outcome: 'unknown',
      batch: { succeeded: 18, failed: 0, cancelled: 0, settling: 2 },
    });
    const shown = rendered(auditMessage(auditPageOf([lost, batch])));
    expect(shown).toContain(':hourglass_flowing_sand: unknown, being settled `network`');
    expect(shown).toContain('(18 succeeded, 2 being settled)');
    expect(shown).not.toContain(':x:');
    expect(shown).not.toMatch(/\d failed/);
  });

  it('says an outcome once when its error code only repeats it', () => {
    const denied = auditChange({
      action: 'access.denied',
      outcome: 'denied',
      errorCode: 'denied',
      notes: [{ action: 'access.denied', outcome: 'denied', actorId: 'U0BOB', errorCode: 'denied' }],
    });
    const text = rendered(auditMessage(auditPageOf([denied])));
    expect(text).toContain(':no_entry: denied · attempt by <@U0BOB> denied');
    expect(text).not.toContain('`denied`');
  });

  it('names the agents of a re-route, from and to, and of an agent change', () => {
    const text = rendered(
      auditMessage(
        auditPageOf([
          auditChange({
            action: 'routing.map',
            agent: { id: 'agt_2', name: 'Night desk' },
            previousAgent: { id: 'agt_1', name: 'Day desk' },
          }),
          auditChange({ action: 'agent.delete', target: 'agt_9', agent: { id: 'agt_9' } }),
        ]),
      ),
    );
    expect(text).toContain(
      'routed *+14155550100* from *Day desk* (`agt_1`) → *Night desk* (`agt_2`) :white_check_mark: succeeded',
    );
    expect(text).toContain('agent deleted `agt_9` :white_check_mark: succeeded');
  });

  it('adds the side steps that went wrong: a lost announcement, someone else refused', () => {
    const text = rendered(
      auditMessage(
        auditPageOf([
          auditChange({
            notes: [
              { action: 'change.announce', outcome: 'failed', actorId: 'U0ALICE', errorCode: 'not_in_channel' },
              { action: 'access.denied', outcome: 'denied', actorId: 'U0BOB' },
            ],
          }),
        ]),
      ),
    );
    expect(text).toContain('· announcement failed `not_in_channel`, attempt by <@U0BOB> denied');
  });

  it('keeps the order it is given: newest first', () => {
    const text = rendered(
      auditMessage(auditPageOf([auditChange({ target: '+1999' }), auditChange({ target: '+1888' })])),
    );
    expect(text.indexOf('+1999')).toBeLessThan(text.indexOf('+1888'));
  });

  it('marks each outcome with its own emoji', () => {
    const outcomes = ['requested', 'confirmed', 'succeeded', 'failed', 'denied', 'cancelled', 'expired'] as const;
    const text = rendered(auditMessage(auditPageOf(outcomes.map((outcome) => auditChange({ outcome })))));
    const emoji = outcomes.map((outcome) => new RegExp(`(:[a-z_]+:) ${outcome}`).exec(text)?.[1]);
    expect(new Set(emoji).size).toBe(outcomes.length);
  });

  it('says what a denied request attempted', () => {
    const change = auditChange({ action: 'access.denied', attempted: 'number.release', outcome: 'denied' });
    expect(rendered(auditMessage(auditPageOf([change])))).toContain('<@U0ALICE> attempt to release *+14155550100*');
  });

  it('shows where the page stands, with Previous and Next carrying the page, the filter and the cursor', () => {
    const page = auditPageOf([auditChange()], {
      page: 3,
      pages: 9,
      total: 170,
      filter: { failed: true },
      newer: { after: 400 },
      older: { before: 380 },
    });
    const shown = auditMessage(page);
    expect(rendered(shown)).toContain('Page 3 of 9 · 170 changes');
    expect(rendered(shown)).toContain('*Audit log* · that failed or were refused');
    const value = (id: string) => JSON.parse(String(elements(shown, id)[0]?.value));
    expect(value(PAGE.audit.previous)).toEqual({ page: 2, filter: { failed: true }, cursor: { after: 400 } });
    expect(value(PAGE.audit.next)).toEqual({ page: 4, filter: { failed: true }, cursor: { before: 380 } });
  });

  it('sends Previous from page 2 back to the newest page, and marks a count that is a lower bound', () => {
    const shown = auditMessage(
      auditPageOf([auditChange()], { page: 2, pages: 5000, total: 100_000, atLeast: true, newer: { after: 9 } }),
    );
    expect(JSON.parse(String(elements(shown, PAGE.audit.previous)[0]?.value))).toEqual({ page: 1, filter: {} });
    expect(elements(shown, PAGE.audit.next)).toEqual([]);
    expect(rendered(shown)).toContain('Page 2 of 5,000+ · 100,000+ changes');
  });

  it('escapes targets, agent names and errors, and mentions only the actors', () => {
    const shown = auditMessage(
      auditPageOf([
        auditChange({
          target: HOSTILE,
          errorCode: HOSTILE,
          errorMessage: HOSTILE,
          action: 'routing.map',
          agent: { id: HOSTILE, name: HOSTILE },
        }),
        auditChange({ actorId: '<!channel>' }),
      ]),
    );
    expect(rendered(shown)).toContain(`*${HOSTILE_ESCAPED}*`);
    expect(rendered(shown)).toContain('&lt;!channel&gt; bought');
    expect(unescapedMarkup(shown, ['<@U0ALICE>'])).toEqual([]);
    expect(rawHostileKeys(shown)).toEqual([]);
  });

  it('fits a page of changes with long fields in under 50 blocks of at most 3000 characters', () => {
    const long = `${'<&>'.repeat(200)} ${HOSTILE}`;
    const changes = many(20, () =>
      auditChange({
        target: long,
        errorCode: long,
        errorMessage: long,
        outcome: 'failed',
        agent: { id: long, name: long },
      }),
    );
    const shown = auditMessage(auditPageOf(changes));
    expect(shown.blocks.length).toBeLessThan(50);
    expect(limitViolations(shown)).toEqual([]);
    expect(rendered(shown).match(/<@U0ALICE>/g)).toHaveLength(20);
    expect(unescapedMarkup(shown, ['<@U0ALICE>'])).toEqual([]);
  });

  it('says when there are no changes, or none that match, echoing a person only typed as code', () => {
    expect(rendered(auditMessage(auditPageOf([])))).toContain('No changes yet.');
    expect(rendered(auditMessage(auditPageOf([], { filter: { actorId: 'U0BOB' } })))).toContain(
      '· by `U0BOB`: one line per change, newest first. Times are UTC.\nNo changes match.',
    );
  });

  it('names the person filtered by as Slack shows a person once the changes shown are theirs', () => {
    const page = auditPageOf([auditChange({ actorId: 'U0BOB' })], { filter: { actorId: 'U0BOB' } });
    expect(rendered(auditMessage(page))).toContain('*Audit log* · by <@U0BOB>: one line per change');
  });
});
