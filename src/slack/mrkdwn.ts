// The one place that escapes text for Slack's mrkdwn, so that text we did not write reads as typed and changes
// nothing around it (Slack parses `<…>` as mentions and links, `*_~` and backticks as formatting):
// - in running text (`escapeMrkdwn`, `bold`), `&<>` become entities, formatting characters look-alikes (∗ ˍ ∼ ˋ),
//   and line breaks, control characters and bidi overrides spaces;
// - inside a code span (`code`) only what could end or break the span is replaced, so that ids copy as they are;
// - in sentences of ours (`escapeProse`), each pair of backticks is a code span, the rest running text.
import { CONTROL_CHARACTERS } from '../provider/schemas.js';

const ANY_CONTROL_CHARACTER = new RegExp(CONTROL_CHARACTERS.source, 'gu');
const GRAVE = '\u02CB'; // ˋ
const LOOK_ALIKES: Record<string, string> = { '*': '\u2217', _: '\u02CD', '~': '\u223C', '`': GRAVE };

function escapeEntities(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function oneLine(text: string): string {
  return text.replace(ANY_CONTROL_CHARACTER, ' ');
}

const ALPHANUMERIC = /^[A-Za-z0-9]$/;

/**
 * Slack formats only from `*`, `_` or `~` at the edge of a word: one between two letters or digits (`VOICE_ADMINS`,
 * `agt_1`) stays itself, so that names and ids copy as they are. Backticks open code anywhere.
 */
function inert(text: string): string {
  return text.replace(/[*_~`]/g, (character, at: number) => {
    const inWord = character !== '`' && ALPHANUMERIC.test(text[at - 1] ?? '') && ALPHANUMERIC.test(text[at + 1] ?? '');
    return inWord ? character : (LOOK_ALIKES[character] ?? character);
  });
}

/** Text shown as typed, on one line, that can mention, link or format nothing. */
export function escapeMrkdwn(text: string): string {
  return escapeEntities(inert(oneLine(text)));
}

/** Each backtick pair a code span, the rest escaped as `escapeMrkdwn` does, a lone backtick a look-alike. */
export function escapeProse(text: string): string {
  const flat = oneLine(text);
  let out = '';
  let at = 0;
  for (const span of flat.matchAll(/`([^`]+)`/g)) {
    out += escapeMrkdwn(flat.slice(at, span.index)) + (code(span[1] ?? '') || escapeMrkdwn(span[0]));
    at = span.index + span[0].length;
  }
  return out + escapeMrkdwn(flat.slice(at));
}

/**
 * Plain text of mrkdwn, for the audit log (whose views escape it again) and a form's inline errors: code spans without
 * backticks, entities as their characters.
 */
export function plainOfMrkdwn(text: string): string {
  return text
    .replace(/`([^`]*)`/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Shortens text to at most `max` characters, ending in `…`, for Slack's length limits. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text
    .slice(0, Math.max(0, max - 1))
    // Half a surrogate pair or half an entity (`&am`) would render as garbage.
    .replace(/[\uD800-\uDBFF]$/, '')
    .replace(/&[a-z]{0,4}$/, '');
  return `${cut}…`;
}

/** Escapes, then shortens: the result fits `max` however many characters the escaping added. */
export function escapeAndTruncate(text: string, max: number): string {
  return truncate(escapeMrkdwn(text), max);
}

// Slack formats `*x*` only when the delimiters touch non-blank text, so the text inside is trimmed, and blank text
// is not wrapped at all: a stray `*` or backtick could pair with one further along the line.
function wrapped(delimiter: string, escaped: string, max: number): string {
  const inner = truncate(escaped.trim(), max);
  return inner ? `${delimiter}${inner}${delimiter}` : '';
}

/** `*text*`: text in bold, shown as typed (escaped as `escapeMrkdwn` does), at most `max` characters inside. */
export function bold(raw: string, max = Number.POSITIVE_INFINITY): string {
  return wrapped('*', escapeMrkdwn(raw), max);
}

// Inside code Slack formats nothing: only what would end the span, or break its line, is replaced.
function escapeCode(text: string): string {
  return escapeEntities(oneLine(text)).replace(/`/g, GRAVE);
}

/** `` `text` ``: text in a code span, every character kept but backticks (as ˋ) and control characters. */
export function code(raw: string, max = Number.POSITIVE_INFINITY): string {
  return wrapped('`', escapeCode(raw), max);
}

/** A code block, for text to copy whole (a token): escaped as `code` is. */
export function codeBlock(raw: string): string {
  return wrapped('```', escapeCode(raw), Number.POSITIVE_INFINITY);
}

/** A code block of several lines (an export to paste back): each line escaped as `code` is, the breaks kept. */
export function codeLines(raw: string): string {
  const lines = raw.split(/\r\n?|\n/).map(escapeCode);
  return wrapped('```', lines.join('\n'), Number.POSITIVE_INFINITY);
}

const SLACK_USER_ID = /^[UW][A-Z0-9]+$/;

/** The only mention rendered raw, an id Slack gave us; anything else is escaped, so it can never ping anyone. */
export function mentionUser(userId: string): string {
  return SLACK_USER_ID.test(userId) ? `<@${userId}>` : escapeMrkdwn(userId);
}

const SLACK_GROUP_ID = /^S[A-Z0-9]+$/;

/** A person or a user group from the settings: a group is drawn as Slack draws `@group`. */
export function mentionMember(id: string): string {
  return SLACK_GROUP_ID.test(id) ? `<!subteam^${id}>` : mentionUser(id);
}

const SLACK_CHANNEL_ID = /^[CG][A-Z0-9]+$/;

/** A channel link from an id in our own configuration; anything else is shown as escaped text. */
export function mentionChannel(channelId: string): string {
  return SLACK_CHANNEL_ID.test(channelId) ? `<#${channelId}>` : escapeMrkdwn(channelId);
}
