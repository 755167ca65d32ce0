// Desired routing as text, one `NUMBER AGENT_ID` per line, pasted into a plan or printed by an export; after a
// `# labels` line, one `NUMBER LABEL… TEAM` per line instead. Only each line's shape is checked here; whether a number
// is the account's, or comes twice, is for the caller.
import { CONTROL_CHARACTERS, resourceId } from '../provider/schemas.js';
import { labelSchema, teamWritten } from '../settings-schema.js';
import { type Failure, fail } from './types.js';
import { visible } from './visible.js';

type PhoneNumbers = typeof import('libphonenumber-js');
// Loaded by the first text read rather than at start: its metadata is an eighth of the app's start-up.
let phoneNumbers: Promise<PhoneNumbers> | undefined;
const phoneNumbersLibrary = () => {
  phoneNumbers ??= import('libphonenumber-js').catch((error: unknown) => {
    phoneNumbers = undefined; // tried again by the next text
    throw error;
  });
  return phoneNumbers;
};

/** Entries one text may hold. Parsing returns them all, so that the caller can say by how many a text is over. */
export const ROUTING_TEXT_MAX_LINES = 1000;

/** Characters of an entry without its comment: a longer line is something pasted by mistake, not worth echoing. */
const ENTRY_MAX = 200;

/** How people write numbers. Anything else (letters, `ext`, `tel:`) is refused, not skipped as the library would. */
const WRITTEN_NUMBER = /^(?=.*\d)[+\d\s()./\p{Pd}]+$/u;
const ANY_CONTROL_CHARACTER = new RegExp(CONTROL_CHARACTERS.source, 'gu');

/**
 * An entry: its 1-based line, its trimmed text, and what it routes (the agent as written), or in the labels part the
 * number's labels and owning team as they are to be; or why it cannot.
 */
export type RoutingLine = { line: number; text: string } & (
  | { ok: true; number: string; agent: string }
  | LabelsEntry
  | { ok: false; error: string }
);

type LabelsEntry = { ok: true; number: string; labels: string[]; owner?: string };

/** The comment line after which a text's lines are a number's labels and team rather than its route. */
const LABELS_PART = /^#\s*labels\b/i;

type Refusal = { ok: false; error: string };

function refused(error: string): Refusal {
  return { ok: false, error };
}

/**
 * `NUMBER AGENT` a line, the agent its last word or a name in quotes (`+49 30 1234567 "Berlin Support"`), `#` starting
 * a comment. A line at fault yields its error, and the others are read all the same.
 */
export async function parseRoutingText(text: string): Promise<RoutingLine[]> {
  const library = await phoneNumbersLibrary();
  const lines: RoutingLine[] = [];
  let labelsPart = false;
  for (const [index, raw] of text.split(/\r\n?|\n/).entries()) {
    const written = raw.trim();
    labelsPart ||= LABELS_PART.test(written);
    const entry = (raw.split('#', 1)[0] ?? '').trim();
    if (!entry) continue;
    const parsed = labelsPart ? parseLabelsEntry(library, entry) : parseEntry(library, entry);
    lines.push({ line: index + 1, text: shortened(written), ...parsed });
  }
  return lines;
}

/**
 * `NUMBER LABEL… TEAM`: the number (one word as exports write it, or as people do), its labels, and last the team that
 * owns it, as a user group's mention or its id; a number alone has neither.
 */
function parseLabelsEntry(library: PhoneNumbers, entry: string): LabelsEntry | Refusal {
  if (entry.length > ENTRY_MAX) {
    return refused(`this line is ${entry.length} characters long: a labels line holds at most ${ENTRY_MAX} characters`);
  }
  const words = entry.split(/\s+/);
  const numberWords = numberWordsOf(library, words);
  const number = parseNumber(library, words.slice(0, numberWords).join(' '));
  if (!number.ok) return number;
  const rest = words.slice(numberWords);
  const team = rest.length ? teamWritten(rest.at(-1) ?? '') : undefined;
  const labels = team === undefined ? rest : rest.slice(0, -1);
  const unreadable = labels.find((label) => !labelSchema.safeParse(label).success);
  if (unreadable === undefined) {
    return { ok: true, number: number.value, labels: [...new Set(labels)].sort(), ...(team ? { owner: team } : {}) };
  }
  if (teamWritten(unreadable) || unreadable.startsWith('@')) {
    return refused(`give the team last, once, as <!subteam^ID> or its id S…, not "${visible(unreadable)}"`);
  }
  return refused(`"${visible(unreadable)}" is not a label: lowercase letters, digits and : . _ / -, up to 50`);
}

/** The words a labels line's number takes: the first alone when it is one (as exports write it), else all that look so. */
function numberWordsOf(library: PhoneNumbers, words: string[]): number {
  if (parseNumber(library, words[0] ?? '').ok) return 1;
  const run = words.findIndex((word) => !WRITTEN_NUMBER.test(word));
  return Math.max(run < 0 ? words.length : run, 1);
}

