// The grammar of `/voice`. One table routes the commands and generates their help, so the two cannot drift.
import {
  declaredCommands,
  KIND,
  type KindForm,
  MAX_BATCH_ITEMS,
  NO_UNROUTE,
  type NumberFilter,
  type PendingChange,
  type Region,
  type Role,
  regionNamed,
  type SubscriptionFilter,
  type TagFilter,
} from '../ops/api.js';
import { CONTROL_CHARACTERS, controlCharacterProblem } from '../provider/schemas.js';
import { labelSchema, SUBSCRIBABLE, teamWritten } from '../settings-schema.js';
import type { AuditAction } from '../store/audit.js';
import type { AuditFilter } from '../store/audit-changes.js';
import { languageNamed } from './language-named.js';
import { code } from './mrkdwn.js';
import { readTagWord, TAG_FORMS, TAG_WORD } from './tag-words.js';
import { meant } from './typos.js';

/** An agent as typed, its id or its whole name; the operations find which agent it is. */
export type AgentReference = string;

export type Command =
  | { name: 'help' }
  /** Agents whose name contains `text`, and whose labels and owner `tags` picks. */
  | { name: 'agents.list'; text?: string; tags?: TagFilter }
  | { name: 'agents.create'; agentName?: string; language?: string }
  | { name: 'agents.delete'; agent: AgentReference }
  | { name: 'numbers.list'; filter: NumberFilter }
  | { name: 'numbers.show'; number: string }
  | { name: 'numbers.search'; region?: string; digits?: string }
  | { name: 'numbers.buy'; number: string }
  | { name: 'numbers.release'; target: string }
  | { name: 'map'; number?: string; agent?: AgentReference }
  /** Bulk changes, each a plan first: numbers a filter picks routed to one agent, or released; COUNT numbers bought. */
  | { name: 'map.bulk'; filter: NumberFilter; agent: AgentReference }
  | { name: 'numbers.buy.bulk'; region: string; count: number; digits?: string }
  | { name: 'numbers.release.bulk'; filter: NumberFilter }
  /** Labels added and removed, or an owner given (null: nobody), on every number a filter picks. */
  | { name: 'labels.bulk'; filter: NumberFilter; add: string[]; remove: string[]; owner?: string | null }
  | { name: 'audit'; filter: AuditFilter }
  /** What happened to one number (`+…`) or agent (an agent reference), change by change. */
  | { name: 'history'; subject: string }
  /** Desired routing as text (a form), and the routing in the same format: today's, or as of a moment typed. */
  | { name: 'plan' }
  | { name: 'export'; asOf?: string }
  /** Per number, what changed in the routing since a moment typed. */
  | { name: 'changes'; since: string }
  /** Removing a route, which the provider cannot do: answered with what it can. */
  | { name: 'unroute'; number?: string }
  /** The settings in force, and an admin's forms to change them. */
  | { name: 'settings' }
  /** Who holds which role, or one person's role and what grants it: by user id, or by name as typed after `@`. */
  | { name: 'access'; person?: { id: string } | { name: string } }
  /**
   * Labels added and removed on one number or agent, or its owner set: a user group by id, by `@handle` (found in
   * Slack), or null for nobody.
   */
  | {
      name: 'labels';
      target: LabelTarget;
      add: string[];
      remove: string[];
      owner?: TeamTyped | null;
    }
  /** A kind's own command: the change it asks for, described in full as its kind's record. */
  | { name: 'change'; change: PendingChange }
  /** A kind's command typed alone, when the kind has a form: the form opens. */
  | { name: 'change.form'; kind: string; form: KindForm; instead: string }
  /** The channel where it is typed subscribed to what a filter picks, or no longer; every subscription listed. */
  | { name: 'subscribe'; filter: SubscriptionFilter }
  | { name: 'unsubscribe' }
  | { name: 'subscriptions' };

/** What `/voice label` and `/voice own` change: a number, or an agent as typed. */
export type LabelTarget = { number: string } | { agent: AgentReference };
/** A team as typed: its user group's id, or its handle without the @. */
export type TeamTyped = { id: string } | { handle: string };

/** `error` is mrkdwn, its echoes escaped; `attempted` lets a refused command be audited like any other attempt. */
export type Parsed =
  | { ok: true; command: Command; about?: CommandSpec }
  | {
      ok: false;
      error: string;
      attempted?: AuditAction;
      /** The command the error is about, whose one line of help is shown with it. */
      about?: CommandSpec;
    };

export interface CommandSpec {
  words: string[];
  args: string;
  summary: string;
  role: Role;
  /** A line shown under the command in help. */
  note?: string;
  /** The change the command asks for, if it asks for one. */
  changes?: AuditAction;
  /** `rest` is the text after the command words as typed, for checks the split into words would hide. */
  parse: (args: string[], rest: string) => Parsed;
}

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
/** Agent names are at most 100 characters, so a longer search cannot match. */
const AGENT_TEXT_MAX = 100;
/** Ids travel in Slack buttons, whose values Slack caps; the provider schemas refuse longer ones too. */
const ID_MAX = 150;
const DIGITS_MAX = 15;
const USER_ID = /^[UW][A-Z0-9]{2,}$/;
/** Slack's display and real names are at most 80 characters. */
const AUDIT_NAME_MAX = 80;

