// Slack's mrkdwn, read as Slack's clients read it, into a tree of text and formatting that the page turns into DOM
// nodes (text nodes only: nothing here is ever HTML). `*bold*`, `_italic_`, `~strike~`, `` `code` ``, ``` ```blocks``` ```,
// `> quotes`, `<url|links>`, `<@U…>`, `<#C…>` and `<!subteam^S…>` mentions, `<!here>`, `<!date^…>`, `:emoji:`, and the
// three entities `&amp;` `&lt;` `&gt;` that stand for characters an app must escape.

export type Inline =
  | { t: 'text'; text: string }
  | { t: 'bold' | 'italic' | 'strike' | 'quote'; children: Inline[] }
  | { t: 'code' | 'pre'; text: string }
  | { t: 'link'; href: string; children: Inline[] }
  | { t: 'mention'; kind: 'user' | 'channel' | 'broadcast' | 'group'; text: string }
  | { t: 'br' };

/** Names for ids, as the reader's client knows them. */
export interface Names {
  user(id: string): string | undefined;
  channel(id: string): string | undefined;
  /** A user group's handle. */
  group(id: string): string | undefined;
}

// Every emoji the app uses, and a few common ones.
const EMOJI: Record<string, string> = {
  warning: '⚠️',
  ballot_box_with_check: '☑️',
  memo: '📝',
  white_check_mark: '✅',
  heavy_check_mark: '✔️',
  x: '❌',
  heavy_multiplication_x: '✖️',
  hourglass: '⌛',
  hourglass_flowing_sand: '⏳',
  lock: '🔒',
  zap: '⚡',
  key: '🔑',
  test_tube: '🧪',
  loudspeaker: '📢',
  mega: '📣',
  mag: '🔍',
  information_source: 'ℹ️',
  no_entry_sign: '🚫',
  no_entry: '⛔',
  raised_hand: '✋',
  keyboard: '⌨️',
  moneybag: '💰',
  newspaper: '📰',
  round_pushpin: '📍',
  telephone_receiver: '📞',
  phone: '☎️',
  robot_face: '🤖',
  tada: '🎉',
  rotating_light: '🚨',
  bulb: '💡',
  eyes: '👀',
  '+1': '👍',
  thumbsup: '👍',
  wave: '👋',
  white_small_square: '▫️',
  heavy_equals_sign: '🟰',
  octagonal_sign: '🛑',
  arrows_counterclockwise: '🔄',
  page_facing_up: '📄',
};

/** `:name:` as the emoji Slack would draw; unknown names stay as typed, as a custom emoji's name would. */
export function withEmoji(text: string): string {
  return text.replace(/:([a-z0-9_+-]+):/g, (whole, name: string) => EMOJI[name] ?? whole);
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>' };

export function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt);/g, (entity) => ENTITIES[entity] ?? entity);
}

const SAFE_LINK = /^(https?:\/\/|mailto:)/i;
const MARKERS: Record<string, 'bold' | 'italic' | 'strike'> = { '*': 'bold', _: 'italic', '~': 'strike' };
/** Formatting opens after these (or at the start) and closes before them (or at the end). */
const BOUNDARY = /[\s.,;:!?()[\]{}"'`<>/\\-]/;

export function parseMrkdwn(source: string, names: Names): Inline[] {
  const parts: Inline[] = [];
  const fences = source.split('```');
  const isCode = (index: number) => index % 2 === 1 && index < fences.length - 1;
  fences.forEach((segment, index) => {
    // Odd segments sit between fences; a fence left open is text, as Slack shows it.
    if (isCode(index)) {
      parts.push({ t: 'pre', text: decodeEntities(segment.replace(/^\n/, '').replace(/\n$/, '')) });
      return;
    }
    // A code block stands on lines of its own: the line breaks around it are its edges, not empty lines.
    let text = index % 2 === 1 ? `\`\`\`${segment}` : segment;
    if (isCode(index - 1)) text = text.replace(/^\n/, '');
    if (isCode(index + 1)) text = text.replace(/\n$/, '');
    if (text) parts.push(...lines(text, names));
  });
  return merge(parts);
}

/** Lines, with runs of lines starting with `>` as quotes. */
function lines(text: string, names: Names): Inline[] {
  const out: Inline[] = [];
  let quote: string[] = [];
  const flushQuote = () => {
    if (quote.length === 0) return;
    out.push({ t: 'quote', children: joinLines(quote, names) });
    quote = [];
  };
  const plain: string[] = [];
  const flushPlain = () => {
    if (plain.length === 0) return;
    out.push(...joinLines(plain.splice(0), names));
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('>')) {
      flushPlain();
      quote.push(line.replace(/^> ?/, ''));
    } else {
      flushQuote();
      plain.push(line);
    }
  }
  flushQuote();
  flushPlain();
  return out;
}