/** The line as written, cut short when too long to show whole. */
function shortened(written: string): string {
  if (written.length <= ENTRY_MAX) return written;
  // Half a surrogate pair at the cut would render as garbage.
  return `${written.slice(0, ENTRY_MAX).replace(/[\uD800-\uDBFF]$/, '')}…`;
}

/** A name in quotes at the end of an entry, straight or curly, as commands take it. */
const QUOTED_AGENT = /^(.*?)\s*["“”]([^"“”]+)["“”]$/;

function parseEntry(library: PhoneNumbers, entry: string): { ok: true; number: string; agent: string } | Refusal {
  if (entry.length > ENTRY_MAX) {
    return refused(
      `this line is ${entry.length} characters long: a line holds one phone number and one agent id, at most ${ENTRY_MAX} characters`,
    );
  }
  // A line of digits alone is a number without its agent id, rather than a number whose last digits are an id.
  if (WRITTEN_NUMBER.test(entry)) return refused('give the agent id after the number');
  const quoted = QUOTED_AGENT.exec(entry);
  const words = quoted ? [quoted[1] ?? '', quoted[2] ?? ''] : entry.split(/\s+/);
  if (words.length < 2 || !words[0]) {
    return refused('give a phone number, then the agent id, e.g. +49 30 1234567 agt_123');
  }
  const number = parseNumber(library, words.slice(0, -1).join(' '));
  if (!number.ok) return number;
  const agent = resourceId.safeParse(words.at(-1));
  if (!agent.success) return refused(`the agent id ${agent.error.issues[0]?.message ?? 'is invalid'}`);
  return { ok: true, number: number.value, agent: agent.data };
}

/** In E.164 when it could exist, else why not: the same check as for a number typed into a command. */
async function possibleNumber(written: string): Promise<{ ok: true; value: string } | Refusal> {
  return parseNumber(await phoneNumbersLibrary(), written);
}

/** A number typed into a command that no country has, refused before anything is asked: in the words a plan uses. */
export async function refuseImpossible(number: string, nothingTo: string): Promise<Failure | undefined> {
  const possible = await possibleNumber(number);
  return possible.ok ? undefined : fail('invalid', `${possible.error}: nothing to ${nothingTo}.`, { field: 'number' });
}

function parseNumber(
  { parsePhoneNumberFromString, validatePhoneNumberLength }: PhoneNumbers,
  written: string,
): { ok: true; value: string } | Refusal {
  const quoted = `"${visible(written)}"`;
  if (!WRITTEN_NUMBER.test(written)) return refused(`${quoted} is not a phone number`);
  // 00 is the international prefix across most of the world; the library knows it only given a country.
  const international = written.replace(/^00/, '+');
  const parsed = parsePhoneNumberFromString(international);
  // Possible, not valid: a number the account holds must read back even when the metadata has not caught up with it.
  if (parsed?.isPossible()) return { ok: true, value: parsed.number };
  switch (validatePhoneNumberLength(international)) {
    case 'INVALID_COUNTRY':
      return international.startsWith('+')
        ? refused(`${quoted} does not start with a known country code`)
        : refused(
            `${quoted} needs its country code: start it with + and the country code, e.g. +49 30 1234567 rather than 030 1234567`,
          );
    case 'TOO_SHORT':
      return refused(`${quoted} is too short for a phone number in its country`);
    case 'TOO_LONG':
      return refused(`${quoted} is too long for a phone number in its country`);
    case 'INVALID_LENGTH':
      return refused(`${quoted} does not have the length of a phone number in its country`);
    default:
      return refused(`${quoted} is not a phone number`);
  }
}

/**
 * Routes as `parseRoutingText` reads them, sorted by number, each agent's name as a trailing comment, made one line
 * so that the routing reads back as it was.
 */
export function routingText(
  routes: { phoneNumber: string; agentId: string; agentName?: string }[],
  header?: string,
): string {
  const comments = header === undefined ? [] : header.split(/\r\n?|\n/).map((line) => `# ${oneLine(line)}`.trimEnd());
  const entries = routes
    .toSorted((a, b) => (a.phoneNumber < b.phoneNumber ? -1 : a.phoneNumber > b.phoneNumber ? 1 : 0))
    .map(({ phoneNumber, agentId, agentName }) => {
      const name = oneLine(agentName ?? '');
      return name ? `${phoneNumber} ${agentId}  # ${name}` : `${phoneNumber} ${agentId}`;
    });
  return [...comments, ...entries].join('\n');
}

function oneLine(text: string): string {
  return text.replace(ANY_CONTROL_CHARACTER, ' ').trim();
}
