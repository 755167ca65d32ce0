// The grammar of `/voice`. One table routes the commands and generates their help, so the two cannot drift.
import type { Role } from '../ops/types.js';
import { CONTROL_CHARACTERS, controlCharacterProblem } from '../provider/schemas.js';
import { MAX_RECENT as AUDIT_MAX } from '../store/audit.js';
import { code } from './mrkdwn.js';

export type Command =
  | { name: 'help' }
  | { name: 'agents.list' }
  | { name: 'agents.create'; agentName?: string; language?: string }
  | { name: 'agents.delete'; agentId: string }
  | { name: 'numbers.list' }
  | { name: 'numbers.search'; region?: string }
  | { name: 'numbers.buy'; number: string }
  | { name: 'numbers.release'; target: string }
  | { name: 'map'; number?: string; agentId?: string }
  | { name: 'audit'; limit: number };

/** `error` is mrkdwn, any echo of the input in it escaped. */
export type Parsed = { ok: true; command: Command } | { ok: false; error: string };

export interface CommandSpec {
  words: string[];
  args: string;
  summary: string;
  role: Role;
  /** `rest` is the text after the command words as typed, for checks the split into words would hide. */
  parse: (args: string[], rest: string) => Parsed;
}

const AUDIT_DEFAULT = 20;
/** Characters of an unknown command word echoed back. */
const ECHO_MAX = 60;

const ok = (command: Command): Parsed => ({ ok: true, command });
const error = (message: string): Parsed => ({ ok: false, error: message });

/** `+1 (415) 555-0123` → `+14155550123`: people paste numbers the way they read them. */
export function compactNumber(words: string[]): string {
  return words.join('').replace(/[\s().-]/g, '');
}

/** `en-us`, `en_US` → `en-US`. Anything else is left for validation to explain. */
export function normalizeLocale(value: string): string {
  const match = /^([A-Za-z]{2,3})[-_]([A-Za-z]{2})$/.exec(value);
  return match?.[1] && match[2] ? `${match[1].toLowerCase()}-${match[2].toUpperCase()}` : value;
}

const LOCALE_SHAPE = /^[A-Za-z]{2,3}[-_][A-Za-z]{2}$/;

