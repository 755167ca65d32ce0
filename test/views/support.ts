// Fixtures and JSON walkers for the view tests: they look at what Slack would receive, not at how it was built.
import type { AgentSummary } from '../../src/ops/agents.js';
import type { NumberSummary } from '../../src/ops/numbers.js';
import type { AvailableNumber, AvailableNumberPage, CreatedAgent } from '../../src/provider/schemas.js';

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

export function page(data: AvailableNumber[], next_cursor: string | null = null): AvailableNumberPage {
  return { data, next_cursor };
}

export function createdAgent(overrides: Partial<CreatedAgent> = {}): CreatedAgent {
  return { id: 'ag_9', name: 'Sales bot', status: 'active', agent_token: 'tok_SECRET_only_once', ...overrides };
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
 * where Slack never parses it: plain_text objects (labels, options), element values and private_metadata.
 */
export function rawHostileKeys(value: Json): string[] {
  const found: string[] = [];
  for (const object of objects(value)) {
    for (const [key, field] of Object.entries(object)) {
      if (typeof field !== 'string' || !field.includes('<!channel>')) continue;
      const safe =
        (key === 'text' && object.type === 'plain_text') ||
        ['value', 'initial_value', 'private_metadata'].includes(key);
      if (!safe) found.push(`${String(object.type)}.${key}`);
    }
  }
  return found;
}

/** Slack's size limits that the views must keep, checked on the whole output. */
export function limitViolations(value: Json): string[] {
  const problems: string[] = [];
  for (const object of objects(value)) {
    const text = (object.text as { text?: string } | undefined)?.text;
    if (object.type === 'button' && text && text.length > 75) problems.push(`button text ${text.length}`);
    if (object.type === 'header' && text && text.length > 150) problems.push(`header text ${text.length}`);
    if (object.type === 'section' && text && text.length > 3000) problems.push(`section text ${text.length}`);
    if (object.type === 'section' && text !== undefined && text.length === 0) problems.push('empty section');
    if (object.type === 'static_select') {
      const options = object.options as { text: { text: string }; value: string }[];
      if (options.length > 100) problems.push(`${options.length} options`);
      for (const choice of options) if (choice.text.text.length > 75) problems.push(`option ${choice.text.text}`);
    }
    if (object.type === 'modal') {
      const title = (object.title as { text: string }).text;
      if (title.length > 24) problems.push(`modal title ${title}`);
      const metadata = object.private_metadata;
      if (typeof metadata === 'string' && metadata.length > 3000) problems.push('private_metadata');
    }
    if (object.type === 'actions' && (object.elements as unknown[]).length > 25) problems.push('actions elements');
  }
  return problems;
}
