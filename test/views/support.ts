// Fixtures and JSON walkers for the view tests: they look at what Slack would receive, not at how it was built.
import type { AgentFilter, AgentSummary, AgentsPage } from '../../src/ops/agents.js';
import type { AuditChange, AuditPage } from '../../src/ops/audit.js';
import type { NumberFilter } from '../../src/ops/number-filter.js';
import type { NumberSummary, NumbersPage } from '../../src/ops/numbers.js';
import { pageOf } from '../../src/ops/pages.js';
import type { SearchPage } from '../../src/ops/search.js';
import type { AvailableNumber, CreatedAgent } from '../../src/provider/schemas.js';

/** Text that would ping the channel, mention a user and forge a link if a view let it through unescaped. */
export const HOSTILE = '<!channel> <@U123> <http://evil|click> & *bold*';
export const HOSTILE_ESCAPED = '&lt;!channel&gt; &lt;@U123&gt; &lt;http://evil|click&gt; &amp; \u2217bold\u2217';

export function agent(overrides: Partial<AgentSummary> = {}): AgentSummary {
  return { id: 'ag_1', name: 'Support bot', status: 'active', numbers: [], ...overrides };
}

export function purchased(overrides: Partial<NumberSummary> = {}): NumberSummary {
  return { id: 'pn_1', number: '+14155550100', status: 'active', ...overrides };
}

export function available(overrides: Partial<AvailableNumber> = {}): AvailableNumber {
  return { id: 'an_1', number: '+14155550123', region: 'US', capabilities: ['voice', 'sms'], ...overrides };
}

/** A page of search results; `next` is the provider cursor where the next page starts (none: the last page). */
export function page(data: AvailableNumber[], next: string | null = null, extra: Partial<SearchPage> = {}): SearchPage {
  return { data, next: next === null ? undefined : { cursor: next }, scanned: data.length, stopped: false, ...extra };
}

export function createdAgent(overrides: Partial<CreatedAgent> = {}): CreatedAgent {
  return { id: 'ag_9', name: 'Sales bot', status: 'active', agent_token: 'tok_SECRET_only_once', ...overrides };
}

/** Page `at` (of pages of `size`) of these agents, as listAgents makes it. */
export function agentsPage(all: AgentSummary[], at = 1, size = 25, filter: AgentFilter = {}): AgentsPage {
  return pageOf(all, { page: at, size }, filter);
}

/** Page `at` (of pages of `size`) of these numbers, as listNumbers makes it. */
export function numbersPage(all: NumberSummary[], at = 1, size = 20, filter: NumberFilter = {}): NumbersPage {
  return pageOf(all, { page: at, size }, filter);
}

export function auditChange(overrides: Partial<AuditChange> = {}): AuditChange {
  return {
    correlationId: 'c_1',
    at: '2025-03-01T12:34:56.789Z',
    actorId: 'U0ALICE',
    action: 'number.buy',
    target: '+14155550100',
    outcome: 'succeeded',
    notes: [],
    ...overrides,
  };
}

/** The first page of these changes, with nothing older. */
export function auditPageOf(items: AuditChange[], overrides: Partial<AuditPage> = {}): AuditPage {
  return { items, page: 1, pages: 1, total: items.length, atLeast: false, filter: {}, ...overrides };
}

export function many<T>(count: number, make: (index: number) => T): T[] {
  return Array.from({ length: count }, (_, index) => make(index));
}

type Json = unknown;

/** Every object anywhere in the value, depth first. */
export function objects(value: Json): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.flatMap(objects);
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  return [object, ...Object.values(object).flatMap(objects)];
}

/** Interactive elements with this action_id, anywhere in the value. */
export function elements(value: Json, actionId: string): Record<string, unknown>[] {
  return objects(value).filter((object) => object.action_id === actionId);
}

export function buttonLabel(element: Record<string, unknown>): string {
  return String((element.text as { text: string }).text);
}

/** Texts Slack parses as mrkdwn: mrkdwn text objects and a message's top-level fallback `text`. */
export function mrkdwnTexts(value: Json): string[] {
  const fallback = typeof value === 'object' && value !== null && 'text' in value && typeof value.text === 'string';
  const texts = objects(value)
    .filter((object) => object.type === 'mrkdwn' && typeof object.text === 'string')
    .map((object) => object.text as string);
  return fallback ? [(value as { text: string }).text, ...texts] : texts;
}