/** A region typed by name from `args[start]` on, the longest name first (`united kingdom 20` → GB, 2 words). */
function regionNameAt(args: string[], start: number): { region: Region; words: number } | undefined {
  for (let end = args.length; end > start; end--) {
    const region = regionNamed(args.slice(start, end).join(' '));
    if (region) return { region, words: end - start };
  }
  return undefined;
}

/** "Did you mean DE?": a region is given by its two-letter code, and the command to type with it. */
function regionCodeHint(region: Region, command: string): Parsed {
  return error(`Did you mean ${code(region.code)} (${region.name})? Regions are two-letter codes: ${code(command)}.`);
}

/** A number typed without its country code (`030 23125001`): the answer says what it needs rather than guess. */
function nationalNumberProblem(number: string): Parsed | undefined {
  if (!/^\d+$/.test(number)) return undefined;
  return error(
    `${code(number, ECHO_MAX)} is not in international form: a number starts with + and its country code, then ` +
      'the number without its national leading 0 (030 23125001 in Germany is +49 30 23125001).',
  );
}

/** The words of `/voice numbers`' filters, for "did you mean". */
const FILTER_WORDS = ['routed', 'unrouted', 'agent', 'unowned'];

const NUMBERS_FORMS =
  '`unrouted`, `routed`, a region such as `US`, `agent AGENT` (an id, or a name in quotes), digits such as `415`, ' +
  `${TAG_FORMS} or \`+NUMBER\``;

/** Digits to find anywhere in a number (`(415)`, `555-0100`); a leading + anchors them where the number begins. */
function isDigits(word: string, first: boolean): boolean {
  return /\d/.test(word) && (first ? /^\+?[\d().-]+$/ : /^[\d().-]+$/).test(word);
}

/** The filters of `/voice numbers`, which combine (`unrouted US 415`); `after` names the words they follow. */
export function parseNumberFilter(args: string[], after: string): { ok: true; filter: NumberFilter } | Parsed {
  const filter: NumberFilter = {};
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    const lowered = word.toLowerCase();
    const tagged = readTagWord(args, index, filter);
    if (typeof tagged === 'object') return error(tagged.error);
    if (tagged > 0) index += tagged - 1;
    else if (lowered === 'routed' || lowered === 'unrouted') filter.routed = lowered === 'routed';
    else if (lowered === 'agent') {
      const agent = args[++index];
      if (!agent)
        return error('Give the agent after `agent`, its id or its name: `/voice numbers agent "Front desk"`.');
      const long = tooLong(agent);
      if (long) return long;
      filter.agentId = agent;
    } else if (/^[A-Za-z]{2}$/.test(word)) {
      if (filter.region && filter.region !== word.toUpperCase()) {
        return error(`Give one region: ${code(filter.region)} and ${code(word.toUpperCase())} cannot both hold.`);
      }
      filter.region = word.toUpperCase();
    } else if (isDigits(word, filter.digits === undefined))
      filter.digits = `${filter.digits ?? ''}${compactNumber([word])}`;
    else {
      const named = regionNameAt(args, index);
      if (named) return regionCodeHint(named.region, `/voice numbers ${named.region.code}`);
      const filterWord = meant(word, FILTER_WORDS);
      const afterAgent = args[index - 2]?.toLowerCase() === 'agent';
      const hint = filterWord
        ? ` Did you mean ${code(filterWord)}?`
        : afterAgent
          ? ' When an agent’s name has spaces, put it in quotes: `agent "Front desk"`.'
          : '';
      return error(`I don't understand ${code(word, ECHO_MAX)} after ${after}: give ${NUMBERS_FORMS}.${hint}`);
    }
  }
  if (filter.digits && filter.digits.length > DIGITS_MAX) {
    return error(`A number has at most ${DIGITS_MAX} digits: give fewer, such as an area code.`);
  }
  return { ok: true, filter };
}

/** `/voice numbers` and its filters, or one number. */
function parseNumbers(args: string[]): Parsed {
  // `+49` alone is a country code to list by, not a number to show.
  if (args[0]?.startsWith('+') && !COUNTRY_CODE.test(compactNumber(args))) {
    return ok({ name: 'numbers.show', number: compactNumber(args) });
  }
  const parsed = parseNumberFilter(args, '`numbers`');
  return 'filter' in parsed ? ok({ name: 'numbers.list', filter: parsed.filter }) : parsed;
}

const REGION_CODE = /^[A-Za-z]{2}$/;
const COUNTRY_CODE = /^\+\d{1,3}$/;
/** The words that start a filter rather than name a number (a provider id may be anything else). */
const FILTER_START = /^(unrouted|routed|agent)$/i;
const startsFilter = (word: string) => FILTER_START.test(word) || TAG_WORD.test(word) || REGION_CODE.test(word);

