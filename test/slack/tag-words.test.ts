import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/slack/command.js';

const commandOf = (text: string) => {
  const parsed = parseCommand(text);
  if (!parsed.ok) throw new Error(`expected "${text}" to parse, got: ${parsed.error}`);
  return parsed.command;
};

const rejected = (text: string) => {
  const parsed = parseCommand(text);
  if (parsed.ok) throw new Error(`expected "${text}" to be rejected, got ${JSON.stringify(parsed.command)}`);
  return parsed.error;
};

describe('filters by labels and owner', () => {
  it.each([
    ['numbers label:de', { name: 'numbers.list', filter: { labels: ['de'] } }],
    ['numbers label:DE label:team:sales', { name: 'numbers.list', filter: { labels: ['de', 'team:sales'] } }],
    ['numbers -label:test unrouted', { name: 'numbers.list', filter: { without: ['test'], routed: false } }],
    ['numbers owner:<!subteam^S0123ABC|@sales-team>', { name: 'numbers.list', filter: { owner: 'S0123ABC' } }],
    ['numbers owner:S0123ABC US', { name: 'numbers.list', filter: { owner: 'S0123ABC', region: 'US' } }],
    ['numbers owner: <!subteam^S0123ABC>', { name: 'numbers.list', filter: { owner: 'S0123ABC' } }],
    ['numbers unowned', { name: 'numbers.list', filter: { unowned: true } }],
    ['numbers release label:old', { name: 'numbers.release.bulk', filter: { labels: ['old'] } }],
    ['numbers release unowned DE', { name: 'numbers.release.bulk', filter: { unowned: true, region: 'DE' } }],
    ['map label:de to agt_1', { name: 'map.bulk', filter: { labels: ['de'] }, agent: 'agt_1' }],
    ['agents label:support', { name: 'agents.list', tags: { labels: ['support'] } }],
    ['agents front desk unowned', { name: 'agents.list', text: 'front desk', tags: { unowned: true } }],
    ['agents owner:S0123ABC -label:old', { name: 'agents.list', tags: { owner: 'S0123ABC', without: ['old'] } }],
  ])('"%s" parses', (text, command) => {
    expect(commandOf(text)).toEqual(command);
  });

  it.each([
    ['numbers label:', /^Give the label after `label:`: `label:team:sales`\.$/],
    ['numbers label:Sales!', /^`label:Sales!`: `Sales!` is not a label \(lowercase letters, digits/],
    ['numbers label:a!b', /^`label:a!b`: `a!b` is not a label/],
    ['agents -label:#x', /^`-label:#x`: `#x` is not a label/],
    ['numbers owner:@sales', /^`owner:@sales` names no team: give it as a mention Slack completes/],
    ['numbers owner:', /names no team/],
    ['numbers label:de -label:de', /^`label:de` and `-label:de` cannot both hold\.$/],
    ['numbers unowned owner:S0123ABC', /^Give one owner: `unowned` and `owner:S0123ABC` cannot both hold\.$/],
    ['numbers owner:S01 owner:S02', /^Give one owner: `owner:S01` and `owner:S02` cannot both hold\.$/],
    ['numbers unownd', /Did you mean `unowned`\?/],
  ])('"%s" is refused with what to type', (text, reason) => {
    expect(rejected(text)).toMatch(reason);
  });
});
