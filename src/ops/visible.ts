// Ids and numbers are ASCII. One that carries an invisible character (a zero-width space pasted along with it) or a
// look-alike (a full-width or Arabic-Indic digit, a Cyrillic letter) reads exactly like the real one, so a message
// saying it was not found would make no sense to whoever reads it: such characters are shown as their code points.
// Free text (an agent's name) may be in any script; only what cannot be seen at all is shown so there.
const NOT_PLAIN_ASCII = /[^\x20-\x7E]/gu;
const INVISIBLE = /[\p{Cf}\p{Cc}\u2028\u2029\u00A0\u2000-\u200A\u202F\u205F\u3000]/gu;

const codePoint = (character: string) =>
  `[U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}]`;

/** An id or number as typed: `agt_1\u200B` as `agt_1[U+200B]`; plain ASCII as it is. */
export function visible(text: string): string {
  return text.replace(NOT_PLAIN_ASCII, codePoint);
}

/** Free text with its invisible characters shown: `Front\u200Bdesk` as `Front[U+200B]desk`, `Zoë` as it is. */
export function withInvisibleShown(text: string): string {
  return text.replace(INVISIBLE, codePoint);
}

/**
 * How an error names a value it refuses: `Number` alone for plain ASCII (the person can see what they typed), and
 * `Number "+49[U+FF11]…"` when something in it cannot be seen for what it is.
 */
export function named(what: string, value: string): string {
  return value.replace(NOT_PLAIN_ASCII, '') === value ? what : `${what} "${visible(value)}"`;
}
