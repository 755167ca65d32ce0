import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bold,
  code,
  escapeAndTruncate,
  escapeMrkdwn,
  escapeProse,
  mentionUser,
  truncate,
} from '../../src/slack/mrkdwn.js';
import { HOSTILE, HOSTILE_ESCAPED } from './support.js';

/** Slack's own decoding of the three entities, the inverse the escaping must have. */
function slackDecode(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

const SPECIAL = /[<>*_~`\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;
/** A formatting character between two letters or digits, which Slack leaves alone (`agt_1`, `VOICE_ADMINS`). */
const IN_WORD = /(?<=[A-Za-z0-9])[*_~](?=[A-Za-z0-9])/g;

describe('escapeMrkdwn', () => {
  it('turns mentions, links and formatting into literal text', () => {
    expect(escapeMrkdwn(HOSTILE)).toBe(HOSTILE_ESCAPED);
  });

  it('shows formatting characters at the edge of a word as look-alikes, and line breaks, tabs and bidi overrides as spaces', () => {
    expect(escapeMrkdwn('Desk\n:white_check_mark: Released *+14155550100*')).toBe(
      'Desk :white_check_mark: Released \u2217+14155550100\u2217',
    );
    expect(escapeMrkdwn('_it_ ~s~ `c` a\tb\r\nc\u2028d\u202ee')).toBe(
      '\u02CDit\u02CD \u223Cs\u223C \u02CBc\u02CB a b  c d e',
    );
  });

  it('leaves `*`, `_` and `~` between two letters or digits as they are: they format nothing there', () => {
    expect(escapeMrkdwn('VOICE_OPERATORS agt_1 2*3 a~b')).toBe('VOICE_OPERATORS agt_1 2*3 a~b');
    expect(escapeMrkdwn('_x x_ é_é a`b')).toBe('\u02CDx x\u02CD \u00E9\u02CD\u00E9 a\u02CBb');
  });

  it('escapes an ampersand that already looks like an entity, so it reads back as typed', () => {
    expect(escapeMrkdwn('&lt;')).toBe('&amp;lt;');
  });

  it('reads back as typed, character for character, but for the characters Slack would parse', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const escaped = escapeMrkdwn(text);
        // `*`, `_` and `~` between two letters or digits stay: Slack formats only at the edge of a word.
        expect(escaped.replace(IN_WORD, '')).not.toMatch(SPECIAL);
        const shown = slackDecode(escaped);
        expect(shown).toHaveLength(text.length);
        for (let index = 0; index < text.length; index++) {
          if (shown[index] !== text[index]) expect(text[index]).toMatch(SPECIAL);
        }
      }),
      { examples: [['0_0'], ['agt_1 *bold*']] },
    );
  });

  it('round-trips text made mostly of the entity characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('<', '>', '&', 'a', ';', 'l', 't', 'g') }), (text) => {
        expect(slackDecode(escapeMrkdwn(text))).toBe(text);
      }),
    );
  });
});

describe('bold and code', () => {
  it('wrap the text, trimmed, and wrap nothing when it is blank', () => {
    expect(bold(' Front desk ')).toBe('*Front desk*');
    expect(code(' ag_1 ')).toBe('`ag_1`');
    expect(bold(' \n ')).toBe('');
    expect(code('\t')).toBe('');
  });

  it('bold escapes as running text does; code keeps every character but backticks and line breaks', () => {
    expect(bold('_a*b_c <!here>*')).toBe('*\u02CDa*b_c &lt;!here&gt;\u2217*');
    expect(code('ag_1*~ `x` <@U1>\nnext')).toBe('`ag_1*~ \u02CBx\u02CB &lt;@U1&gt; next`');
  });

  it('shorten what they wrap, keeping the delimiters', () => {
    expect(bold('a'.repeat(30), 10)).toBe(`*${'a'.repeat(9)}…*`);
    expect(code('<<<<', 6)).toBe('`&lt;…`');
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

describe('escapeProse', () => {
  it('shows a command named in backticks as code a person can copy, never as look-alike backticks', () => {
    expect(escapeProse('That plan was already applied. `/voice audit` shows what became of it.')).toBe(
      'That plan was already applied. `/voice audit` shows what became of it.',
    );
    expect(escapeProse('a filter (`unrouted`, `agent AGENT_ID`)')).toBe('a filter (`unrouted`, `agent AGENT_ID`)');
  });

  it('escapes the rest, and what is inside a span, as running text and code are escaped', () => {
    expect(escapeProse('<!channel> *x* `<@U1> *y*` and `')).toBe(
      '&lt;!channel&gt; \u2217x\u2217 `&lt;@U1&gt; *y*` and \u02CB',
    );
    expect(escapeProse('line\n`a\nb`')).toBe('line `a b`');
  });
});
