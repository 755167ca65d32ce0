// The playground reads mrkdwn as Slack's clients do, into text and formatting only: markup in a name stays text, a
// link can only lead to http(s) or mail, and the entities an app must escape come back as the characters they stand for.
import { describe, expect, it } from 'vitest';
import { type Inline, parseMrkdwn } from '../../src/playground/mrkdwn.js';

const names = {
  user: (id: string) => ({ UANA: 'Ana' })[id],
  channel: (id: string) => ({ COPS: 'voice-ops' })[id],
  group: (id: string) => ({ SSALES: 'sales' })[id],
};
const parse = (text: string) => parseMrkdwn(text, names);

/** The tree as compact text: `*x*` for bold and so on, to compare whole results at a glance. */
function show(nodes: Inline[]): string {
  return nodes
    .map((node) => {
      switch (node.t) {
        case 'text':
          return node.text;
        case 'br':
          return '⏎';
        case 'code':
          return `[code:${node.text}]`;
        case 'pre':
          return `[pre:${node.text}]`;
        case 'mention':
          return `[${node.kind}:${node.text}]`;
        case 'link':
          return `[link ${node.href}:${show(node.children)}]`;
        default:
          return `[${node.t}:${show(node.children)}]`;
      }
    })
    .join('');
}

describe('parseMrkdwn', () => {
  it.each([
    ['*bold* _italic_ ~strike~', '[bold:bold] [italic:italic] [strike:strike]'],
    ['*bold _and italic_*', '[bold:bold [italic:and italic]]'],
    ['snake_case_name and 2*3*4', 'snake_case_name and 2*3*4'],
    ['* not bold * and *unclosed', '* not bold * and *unclosed'],
    ['`*not bold*` and ```*block*\nline```', '[code:*not bold*] and [pre:*block*\nline]'],
    ['before\n```\ncode\n```\nafter', 'before[pre:code]after'],
    ['&lt;b&gt;bold?&lt;/b&gt; &amp;amp;', '<b>bold?</b> &amp;'],
    ['<img src=x onerror=alert(1)>', '<img src=x onerror=alert(1)>'],
    ['&lt;img src=x onerror=alert(1)&gt;', '<img src=x onerror=alert(1)>'],
    [
      '<https://example.com|the *site*> <mailto:a@b.c>',
      '[link https://example.com:the [bold:site]] [link mailto:a@b.c:mailto:a@b.c]',
    ],
    ['<javascript:alert(1)|click>', 'click'],
    [
      '<@UANA> <@UBOB|bob> <#COPS> <#CX> <!here> <!subteam^S1|@ops> <!subteam^SSALES> <!subteam^SX>',
      '[user:@Ana] [user:@bob] [channel:#voice-ops] [channel:#CX] [broadcast:@here] [group:@ops] [group:@sales] [group:@SX]',
    ],
    ['<!date^1700000000^{date_num} {time}|fallback>', '2023-11-14 22:13 UTC'],
    [':warning: :white_check_mark: :unknown_thing:', '⚠️ ✅ :unknown_thing:'],
    ['> quoted *line*\nnext', '[quote:quoted [bold:line]]next'],
    ['one\ntwo', 'one⏎two'],
  ])('reads %j', (text, expected) => {
    expect(show(parse(text))).toBe(expected);
  });
});
