// How Slack reads mrkdwn, as far as the views depend on it, erring on the side of seeing markup where Slack might:
// - `<…>` is a mention, a broadcast, a channel, a date or a link (any raw `<` opens one);
// - a line feed, carriage return, U+2028 or U+2029 starts a new line, and a line starting with `>` or `&gt;` is a
//   quote;
// - ``` … ``` is a code block and `…` a code span, both on their own before anything else, their text literal;
// - `*`, `_` and `~` open bold, italic and strike when preceded by the start of the line, white space or punctuation
//   and followed by something other than white space, and close when preceded by something other than white space
//   and followed by the end of the line, white space or punctuation;
// - in a text object that is not `verbatim`, a bare URL, `@here`, `@channel`, `@everyone` or `#name` is linked too.
// Emoji codes (`:smile:`) are not markup here: a name may carry an emoji, and an emoji can neither format nor link.

export type Mark =
  | { kind: 'markup'; raw: string }
  | { kind: 'autolink'; raw: string }
  | { kind: 'break' }
  | { kind: 'quote' }
  | { kind: 'open' | 'close'; style: 'bold' | 'italic' | 'strike' | 'code' | 'pre' };

const STYLES = { '*': 'bold', _: 'italic', '~': 'strike' } as const;
const LINE_BREAK = /(\r\n|[\n\r\u2028\u2029])/;
const AUTOLINK = /(?:https?:\/\/|mailto:|www\.)\S+|@(?:here|channel|everyone)\b|#[a-z0-9][\w-]*/gi;

interface Positioned {
  at: number;
  mark: Mark;
}

const blank = (character: string | undefined) => character === undefined || /\s/.test(character);
const punctuation = (character: string) => /[^\p{L}\p{N}\s]/u.test(character);

/** Bold, italic and strike spans in one line whose code spans and `<…>` markup are already masked out. */
function formatting(line: string, offset: number): Positioned[] {
  const opens = (at: number) => {
    const before = line[at - 1];
    return (before === undefined || blank(before) || punctuation(before)) && !blank(line[at + 1]);
  };
  const closes = (at: number) => {
    const after = line[at + 1];
    return !blank(line[at - 1]) && (after === undefined || blank(after) || punctuation(after));
  };
  const found: Positioned[] = [];
  for (const [delimiter, style] of Object.entries(STYLES)) {
    let open: number | undefined;
    for (let at = 0; at < line.length; at++) {
      if (line[at] !== delimiter) continue;
      if (open !== undefined && at > open + 1 && closes(at)) {
        found.push(
          { at: offset + open, mark: { kind: 'open', style } },
          { at: offset + at, mark: { kind: 'close', style } },
        );
        open = undefined;
      } else if (open === undefined && opens(at)) {
        open = at;
      }
    }
  }
  return found;
}

/** One line outside code blocks: its quote, `<…>` markup, code spans, formatting and (unless verbatim) autolinks. */
function lineMarks(line: string, offset: number, verbatim: boolean): Positioned[] {
  const found: Positioned[] = [];
  if (/^\s*(>|&gt;)/.test(line)) found.push({ at: offset, mark: { kind: 'quote' } });
  let masked = line;
  const mask = (start: number, length: number) => {
    masked = `${masked.slice(0, start)}${'x'.repeat(length)}${masked.slice(start + length)}`;
  };
  for (const match of line.matchAll(/<[^>]*>?/g)) {
    found.push({ at: offset + match.index, mark: { kind: 'markup', raw: match[0] } });
    mask(match.index, match[0].length);
  }
  for (const match of masked.matchAll(/`[^`]+`/g)) {
    found.push(
      { at: offset + match.index, mark: { kind: 'open', style: 'code' } },
      { at: offset + match.index + match[0].length - 1, mark: { kind: 'close', style: 'code' } },
    );
    mask(match.index, match[0].length);
  }
  found.push(...formatting(masked, offset));
  if (!verbatim) {
    for (const match of masked.matchAll(AUTOLINK)) {
      found.push({ at: offset + match.index, mark: { kind: 'autolink', raw: match[0] } });
    }
  }
  return found;
}

/** The marks Slack would find in a mrkdwn text, in order. */
export function parseMrkdwn(text: string, options: { verbatim: boolean }): Mark[] {
  return positionedMarks(text, options).map((positioned) => positioned.mark);
}

/**
 * A line of mrkdwn as Slack shows it: the `*`, `_`, `~` and backticks that open and close a span gone, those it shows
 * as they are (a stray `*`) kept.
 */
export function asSlackShows(text: string): string {
  const delimiters = new Set(
    positionedMarks(text, { verbatim: true })
      .filter(({ mark }) => (mark.kind === 'open' || mark.kind === 'close') && mark.style !== 'pre')
      .map(({ at }) => at),
  );
  return text
    .split('')
    .filter((_, at) => !delimiters.has(at))
    .join('');
}

function positionedMarks(text: string, options: { verbatim: boolean }): Positioned[] {
  const found: Positioned[] = [];
  let at = 0;
  for (const part of text.split(/(```[\s\S]*?```)/)) {
    const pre = part.length >= 6 && part.startsWith('```') && part.endsWith('```');
    if (pre) found.push({ at, mark: { kind: 'open', style: 'pre' } });
    // Lines and the breaks between them, alternately.
    for (const [index, piece] of part.split(LINE_BREAK).entries()) {
      if (index % 2) found.push({ at, mark: { kind: 'break' } });
      else if (!pre) found.push(...lineMarks(piece, at, options.verbatim));
      at += piece.length;
    }
    if (pre) found.push({ at: at - 1, mark: { kind: 'close', style: 'pre' } });
  }
  return found.sort((a, b) => a.at - b.at);
}

type Json = unknown;

function objects(value: Json): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.flatMap(objects);
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  return [object, ...Object.values(object).flatMap(objects)];
}

/**
 * The marks in everything Slack reads as mrkdwn in a message, view or API body: each mrkdwn text object (verbatim
 * or not) and a message's top-level `text` (shown in notifications, where nothing links), one list per text.
 */
export function mrkdwnMarks(value: Json): Mark[][] {
  const texts = objects(value)
    .filter((object) => object.type === 'mrkdwn' && typeof object.text === 'string')
    .map((object) => parseMrkdwn(object.text as string, { verbatim: object.verbatim === true }));
  const top = value as { text?: unknown; blocks?: unknown };
  return typeof top?.text === 'string' && Array.isArray(top.blocks)
    ? [parseMrkdwn(top.text, { verbatim: true }), ...texts]
    : texts;
}
