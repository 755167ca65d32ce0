// Ids and numbers are ASCII. One that carries an invisible character (a zero-width space pasted along with it) or a
// look-alike (a full-width or Arabic-Indic digit, a Cyrillic letter) reads exactly like the real one, so a message
// saying it was not found would make no sense to whoever reads it: such characters are shown as their code points.
const NOT_PLAIN_ASCII = /[^\x20-\x7E]/gu;

/** `agt_1\u200B` as `agt_1[U+200B]`; plain ASCII as it is. */
export function visible(text: string): string {
  return text.replace(NOT_PLAIN_ASCII, (character) => {
    const code = (character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    return `[U+${code}]`;
  });
}