/** `/voice numbers buy REGION COUNT [DIGITS]`: COUNT voice numbers for sale in the region, as one plan. */
function parseBulkBuy(args: string[]): Parsed {
  const [region = '', countText = '', ...rest] = args;
  const count = Number(countText);
  if (!/^\d+$/.test(countText) || count < 1 || count > MAX_BATCH_ITEMS) {
    return error(`Give how many to buy after the region, 1 to ${MAX_BATCH_ITEMS}: \`/voice numbers buy DE 20\`.`);
  }
  const digits = compactNumber(rest);
  if (rest.length && !/^\d{1,15}$/.test(digits)) {
    return error('Give digits after the count, if you like: `/voice numbers buy US 5 415`.');
  }
  return ok({ name: 'numbers.buy.bulk', region: region.toUpperCase(), count, ...(digits ? { digits } : {}) });
}

/** An agent reference longer than any id or name. */
function tooLong(agent: AgentReference): Parsed | undefined {
  return agent.length > ID_MAX ? error(`Agent ids and names are at most ${ID_MAX} characters.`) : undefined;
}

/** `/voice map FILTER to AGENT`: the numbers a filter picks, all routed to one agent, the rest of the text naming it. */
function parseBulkMap(args: string[], to: number): Parsed {
  const agent = args.slice(to + 1).join(' ');
  if (!agent) return error('Give the agent after `to`, its id or its name: `/voice map unrouted DE to "Front desk"`.');
  const long = tooLong(agent);
  if (long) return long;
  const words = args.slice(0, to);
  if (!words.length) return error('Say which numbers before `to`: `/voice map unrouted DE to "Front desk"`.');
  const parsed = parseNumberFilter(words, '`map`');
  return 'filter' in parsed ? ok({ name: 'map.bulk', filter: parsed.filter, agent }) : parsed;
}

/** `+label` or `-label` after a filter; `+415` is the filter's digits. */
const LABEL_WORD = /^[+-](?![\d().-]+$)/;

/** `/voice label numbers FILTER +LABEL -LABEL`: the labels are the last words, each with its + or -. */
function parseBulkLabels(args: string[]): Parsed {
  const first = args.findLastIndex((word) => !LABEL_WORD.test(word)) + 1;
  const labels = args.slice(first);
  if (!labels.length) {
    return error(
      'Give the labels after the filter, each with + to add it or - to remove it: `/voice label numbers DE +team:sales -old`.',
    );
  }
  const add: string[] = [];
  const remove: string[] = [];
  for (const word of labels) {
    const label = word.slice(1).toLowerCase();
    const problem = labelProblem(label);
    if (problem) return error(problem);
    (word.startsWith('+') ? add : remove).push(label);
  }
  const parsed = parseNumberFilter(args.slice(0, first), '`label numbers`');
  return 'filter' in parsed ? ok({ name: 'labels.bulk', filter: parsed.filter, add, remove }) : parsed;
}

/** `/voice own numbers FILTER @team|nobody`: the team is the last word, mentioned or by its id. */
function parseBulkOwner(args: string[]): Parsed {
  const last = args.at(-1) ?? '';
  const owner = last.toLowerCase() === 'nobody' ? null : teamWritten(last);
  if (owner === undefined) {
    return error(
      'Give the team last, as a user group (`@sales`) or its id (`S0123ABC`), or `nobody`: `/voice own numbers DE @sales`.',
    );
  }
  const parsed = parseNumberFilter(args.slice(0, -1), '`own numbers`');
  return 'filter' in parsed ? ok({ name: 'labels.bulk', filter: parsed.filter, add: [], remove: [], owner }) : parsed;
}

/** How many words a number typed before an agent takes: those written as numbers are, the agent at least the last. */
const NUMBER_WORD = /^\+?[\d().-]+$/;
function numberWords(args: string[]): number {
  const written = args.findIndex((word) => !NUMBER_WORD.test(word));
  return Math.min(Math.max(written < 0 ? args.length : written, 1), args.length - 1);
}

/** `/voice map NUMBER AGENT`: the number as people write it, then the agent, its id or its name (the rest). */
function parseMap(args: string[]): Parsed {
  const words = args.length === 1 ? 1 : numberWords(args);
  const number = compactNumber(args.slice(0, words));
  const national = nationalNumberProblem(number);
  if (national) return national;
  const agent = args.slice(words).join(' ');
  if (!agent) return ok({ name: 'map', number });
  return tooLong(agent) ?? ok({ name: 'map', number, agent });
}

/**
 * A person in `/voice audit`: the manifest turns `should_escape` off, so a mention arrives as typed (`@Vera Viewer`,
 * `@vera`, `@U123`), and a mention Slack escaped anyway (`<@U123|vera>`) may carry a name with spaces.
 */
function parseAuditPerson(text: string): Parsed | undefined {
  const mention = /^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$/.exec(text);
  if (mention?.[1]) return ok({ name: 'audit', filter: { actorId: mention[1] } });
  if (!text.startsWith('@') || text.length === 1) return undefined;
  const person = text.slice(1);
  if (USER_ID.test(person)) return ok({ name: 'audit', filter: { actorId: person } });
  if (person.length > AUDIT_NAME_MAX) return error(`Names are at most ${AUDIT_NAME_MAX} characters.`);
  return ok({ name: 'audit', filter: { actorName: person } });
}