export const COMMANDS: CommandSpec[] = [
  {
    words: ['help'],
    args: '',
    summary: 'Show this help',
    role: 'viewer',
    parse: () => ok({ name: 'help' }),
  },
  {
    words: ['agents'],
    args: '',
    summary: 'List AI agents with their status and routed numbers',
    role: 'viewer',
    parse: (args) => (args.length ? error('`agents` takes no arguments.') : ok({ name: 'agents.list' })),
  },
  {
    words: ['agents', 'create'],
    args: '[NAME LANGUAGE]',
    summary: 'Create an AI agent (opens a form when details are missing)',
    role: 'operator',
    parse: (args, rest) => {
      // Checked on the text as typed: split into words, a line break in the name would pass for a space.
      const problem = controlCharacterProblem(rest.trim());
      if (problem) return error(`The agent name ${problem}.`);
      const last = args.at(-1);
      if (args.length >= 2 && last && LOCALE_SHAPE.test(last)) {
        return ok({ name: 'agents.create', agentName: args.slice(0, -1).join(' '), language: normalizeLocale(last) });
      }
      return ok({ name: 'agents.create', agentName: args.length ? args.join(' ') : undefined });
    },
  },
  {
    words: ['agents', 'delete'],
    args: 'AGENT_ID',
    summary: 'Delete an AI agent, after confirmation',
    role: 'admin',
    parse: (args) =>
      args.length === 1 && args[0]
        ? ok({ name: 'agents.delete', agentId: args[0] })
        : error('Give exactly one agent id: `/voice agents delete AGENT_ID`.'),
  },
  {
    words: ['numbers'],
    args: '',
    summary: 'List purchased numbers with their status and routed agent',
    role: 'viewer',
    parse: (args) => (args.length ? error('`numbers` takes no arguments.') : ok({ name: 'numbers.list' })),
  },
  {
    words: ['numbers', 'search'],
    args: '[REGION]',
    summary: 'Search available numbers by region, e.g. US (opens a picker when missing)',
    role: 'viewer',
    parse: (args) => {
      if (args.length > 1) return error('Give one two-letter region code: `/voice numbers search US`.');
      return ok({ name: 'numbers.search', region: args[0]?.toUpperCase() });
    },
  },
  {
    words: ['numbers', 'buy'],
    args: 'NUMBER',
    summary: 'Buy a number, after confirmation (it spends money)',
    role: 'operator',
    parse: (args) =>
      args.length
        ? ok({ name: 'numbers.buy', number: compactNumber(args) })
        : error('Give the number to buy: `/voice numbers buy +14155550123`.'),
  },
  {
    words: ['numbers', 'release'],
    args: 'NUMBER_OR_ID',
    summary: 'Release a number, after confirmation',
    role: 'admin',
    parse: (args) => {
      if (!args.length) return error('Give the number or its id: `/voice numbers release +14155550123`.');
      const compact = compactNumber(args);
      return ok({ name: 'numbers.release', target: compact.startsWith('+') ? compact : args.join(' ') });
    },
  },
  {
    words: ['map'],
    args: '[NUMBER AGENT_ID]',
    summary: 'Route a purchased number to an agent (opens a form when details are missing)',
    role: 'operator',
    parse: (args) => {
      if (args.length === 0) return ok({ name: 'map' });
      if (args.length === 1) return ok({ name: 'map', number: compactNumber(args) });
      return ok({ name: 'map', number: compactNumber(args.slice(0, -1)), agentId: args.at(-1) });
    },
  },
  {
    words: ['audit'],
    args: '[N]',
    summary: `Show the last N audit events (default ${AUDIT_DEFAULT}, at most ${AUDIT_MAX})`,
    role: 'viewer',
    parse: (args) => {
      if (args.length === 0) return ok({ name: 'audit', limit: AUDIT_DEFAULT });
      const limit = Number(args[0]);
      if (args.length > 1 || !Number.isInteger(limit) || limit < 1 || limit > AUDIT_MAX) {
        return error(`Give a whole number from 1 to ${AUDIT_MAX}: \`/voice audit 50\`.`);
      }
      return ok({ name: 'audit', limit });
    },
  },
];

/**
 * Slack sends `&`, `<` and `>` escaped, and may wrap phone numbers and links as `<tel:+1…|+1…>`;
 * both are undone so that people can paste what they see.
 */
function unescapeSlackText(text: string): string {
  return text
    .replace(/<(?:tel|mailto):([^|>]*)(?:\|[^>]*)?>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

interface Token {
  text: string;
  /** Where the token ends in the unescaped text. */
  end: number;
}

const ANY_CONTROL_CHARACTER = new RegExp(CONTROL_CHARACTERS.source, 'gu');

/**
 * Splits on white space, keeping "quoted phrases" (straight or curly quotes) together. Control characters separate
 * words as white space does, so that no word (echoed in help, say) is made of them.
 */
function tokensOf(unescaped: string): Token[] {
  const tokens: Token[] = [];
  for (const match of unescaped.replace(ANY_CONTROL_CHARACTER, ' ').matchAll(/["“”]([^"“”]*)["“”]?|(\S+)/g)) {
    const token = (match[1] ?? match[2])?.trim();
    if (token) tokens.push({ text: token, end: match.index + match[0].length });
  }
  return tokens;
}

export function tokenize(text: string): string[] {
  return tokensOf(unescapeSlackText(text)).map((token) => token.text);
}

export function parseCommand(text: string): Parsed {
  const unescaped = unescapeSlackText(text);
  const tokens = tokensOf(unescaped);
  if (tokens.length === 0) return ok({ name: 'help' });
  const lowered = tokens.map((token) => token.text.toLowerCase());
  // The longest matching words win: `agents create` before `agents`.
  const spec = [...COMMANDS]
    .sort((a, b) => b.words.length - a.words.length)
    .find((candidate) => candidate.words.every((word, index) => lowered[index] === word));
  if (!spec) return error(`I don't know ${code(tokens[0]?.text ?? '', ECHO_MAX)}.`);
  const rest = unescaped.slice(tokens[spec.words.length - 1]?.end ?? 0);
  return spec.parse(
    tokens.slice(spec.words.length).map((token) => token.text),
    rest,
  );
}