export function plainTexts(value: Json): string[] {
  return objects(value)
    .filter((object) => object.type === 'plain_text')
    .map((object) => object.text as string);
}

/** Every mrkdwn text joined: for "does the view say X" assertions. */
export function rendered(value: Json): string {
  return mrkdwnTexts(value).join('\n');
}

const OUR_DATE_TOKEN = /<!date\^\d+\^\{time\}\|[^<>]*>/g;

/**
 * Markup in mrkdwn that Slack would turn into a ping or a link: `<!…>` (but our own date token), `<@…>` (but the
 * allowed actor mentions), `<#…>`, `<http…>`, `<mailto:…>`. Returns the offending texts.
 */
export function unescapedMarkup(value: Json, allowedMentions: string[] = []): string[] {
  return mrkdwnTexts(value).filter((text) => {
    let rest = text.replace(OUR_DATE_TOKEN, '');
    for (const mention of allowedMentions) rest = rest.split(mention).join('');
    return /<[!@#]|<http|<mailto/i.test(rest);
  });
}

/**
 * Every string anywhere that carries the raw hostile text, with the key that holds it. Raw text is safe only
 * where Slack never parses it: plain_text objects (labels, options), element values, block ids and private_metadata.
 */
export function rawHostileKeys(value: Json): string[] {
  const found: string[] = [];
  for (const object of objects(value)) {
    for (const [key, field] of Object.entries(object)) {
      if (typeof field !== 'string' || !field.includes('<!channel>')) continue;
      const safe =
        (key === 'text' && object.type === 'plain_text') ||
        ['value', 'initial_value', 'private_metadata', 'block_id'].includes(key);
      if (!safe) found.push(`${String(object.type)}.${key}`);
    }
  }
  return found;
}

/** An option as Slack takes it: plain text of at most 75 characters, a value of at most 150. */
function asOption(object: Record<string, unknown>): { text: string; value: string } | undefined {
  const text = object.text as { type?: string; text?: unknown } | undefined;
  const isOption = typeof object.value === 'string' && text?.type === 'plain_text' && object.type === undefined;
  return isOption ? { text: String(text?.text), value: String(object.value) } : undefined;
}

/**
 * Slack's size limits that the views must keep, checked on the whole output: texts, options (wherever they are: a
 * select's options, option groups, an initial option, an options listener's answer), button values, metadata.
 */
export function limitViolations(value: Json): string[] {
  const problems: string[] = [];
  for (const object of objects(value)) {
    const text = (object.text as { text?: string } | undefined)?.text;
    if (object.type === 'button' && text && text.length > 75) problems.push(`button text ${text.length}`);
    if (object.type === 'button' && typeof object.value === 'string' && object.value.length > 2000) {
      problems.push(`button value ${object.value.length}`);
    }
    if (object.type === 'header' && text && text.length > 150) problems.push(`header text ${text.length}`);
    if (object.type === 'section' && text && text.length > 3000) problems.push(`section text ${text.length}`);
    if (object.type === 'section' && text !== undefined && text.length === 0) problems.push('empty section');
    if (object.type === 'context' && (object.elements as unknown[]).length > 10) problems.push('context elements');
    if (Array.isArray(object.options) && object.options.length > 100) problems.push(`${object.options.length} options`);
    const option = asOption(object);
    if (option && option.text.length > 75) problems.push(`option text ${option.text.length}`);
    if (option && option.value.length > 150) problems.push(`option value ${option.value.length}`);
    if (object.type === 'modal' || object.type === 'home') {
      const title = (object.title as { text: string } | undefined)?.text ?? '';
      if (title.length > 24) problems.push(`modal title ${title}`);
      const metadata = object.private_metadata;
      if (typeof metadata === 'string' && metadata.length > 3000) problems.push('private_metadata');
    }
    if (object.type === 'actions' && (object.elements as unknown[]).length > 25) problems.push('actions elements');
    if (typeof object.block_id === 'string' && object.block_id.length > 255) problems.push('block_id');
  }
  return problems;
}