/** `/voice access` and the one person it may ask about, as `/voice audit` reads a person (see parseAuditPerson). */
function parseAccess(args: string[]): Parsed {
  if (args.length === 0) return ok({ name: 'access' });
  const person = parseAuditPerson(args.join(' '));
  if (person?.ok && person.command.name === 'audit') {
    const { actorId, actorName } = person.command.filter;
    if (actorId) return ok({ name: 'access', person: { id: actorId } });
    if (actorName) return ok({ name: 'access', person: { name: actorName } });
  }
  if (person && !person.ok) return person;
  if (args.length === 1 && args[0] && USER_ID.test(args[0])) return ok({ name: 'access', person: { id: args[0] } });
  return error('Name one person: `/voice access @person` or `/voice access USER_ID`.');
}

/** `/voice audit` and its one filter: a user, a number, an agent (its id or its name), or `failed`. */
function parseAudit(args: string[]): Parsed {
  if (args.length === 0) return ok({ name: 'audit', filter: {} });
  const person = parseAuditPerson(args.join(' '));
  if (person) return person;
  const [word = ''] = args;
  if (args.length > 1 && !word.startsWith('+')) {
    // More words after a filter of its own are a second filter; otherwise they are an agent's name.
    if (/^(failed|settings)$/i.test(word)) {
      return error('Give one filter: `@user`, a user id, a number, an agent (its id or its name) or `failed`.');
    }
    return tooLong(args.join(' ')) ?? auditOfAgent(args.join(' '));
  }
  if (word.toLowerCase() === 'failed') return ok({ name: 'audit', filter: { failed: true } });
  if (word.toLowerCase() === 'settings') return ok({ name: 'audit', filter: { target: 'settings' } });
  if (USER_ID.test(word)) return ok({ name: 'audit', filter: { actorId: word } });
  if (word.startsWith('+')) return ok({ name: 'audit', filter: { target: compactNumber(args) } });
  if (/^\d+$/.test(word)) return error('`audit` takes no count: it pages by itself (Next, Previous).');
  return tooLong(word) ?? auditOfAgent(word);
}

const auditOfAgent = (agent: AgentReference): Parsed => ok({ name: 'audit', filter: { agentId: agent } });

const TAGS_NOTE = `Filter by labels and owner too: ${TAG_FORMS}`;

/** `/voice agents`: the tag words anywhere, the other words the text a name contains (or an agent's id). */
function parseAgents(args: string[]): Parsed {
  const tags: TagFilter = {};
  const words: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const tagged = readTagWord(args, index, tags);
    if (typeof tagged === 'object') return error(tagged.error);
    if (tagged > 0) index += tagged - 1;
    else words.push(args[index] ?? '');
  }
  const text = words.join(' ');
  if (text.length > AGENT_TEXT_MAX) return error(`Agent names are at most ${AGENT_TEXT_MAX} characters.`);
  return ok({ name: 'agents.list', ...(text ? { text } : {}), ...(Object.keys(tags).length ? { tags } : {}) });
}

/** `as of TIME` after `export`: the time as typed, which the operation reads (it knows the app's clock). */
function parseExport(args: string[]): Parsed {
  if (!args.length) return ok({ name: 'export' });
  const [as = '', of = '', ...time] = args;
  if (as.toLowerCase() !== 'as' || of.toLowerCase() !== 'of' || !time.length) {
    return error('`export` takes nothing more, or `as of TIME`: `/voice export as of yesterday 09:00`.');
  }
  return ok({ name: 'export', asOf: time.join(' ') });
}

function parseChanges(args: string[]): Parsed {
  const [since = '', ...time] = args;
  if (since.toLowerCase() !== 'since' || !time.length) {
    return error('Give the time after `since`: `/voice changes since yesterday 09:00`.');
  }
  return ok({ name: 'changes', since: time.join(' ') });
}

/** What is wrong with a label as typed, lowercased (mrkdwn), if anything. */
function labelProblem(label: string): string | undefined {
  const checked = labelSchema.safeParse(label);
  return checked.success
    ? undefined
    : `${code(label, ECHO_MAX)} ${checked.error.issues[0]?.message ?? 'is not a label'}.`;
}

const TARGET_HELP = 'a number (`+14155550123`) or an agent (`agent "Front desk"`, or its id)';

/**
 * The number or agent a label command starts with, and the words after it. A number typed in groups keeps its digit
 * groups; an agent is one word (a name with spaces in quotes), or for `own`, every word before the owner.
 */
function labelTarget(
  args: string[],
  agentWords: (rest: string[]) => number,
): Parsed | { target: LabelTarget; rest: string[] } {
  const [first = '', ...after] = args;
  if (first.toLowerCase() === 'agent') {
    const words = agentWords(after);
    const agent = after.slice(0, words).join(' ');
    if (!agent) return error(`Give the agent after \`agent\`, its id or its name: ${TARGET_HELP}.`);
    return tooLong(agent) ?? { target: { agent }, rest: after.slice(words) };
  }
  if (!first.startsWith('+')) return error(`Say what to change first: ${TARGET_HELP}.`);
  const groups = after.findIndex((word) => !/^[\d().]+$/.test(word));
  const words = groups < 0 ? after.length : groups;
  return { target: { number: compactNumber([first, ...after.slice(0, words)]) }, rest: after.slice(words) };
}