function joinLines(text: string[], names: Names): Inline[] {
  return text.flatMap((line, index) => [...(index > 0 ? [{ t: 'br' } as const] : []), ...inline(line, names)]);
}

function inline(text: string, names: Names): Inline[] {
  const out: Inline[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push({ t: 'text', text: withEmoji(decodeEntities(plain)) });
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const char = text[i] ?? '';
    if (char === '`') {
      const end = text.indexOf('`', i + 1);
      if (end > i + 1) {
        flush();
        out.push({ t: 'code', text: decodeEntities(text.slice(i + 1, end)) });
        i = end + 1;
        continue;
      }
    }
    if (char === '<') {
      const end = text.indexOf('>', i + 1);
      if (end > i) {
        flush();
        out.push(token(text.slice(i + 1, end), names));
        i = end + 1;
        continue;
      }
    }
    const kind = MARKERS[char];
    if (kind && opens(text, i)) {
      const end = closing(text, i);
      if (end !== undefined) {
        flush();
        out.push({ t: kind, children: inline(text.slice(i + 1, end), names) });
        i = end + 1;
        continue;
      }
    }
    plain += char;
    i += 1;
  }
  flush();
  return out;
}

function opens(text: string, at: number): boolean {
  const before = text[at - 1];
  const after = text[at + 1];
  return (before === undefined || BOUNDARY.test(before)) && after !== undefined && !/\s/.test(after);
}

/** Where the marker opened at `at` closes on the same line: after a non-space, before a boundary. */
function closing(text: string, at: number): number | undefined {
  const marker = text[at];
  for (let i = at + 2; i < text.length; i++) {
    if (text[i] === '\n') return undefined;
    if (text[i] !== marker) continue;
    const before = text[i - 1] ?? '';
    const after = text[i + 1];
    if (!/\s/.test(before) && (after === undefined || BOUNDARY.test(after))) return i;
  }
  return undefined;
}

/** `<…>`: a mention, a broadcast, a date, or a link; whatever else is shown as the text it holds. */
function token(inner: string, names: Names): Inline {
  const [target = '', label] = splitLabel(inner);
  if (target.startsWith('@')) {
    const id = target.slice(1);
    return { t: 'mention', kind: 'user', text: `@${label ?? names.user(id) ?? id}` };
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    return { t: 'mention', kind: 'channel', text: `#${label ?? names.channel(id) ?? id}` };
  }
  if (target.startsWith('!subteam^')) {
    const id = target.slice(9);
    return { t: 'mention', kind: 'group', text: label ?? `@${names.group(id) ?? id}` };
  }
  if (target.startsWith('!date^')) return { t: 'text', text: formatDate(target, label) };
  if (target.startsWith('!')) return { t: 'mention', kind: 'broadcast', text: `@${target.slice(1)}` };
  const href = decodeEntities(target);
  const shown = label === undefined ? [{ t: 'text' as const, text: href }] : inline(label, names);
  if (SAFE_LINK.test(href)) return { t: 'link', href, children: shown };
  return { t: 'text', text: label === undefined ? `<${href}>` : decodeEntities(label) };
}

function splitLabel(inner: string): [string, string | undefined] {
  const bar = inner.indexOf('|');
  return bar < 0 ? [inner, undefined] : [inner.slice(0, bar), inner.slice(bar + 1)];
}

/** `<!date^1700000000^{date_short} at {time}|fallback>`, in UTC (the page does not know the reader's zone). */
function formatDate(target: string, fallback: string | undefined): string {
  const [, epoch = '', format = ''] = target.split('^');
  const date = new Date(Number(epoch) * 1000);
  if (!Number.isFinite(date.getTime())) return decodeEntities(fallback ?? '');
  const utc = { timeZone: 'UTC' } as const;
  const tokens: Record<string, string> = {
    date_num: date.toISOString().slice(0, 10),
    date: date.toLocaleDateString('en-US', { ...utc, month: 'long', day: 'numeric', year: 'numeric' }),
    date_short: date.toLocaleDateString('en-US', { ...utc, month: 'short', day: 'numeric', year: 'numeric' }),
    date_long: date.toLocaleDateString('en-US', {
      ...utc,
      weekday: 'long',
      month: 'long',
      day: 'numeric',
      year: 'numeric',
    }),
    date_pretty: date.toLocaleDateString('en-US', { ...utc, month: 'long', day: 'numeric', year: 'numeric' }),
    time: `${date.toISOString().slice(11, 16)} UTC`,
    time_secs: `${date.toISOString().slice(11, 19)} UTC`,
  };
  return format.replace(/\{(\w+)\}/g, (whole, name: string) => tokens[name] ?? whole);
}

/** Adjacent text nodes as one, so that the page draws fewer nodes. */
function merge(parts: Inline[]): Inline[] {
  const out: Inline[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (part.t === 'text' && last?.t === 'text') out[out.length - 1] = { t: 'text', text: last.text + part.text };
    else out.push(part);
  }
  return out;
}
