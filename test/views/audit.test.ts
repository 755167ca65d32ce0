import { describe, expect, it } from 'vitest';
import { auditMessage } from '../../src/slack/views/audit.js';
import type { AuditEvent } from '../../src/store/audit.js';
import {
  HOSTILE,
  HOSTILE_ESCAPED,
  limitViolations,
  many,
  rawHostileKeys,
  rendered,
  unescapedMarkup,
} from './support.js';

function event(overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    id: 1,
    at: '2025-03-01T12:34:56.789Z',
    actorId: 'U0ALICE',
    source: 'command',
    action: 'number.buy',
    target: '+14155550100',
    outcome: 'succeeded',
    correlationId: 'c_1',
    hash: '0'.repeat(64),
    ...overrides,
  };
}

describe('auditMessage', () => {
  it('shows time to the minute in UTC, actor, action, target and outcome', () => {
    expect(rendered(auditMessage([event()]))).toContain(
      '`2025-03-01T12:34Z` <@U0ALICE> `number.buy` *+14155550100* :white_check_mark: succeeded',
    );
  });

  it('shows the error code and message of a failure', () => {
    const text = rendered(auditMessage([event({ outcome: 'failed', errorCode: 'conflict', errorMessage: 'Taken.' })]));
    expect(text).toContain(':x: failed `conflict` Taken.');
  });

  it('keeps the order it is given: newest first', () => {
    const text = rendered(auditMessage([event({ target: '+1999' }), event({ target: '+1888' })]));
    expect(text.indexOf('+1999')).toBeLessThan(text.indexOf('+1888'));
  });

  it('marks each outcome with its own emoji', () => {
    const outcomes = ['requested', 'confirmed', 'succeeded', 'failed', 'denied', 'cancelled', 'expired'] as const;
    const text = rendered(auditMessage(outcomes.map((outcome) => event({ outcome }))));
    const emoji = outcomes.map((outcome) => new RegExp(`(:[a-z_]+:) ${outcome}`).exec(text)?.[1]);
    expect(new Set(emoji).size).toBe(outcomes.length);
  });

  it('shows parameters, so that a request without a target still says what it was', () => {
    const text = rendered(
      auditMessage([event({ action: 'agent.create', target: undefined, params: { name: 'Bot', language: 'en-US' } })]),
    );
    expect(text).toContain('`agent.create` :white_check_mark: succeeded name=Bot language=en-US');
  });

  it('escapes targets, parameters and errors, and mentions only the actor', () => {
    const shown = auditMessage([
      event({ target: HOSTILE, params: { name: HOSTILE }, errorCode: HOSTILE, errorMessage: HOSTILE }),
      event({ actorId: '<!channel>' }),
    ]);
    expect(rendered(shown)).toContain(`*${HOSTILE_ESCAPED}*`);
    expect(rendered(shown)).toContain('&lt;!channel&gt; `number.buy`');
    expect(unescapedMarkup(shown, ['<@U0ALICE>'])).toEqual([]);
    expect(rawHostileKeys(shown)).toEqual([]);
  });

  it('fits 200 events with long fields in under 50 blocks of at most 3000 characters', () => {
    const long = `${'<&>'.repeat(200)} ${HOSTILE}`;
    const events = many(200, (i) =>
      event({ id: i, target: long, params: { name: long }, errorCode: long, errorMessage: long, outcome: 'failed' }),
    );
    const shown = auditMessage(events);
    expect(shown.blocks.length).toBeLessThan(50);
    expect(limitViolations(shown)).toEqual([]);
    expect(rendered(shown).match(/<@U0ALICE>/g)).toHaveLength(200);
    expect(unescapedMarkup(shown, ['<@U0ALICE>'])).toEqual([]);
  });

  it('says when there are no events', () => {
    expect(auditMessage([]).text).toBe('No audit events yet.');
  });
});