/** `/voice label TARGET +label -label label…`: a bare label is added; labels are kept lowercased. */
function parseLabel(args: string[]): Parsed {
  const found = labelTarget(args, (rest) => Math.min(rest.length, 1));
  if ('ok' in found) return found;
  if (!found.rest.length) return error('Give labels to add (`+vip`, or `vip`) or remove (`-vip`).');
  const add: string[] = [];
  const remove: string[] = [];
  for (const word of found.rest) {
    const removing = word.startsWith('-');
    const label = (removing || word.startsWith('+') ? word.slice(1) : word).toLowerCase();
    const problem = labelProblem(label);
    if (problem) return error(problem);
    (removing ? remove : add).push(label);
  }
  return ok({ name: 'labels', target: found.target, add, remove });
}

/** A team as typed: its mention (`<!subteam^S…|@sales>`), its id, its `@handle`, or `nobody`. */
function parseOwner(word: string): Parsed | { owner: TeamTyped | null } {
  if (word.toLowerCase() === 'nobody') return { owner: null };
  const id = teamWritten(word);
  if (id !== undefined) return { owner: { id } };
  if (/^@[\w.-]{1,80}$/.test(word)) return { owner: { handle: word.slice(1) } };
  return error(
    `${code(word, ECHO_MAX)} is no team: mention its user group (\`@sales\`), give its id (S…), or say \`nobody\`.`,
  );
}

/** `/voice own TARGET @team` or `nobody`. */
function parseOwn(args: string[]): Parsed {
  const found = labelTarget(args, (rest) => Math.max(rest.length - 1, 0));
  if ('ok' in found) return found;
  const [word, ...more] = found.rest;
  if (word === undefined || more.length) return error('Give one team after it, `@sales`, or `nobody`.');
  const owner = parseOwner(word);
  if ('ok' in owner) return owner;
  return ok({ name: 'labels', target: found.target, add: [], remove: [], owner: owner.owner });
}

const SUBSCRIBE_FORMS =
  `kinds of change (${SUBSCRIBABLE.map((kind) => code(kind)).join(', ')}), \`+label:LABEL\`, \`-label:LABEL\`, ` +
  '`owner:@team` or `quiet`';

/** `/voice subscribe [KIND…] [+label:X] [-label:Y] [owner:@team] [quiet]`: each word adds to the filter. */
function parseSubscribe(args: string[]): Parsed {
  const filter: SubscriptionFilter = { kinds: [], labels: [], without: [], owners: [], quiet: false };
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    const lowered = word.toLowerCase();
    const label = /^([+-])label:(.*)$/i.exec(word);
    if ((SUBSCRIBABLE as readonly string[]).includes(lowered)) {
      const kind = lowered as SubscriptionFilter['kinds'][number];
      if (!filter.kinds.includes(kind)) filter.kinds.push(kind);
    } else if (lowered === 'quiet') filter.quiet = true;
    else if (label) {
      const typed = label[2]?.toLowerCase() ?? '';
      const problem = labelProblem(typed);
      if (problem) return error(problem);
      (label[1] === '+' ? filter.labels : filter.without).push(typed);
    } else if (lowered.startsWith('owner:')) {
      // Slack may send the mention apart from `owner:` when it was picked from its menu.
      const typed = word.slice('owner:'.length) || args[++index] || '';
      const id = teamWritten(typed);
      if (!id)
        return error(
          `Give a user group after \`owner:\`, picked from Slack's menu or by its id (\`owner:S0123ABC\`): ` +
            `${code(typed, ECHO_MAX)} is not one.`,
        );
      if (!filter.owners.includes(id)) filter.owners.push(id);
    } else return error(`I don't understand ${code(word, ECHO_MAX)} after \`subscribe\`: give ${SUBSCRIBE_FORMS}.`);
  }
  const both = filter.labels.find((label) => filter.without.includes(label));
  if (both) return error(`${code(both)} is both required and excluded: say which.`);
  return ok({ name: 'subscribe', filter });
}

