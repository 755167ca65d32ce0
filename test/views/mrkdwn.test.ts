import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeAndTruncate, escapeMrkdwn, mentionUser, truncate } from '../../src/slack/mrkdwn.js';
import { HOSTILE, HOSTILE_ESCAPED } from './support.js';

/** Slack's own decoding of the three entities, the inverse the escaping must have. */
function slackDecode(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

describe('escapeMrkdwn', () => {
  it('turns mentions and links into literal text', () => {
    expect(escapeMrkdwn(HOSTILE)).toBe(HOSTILE_ESCAPED);
  });

  it('escapes an ampersand that already looks like an entity, so it reads back as typed', () => {
    expect(escapeMrkdwn('&lt;')).toBe('&amp;lt;');
  });

  it('never outputs < or >, and Slack decodes it back to the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const escaped = escapeMrkdwn(text);
        expect(escaped).not.toMatch(/[<>]/);
        expect(slackDecode(escaped)).toBe(text);
      }),
    );
  });

  it('round-trips text made mostly of the special characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('<', '>', '&', 'a', ';', 'l', 't', 'g') }), (text) => {
        expect(slackDecode(escapeMrkdwn(text))).toBe(text);
      }),
    );
  });
});

describe('truncate', () => {
  it('leaves short text alone and ends long text with an ellipsis within the limit', () => {
    expect(truncate('Support bot', 24)).toBe('Support bot');
    expect(truncate('a'.repeat(30), 24)).toBe(`${'a'.repeat(23)}…`);
  });

  it('never exceeds the limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 1, max: 50 }), (text, max) => {
        expect(truncate(text, max).length).toBeLessThanOrEqual(max);
      }),
    );
  });

  it('does not leave half an entity or half a surrogate pair', () => {
    expect(escapeAndTruncate('ab<<<', 6)).toBe('ab…');
    expect(truncate('ab😀cd', 4)).toBe('ab…');
  });

  it('keeps escaped text free of < and > however it is cut', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 40 }), (text, max) => {
        const cut = escapeAndTruncate(text, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        expect(cut).not.toMatch(/[<>]|&[a-z]{0,3}(…|$)/);
      }),
    );
  });
});

describe('mentionUser', () => {
  it('mentions a Slack user id', () => {
    expect(mentionUser('U0123ABC')).toBe('<@U0123ABC>');
    expect(mentionUser('W0123ABC')).toBe('<@W0123ABC>');
  });

  it('renders anything else as escaped text that pings no one', () => {
    expect(mentionUser('U1><!channel')).toBe('U1&gt;&lt;!channel');
    expect(mentionUser('u123')).toBe('u123');
  });
});