const nothingMore = (command: 'unsubscribe' | 'subscriptions') => (args: string[]) =>
  args.length ? error(`\`${command}\` takes nothing more.`) : ok({ name: command });

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
    args: '[TEXT|AGENT_ID]',
    summary: 'List AI agents with their status and routed numbers (names containing TEXT), or show one agent',
    note: TAGS_NOTE,
    role: 'viewer',
    parse: parseAgents,
  },
  {
    words: ['agents', 'create'],
    args: '[NAME LANGUAGE]',
    summary: 'Create an AI agent (opens a form when details are missing)',
    role: 'operator',
    changes: KIND.createAgent,
    parse: (args, rest) => {
      // Checked on the text as typed: split into words, a line break in the name would pass for a space.
      const problem = controlCharacterProblem(rest.trim());
      if (problem) return error(`The agent name ${problem}.`);
      const last = args.at(-1);
      if (args.length >= 2 && last && LOCALE_SHAPE.test(last)) {
        return ok({ name: 'agents.create', agentName: args.slice(0, -1).join(' '), language: normalizeLocale(last) });
      }
      const named = languageNamed(args);
      if (named) return error(named);
      return ok({ name: 'agents.create', agentName: args.length ? args.join(' ') : undefined });
    },
  },
  {
    words: ['agents', 'delete'],
    args: 'AGENT',
    summary: 'Delete an AI agent, named by its id or its name, after confirmation',
    role: 'admin',
    changes: KIND.deleteAgent,
    parse: (args) => {
      const agent = args.join(' ');
      if (!agent) return error('Give the agent, its id or its name: `/voice agents delete "Front desk"`.');
      return tooLong(agent) ?? ok({ name: 'agents.delete', agent });
    },
  },
  {
    words: ['numbers'],
    args: '[unrouted|routed|REGION|agent AGENT|DIGITS|+NUMBER]',
    summary: 'List purchased numbers with their route, filtered (filters combine), or show one number',
    note: `${TAGS_NOTE}, as \`map\` and \`numbers release\` do`,
    role: 'viewer',
    parse: parseNumbers,
  },
  {
    words: ['numbers', 'search'],
    args: '[REGION [DIGITS]]',
    summary: 'Search available numbers by region, e.g. US, and digits they contain, e.g. 415 (a picker when missing)',
    role: 'viewer',
    parse: (args) => {
      const [region, ...rest] = args;
      if (region === undefined) return ok({ name: 'numbers.search' });
      const named = region.length > 2 ? regionNameAt(args, 0) : undefined;
      if (named) {
        const digits = compactNumber(args.slice(named.words));
        return regionCodeHint(named.region, `/voice numbers search ${named.region.code}${digits ? ` ${digits}` : ''}`);
      }
      const digits = compactNumber(rest);
      if (rest.length && !/^\d{1,15}$/.test(digits)) {
        return error('Give one two-letter region code, then digits if you like: `/voice numbers search US 415`.');
      }
      return ok({ name: 'numbers.search', region: region.toUpperCase(), ...(digits ? { digits } : {}) });
    },
  },
  {
    words: ['numbers', 'buy'],
    args: 'NUMBER | REGION COUNT [DIGITS]',
    summary:
      'Buy a number, or COUNT voice numbers in a region (containing DIGITS), after one confirmation (it spends money)',
    role: 'operator',
    changes: KIND.buy,
    parse: (args) => {
      if (!args.length) return error('Give the number to buy: `/voice numbers buy +14155550123`.');
      if (REGION_CODE.test(args[0] ?? '')) return parseBulkBuy(args);
      const number = compactNumber(args);
      return nationalNumberProblem(number) ?? ok({ name: 'numbers.buy', number });
    },
  },
  {
    words: ['numbers', 'release'],
    args: 'NUMBER_OR_ID | FILTER',
    summary:
      'Release a number, or every number a filter picks (`unrouted`, `routed`, a region, `agent AGENT`, then ' +
      'digits), after confirmation; a filter asks you to type the count',
    role: 'admin',
    changes: KIND.release,
    parse: (args) => {
      if (!args.length) return error('Give the number or its id: `/voice numbers release +14155550123`.');
      if (startsFilter(args[0] ?? '')) {
        const parsed = parseNumberFilter(args, '`numbers release`');
        return 'filter' in parsed ? ok({ name: 'numbers.release.bulk', filter: parsed.filter }) : parsed;
      }
      const compact = compactNumber(args);
      // Provider ids may be digits, but not ones that start with a national trunk 0 or were typed in groups.
      const national = compact.startsWith('0') || args.length > 1 ? nationalNumberProblem(compact) : undefined;
      return national ?? ok({ name: 'numbers.release', target: compact.startsWith('+') ? compact : args.join(' ') });
    },
  },
  {
    words: ['map'],
    args: '[NUMBER AGENT | FILTER to AGENT]',
    summary:
      'Route a purchased number to an agent, named by its id or its name (opens a form when details are missing), ' +
      'or every number a filter picks (`unrouted DE`, `agent AGENT`, digits), after one confirmation of the whole plan',
    note: NO_UNROUTE,
    role: 'operator',
    changes: KIND.map,
    parse: (args) => {
      if (args.length === 0) return ok({ name: 'map' });
      const to = args.findIndex((word) => word.toLowerCase() === 'to');
      return to >= 0 ? parseBulkMap(args, to) : parseMap(args);
    },
  },
  {
    words: ['label', 'numbers'],
    args: 'FILTER +LABEL -LABEL',
    summary:
      'Add (+) and remove (-) labels on every number a filter picks (`unrouted`, a region, `agent AGENT`, digits), ' +
      'after one confirmation of the whole plan',
    role: 'operator',
    changes: KIND.label,
    parse: parseBulkLabels,
  },
  {
    words: ['own', 'numbers'],
    args: 'FILTER @TEAM|nobody',
    summary:
      'Give every number a filter picks to a team (a user group), or to nobody, after one confirmation of the plan',
    role: 'operator',
    changes: KIND.label,
    parse: parseBulkOwner,
  },
  {
    words: ['plan'],
    args: '',
    summary:
      'Paste or upload the routing you want, one `NUMBER AGENT_ID` a line: a plan of every route to add or move, ' +
      'applied after one confirmation',
    role: 'operator',
    changes: KIND.map,
    parse: (args) => (args.length ? error('`plan` takes nothing more: it opens a form.') : ok({ name: 'plan' })),
  },
  {
    words: ['export'],
    args: '[as of TIME]',
    summary:
      "Today's routing as text, one `NUMBER AGENT_ID` a line: the format a plan reads back; as of TIME, the routing " +
      'then, rebuilt from the verified audit log: planned, it routes back',
    role: 'viewer',
    parse: parseExport,
  },
  {
    words: ['changes'],
    args: 'since TIME',
    summary: 'Each number whose routing changed since TIME: from which agent to which, bought or released, and by whom',
    note:
      'TIME: `2026-11-27T09:00Z`, `2026-11-27`, `yesterday 09:00`, `10 min ago`, `this morning`, ' +
      '`last tuesday 9:00`…, read in your Slack time zone unless it names its offset (in UTC when Slack gives none)',
    role: 'viewer',
    parse: parseChanges,
  },
  {
    words: ['history'],
    args: 'NUMBER | AGENT',
    summary:
      'What happened to one number or agent (its id or its name): each change with who, when, how, and its audit id',
    role: 'viewer',
    parse: (args) => {
      if (args.length === 0) return error('`history` needs a number (`+4930…`) or an agent, its id or its name.');
      const subject = args[0]?.startsWith('+') ? compactNumber(args) : args.join(' ');
      // Agent ids may be digits; a number typed with its national trunk 0 is not an id.
      const national = subject.startsWith('0') ? nationalNumberProblem(subject) : undefined;
      return national ?? ok({ name: 'history', subject });
    },
  },
  {
    words: ['audit'],
    args: '[@user|USER_ID|NUMBER|AGENT|failed|settings]',
    summary: 'Show the audit log, one line per change, newest first, a page at a time; filter by who or what',
    role: 'viewer',
    parse: parseAudit,
  },
  {
    words: ['access'],
    args: '[@user|USER_ID]',
    summary: 'Who may do what: each role and who may approve, through which user groups; or one person and why',
    role: 'viewer',
    parse: parseAccess,
  },
  {
    words: ['label'],
    args: 'NUMBER|agent AGENT +LABEL -LABEL…',
    summary: 'Add labels to a number or an agent (`+vip`, or `vip`) and remove others (`-vip`), at once, with Undo',
    role: 'operator',
    changes: KIND.label,
    parse: parseLabel,
  },
  {
    words: ['own'],
    args: 'NUMBER|agent AGENT @TEAM|nobody',
    summary: 'Give a number or an agent to a team (a user group), whose members then change it, or to nobody',
    role: 'operator',
    changes: KIND.label,
    parse: parseOwn,
  },
  {
    words: ['settings'],
    args: '',
    summary: 'Roles, policies and channels in force, each group a form to change it (shown, confirmed, audited)',
    role: 'admin',
    changes: KIND.settings,
    parse: (args) =>
      args.length ? error('`settings` takes nothing more: it shows the forms.') : ok({ name: 'settings' }),
  },
  {
    words: ['subscribe'],
    args: '[KIND…] [+label:LABEL] [-label:LABEL] [owner:@team] [quiet]',
    summary:
      'Post in this channel the changes of these kinds (buy, release, route, agent, labels, settings, outside; ' +
      'none: all) to numbers and agents with these labels and owner; quiet: one digest a day',
    role: 'admin',
    changes: KIND.settings,
    parse: parseSubscribe,
  },
  {
    words: ['unsubscribe'],
    args: '',
    summary: 'Stop posting changes in this channel (its subscription), after confirmation',
    role: 'admin',
    changes: KIND.settings,
    parse: nothingMore('unsubscribe'),
  },
  {
    words: ['subscriptions'],
    args: '',
    summary: 'Every channel subscribed to changes, with its filter, each with Unsubscribe',
    role: 'admin',
    parse: nothingMore('subscriptions'),
  },
];

/** Every command: the app's own, then those the kinds of change declare, each asking for its kind's change. */
export const commands = (): CommandSpec[] => [
  ...COMMANDS,
  ...declaredCommands().map(({ parse, kind, form, ...spec }) => ({
    ...spec,
    // Typed words are matched lowercased, as the app's own are written.
    words: spec.words.map((word) => word.toLowerCase()),
    changes: kind,
    parse: (typed: string[]) => {
      const instead = `/voice ${spec.words.join(' ')} ${spec.args}`;
      if (typed.length === 0 && form) return ok({ name: 'change.form', kind, form, instead });
      const parsed = parse(typed);
      return 'error' in parsed ? error(parsed.error) : ok({ name: 'change', change: parsed.change });
    },
  })),
];

/** Slack escapes `&`, `<`, `>` and wraps numbers as `<tel:+1…|+1…>`: both undone, people paste what they see. */
function unescapeSlackText(text: string): string {
  return text
    .replace(/<(?:tel|mailto):([^|>]*)(?:\|[^>]*)?>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

interface Token {
  text: string;
  end: number;
  /** Typed in quotes: meant as written, never read as a typo. */
  quoted: boolean;
}

const ANY_CONTROL_CHARACTER = new RegExp(CONTROL_CHARACTERS.source, 'gu');

/** Keeps "quoted phrases" together; control characters separate words, so that no echoed word is made of them. */
function tokensOf(unescaped: string): Token[] {
  const tokens: Token[] = [];
  for (const match of unescaped.replace(ANY_CONTROL_CHARACTER, ' ').matchAll(/["“”]([^"“”]*)["“”]?|(\S+)/g)) {
    const token = (match[1] ?? match[2])?.trim();
    if (token) tokens.push({ text: token, end: match.index + match[0].length, quoted: match[1] !== undefined });
  }
  return tokens;
}

/** A form field's words, split as a command's are (quotes kept together, control characters as spaces). */
export const wordsOf = (typed: string): string[] => tokensOf(typed).map((token) => token.text);

export function tokenize(text: string): string[] {
  return tokensOf(unescapeSlackText(text)).map((token) => token.text);
}

/** Words people try for removing a route, alone or after `numbers`. */
const UNROUTE_WORDS = new Set(['unmap', 'unroute', 'remove']);

/** `/voice unmap +49…` or `/voice numbers unroute +49…`: the number, if one was given. */
function unrouteAsked(words: string[]): Parsed | undefined {
  const at = words[0]?.toLowerCase() === 'numbers' ? 1 : 0;
  if (!UNROUTE_WORDS.has(words[at]?.toLowerCase() ?? '')) return undefined;
  const rest = words.slice(at + 1);
  return ok(rest.length ? { name: 'unroute', number: compactNumber(rest) } : { name: 'unroute' });
}

export function parseCommand(text: string): Parsed {
  const unescaped = unescapeSlackText(text);
  const tokens = tokensOf(unescaped);
  if (tokens.length === 0) return ok({ name: 'help' });
  const unroute = unrouteAsked(tokens.map((token) => token.text));
  if (unroute) return unroute;
  const typo = typoIn(tokens);
  if (typo) return typo;
  const spec = specFor(tokens.map((token) => token.text));
  if (!spec) return error(`I don't know ${code(tokens[0]?.text ?? '', ECHO_MAX)}.`);
  const rest = unescaped.slice(tokens[spec.words.length - 1]?.end ?? 0);
  const parsed = spec.parse(
    tokens.slice(spec.words.length).map((token) => token.text),
    rest,
  );
  return parsed.ok
    ? { ...parsed, about: spec }
    : { ...parsed, about: spec, ...(spec.changes ? { attempted: spec.changes } : {}) };
}

/** The command these words run: the longest matching words win (`agents create` before `agents`). */
function specFor(words: string[]): CommandSpec | undefined {
  const lowered = words.map((word) => word.toLowerCase());
  return commands()
    .sort((a, b) => b.words.length - a.words.length)
    .find((candidate) => candidate.words.every((word, index) => lowered[index] === word));
}

/** A word a slip away from a command's (`serch`, `relase`), answered with the command meant; quoted words are not. */
function typoIn(tokens: Token[]): Parsed | undefined {
  const [first, second] = tokens;
  if (!first) return undefined;
  const typed = (words: string[], from: number) =>
    ['/voice', ...words, ...tokens.slice(from).map((token) => (token.quoted ? `"${token.text}"` : token.text))].join(
      ' ',
    );
  const firstWord = first.text.toLowerCase();
  const words = commands().map((spec) => spec.words);
  const firstWords = [...new Set(words.map(([first = '']) => first))];
  // The second words of two-word commands, with their first: `search` → `numbers`.
  const secondWords = new Map(words.flatMap(([first = '', second]) => (second ? [[second, first]] : [])));
  if (!firstWords.includes(firstWord)) {
    if (first.quoted) return undefined;
    const command = meant(firstWord, firstWords);
    if (command) return didYouMean(typed([command], 1), specFor([command]));
    // A subcommand without its command (`/voice search DE`), or a slip of one (`/voice serch DE`).
    const subcommand = secondWords.has(firstWord) ? firstWord : meant(firstWord, [...secondWords.keys()]);
    const of = subcommand && secondWords.get(subcommand);
    return of && subcommand ? didYouMean(typed([of, subcommand], 1), specFor([of, subcommand])) : undefined;
  }
  if (!second || second.quoted) return undefined;
  const subcommand = meant(
    second.text,
    [...secondWords].flatMap(([word, of]) => (of === firstWord ? [word] : [])),
  );
  if (!subcommand) return undefined;
  // `by` is a region (Belarus) too: a typo only when another region follows, which a filter cannot take.
  if (REGION_CODE.test(second.text) && !tokens.slice(2).some((token) => REGION_CODE.test(token.text))) return undefined;
  const quoteInstead =
    firstWord === 'agents' ? ` To find agents named ${code(second.text, ECHO_MAX)}, put it in quotes.` : '';
  return didYouMean(typed([firstWord, subcommand], 2), specFor([firstWord, subcommand]), quoteInstead);
}

function didYouMean(command: string, about: CommandSpec | undefined, more = ''): Parsed {
  const message = `Did you mean ${code(command, ECHO_MAX * 2)}? Nothing was listed or changed: copy it to run it.${more}`;
  return { ok: false, error: message, ...(about ? { about } : {}) };
}
