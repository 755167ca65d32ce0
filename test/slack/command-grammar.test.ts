import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMMANDS, compactNumber, normalizeLocale, parseCommand, tokenize } from '../../src/slack/command.js';

const parsed = (text: string) => {
  const result = parseCommand(text);
  if (!result.ok) throw new Error(`expected "${text}" to parse, got: ${result.error}`);
  return result.command;
};

const rejected = (text: string) => {
  const result = parseCommand(text);
  if (result.ok) throw new Error(`expected "${text}" to be rejected, got ${JSON.stringify(result.command)}`);
  return result.error;
};

/** The command a text parses to, or undefined for one refused. */
const commandOf = (text: string) => {
  const parsed = parseCommand(text);
  return parsed.ok ? parsed.command : undefined;
};

describe('every form of /voice', () => {
  it.each([
    ['', { name: 'help' }],
    ['   ', { name: 'help' }],
    ['help', { name: 'help' }],
    ['HELP', { name: 'help' }],
    ['agents', { name: 'agents.list' }],
    ['agents front desk', { name: 'agents.list', text: 'front desk' }],
    ['agents agt_123', { name: 'agents.list', text: 'agt_123' }],
    ['agents create', { name: 'agents.create' }],
    ['agents create Front desk', { name: 'agents.create', agentName: 'Front desk' }],
    ['agents create Front desk en-US', { name: 'agents.create', agentName: 'Front desk', language: 'en-US' }],
    ['agents create "Front desk" fr_ca', { name: 'agents.create', agentName: 'Front desk', language: 'fr-CA' }],
    ['agents create “Night shift” de-de', { name: 'agents.create', agentName: 'Night shift', language: 'de-DE' }],
    ['agents delete agt_123', { name: 'agents.delete', agent: 'agt_123' }],
    ['numbers', { name: 'numbers.list', filter: {} }],
    ['numbers unrouted', { name: 'numbers.list', filter: { routed: false } }],
    ['numbers ROUTED', { name: 'numbers.list', filter: { routed: true } }],
    ['numbers gb', { name: 'numbers.list', filter: { region: 'GB' } }],
    ['numbers agent agt_9', { name: 'numbers.list', filter: { agentId: 'agt_9' } }],
    ['numbers 415', { name: 'numbers.list', filter: { digits: '415' } }],
    ['numbers (415) 555', { name: 'numbers.list', filter: { digits: '415555' } }],
    ['numbers unrouted US 415', { name: 'numbers.list', filter: { routed: false, region: 'US', digits: '415' } }],
    ['numbers unrouted +49 30', { name: 'numbers.list', filter: { routed: false, digits: '+4930' } }],
    ['numbers +1 415 555 0100', { name: 'numbers.show', number: '+14155550100' }],
    ['numbers search', { name: 'numbers.search' }],
    ['numbers search gb', { name: 'numbers.search', region: 'GB' }],
    ['numbers search US 415', { name: 'numbers.search', region: 'US', digits: '415' }],
    ['numbers search us (415) 555', { name: 'numbers.search', region: 'US', digits: '415555' }],
    ['numbers buy +14155550123', { name: 'numbers.buy', number: '+14155550123' }],
    ['numbers buy +1 (415) 555-0123', { name: 'numbers.buy', number: '+14155550123' }],
    ['numbers buy <tel:+14155550123|+1 415 555 0123>', { name: 'numbers.buy', number: '+14155550123' }],
    ['numbers release +44 20 7946 0001', { name: 'numbers.release', target: '+442079460001' }],
    ['numbers release pn_abc', { name: 'numbers.release', target: 'pn_abc' }],
    ['map', { name: 'map' }],
    ['map +14155550123', { name: 'map', number: '+14155550123' }],
    ['map +1 415 555 0123 agt_9', { name: 'map', number: '+14155550123', agent: 'agt_9' }],
    ['audit', { name: 'audit', filter: {} }],
    ['audit failed', { name: 'audit', filter: { failed: true } }],
    ['audit @alice', { name: 'audit', filter: { actorName: 'alice' } }],
    ['audit <@U0ALICE|alice>', { name: 'audit', filter: { actorId: 'U0ALICE' } }],
    ['audit U0ALICE', { name: 'audit', filter: { actorId: 'U0ALICE' } }],
    ['audit +1 415 555 0100', { name: 'audit', filter: { target: '+14155550100' } }],
    ['audit agt_9', { name: 'audit', filter: { agentId: 'agt_9' } }],
    ['audit @UPLAYVIEWER', { name: 'audit', filter: { actorId: 'UPLAYVIEWER' } }],
    ['audit @Vera', { name: 'audit', filter: { actorName: 'Vera' } }],
    ['audit @Vera Viewer', { name: 'audit', filter: { actorName: 'Vera Viewer' } }],
    ['audit <@UPLAYVIEWER|Vera Viewer>', { name: 'audit', filter: { actorId: 'UPLAYVIEWER' } }],
    ['audit &lt;@UPLAYVIEWER|vera&gt;', { name: 'audit', filter: { actorId: 'UPLAYVIEWER' } }],
    ['unmap +49 30 23125001', { name: 'unroute', number: '+493023125001' }],
    ['UNROUTE +14155550100', { name: 'unroute', number: '+14155550100' }],
    ['remove', { name: 'unroute' }],
    ['numbers unmap +14155550100', { name: 'unroute', number: '+14155550100' }],
    ['numbers remove +14155550100', { name: 'unroute', number: '+14155550100' }],
    ['plan', { name: 'plan' }],
    ['export', { name: 'export' }],
    ['export as of yesterday 09:00', { name: 'export', asOf: 'yesterday 09:00' }],
    ['Export AS OF 2026-11-27T09:00:00+01:00', { name: 'export', asOf: '2026-11-27T09:00:00+01:00' }],
    ['changes since 3 hours ago', { name: 'changes', since: '3 hours ago' }],
    ['CHANGES Since 2026-11-27', { name: 'changes', since: '2026-11-27' }],
  ])('"%s" parses', (text, command) => {
    expect(parsed(text)).toEqual(command);
  });
});

describe('junk and malformed input is answered with a reason', () => {
  it.each([
    ['everything', /don't know `everything`/],
    [`agents ${'x'.repeat(101)}`, /at most 100 characters/],
    ['numbers everything', /don't understand `everything` after `numbers`/],
    ['numbers agent', /Give the agent after `agent`, its id or its name/],
    [`numbers agent ${'a'.repeat(151)}`, /at most 150 characters/],
    ['numbers 1234567890123456', /at most 15 digits/],
    ['audit failed agt_9', /one filter/],
    [`audit ${'a'.repeat(151)}`, /at most 150 characters/],
    ['agents delete', /Give the agent, its id or its name/],
    ['numbers search US GB', /one two-letter region code, then digits/],
    ['numbers buy', /number to buy/],
    ['numbers release', /number or its id/],
    ['audit 20', /pages by itself/],
    [
      'numbers search germany',
      /^Did you mean `DE` \(Germany\)\? Regions are two-letter codes: `\/voice numbers search DE`\.$/,
    ],
    ['numbers search Germany 30', /Did you mean `DE`.*`\/voice numbers search DE 30`/],
    ['numbers search united  KINGDOM', /Did you mean `GB` \(United Kingdom\)/],
    ['numbers germany', /Did you mean `DE`.*`\/voice numbers DE`/],
    ['numbers unrouted United Kingdom', /Did you mean `GB`/],
    [
      'numbers buy 030 23125001',
      /^`03023125001` is not in international form: a number starts with \+ and its country code/,
    ],
    ['map 030 23125001 agt_1', /`03023125001` is not in international form/],
    ['map 03023125001', /not in international form/],
    ['numbers release 030 23125001', /not in international form/],
    ['numbers 415 +1', /^I don't understand `\+1` after `numbers`/],
    ['export all', /^`export` takes nothing more, or `as of TIME`: `\/voice export as of yesterday 09:00`\.$/],
    ['export as of', /takes nothing more, or `as of TIME`/],
    ['export since yesterday', /takes nothing more, or `as of TIME`/],
    ['changes', /^Give the time after `since`: `\/voice changes since yesterday 09:00`\.$/],
    ['changes since', /time after `since`/],
    ['changes yesterday', /time after `since`/],
  ])('"%s" is rejected', (text, reason) => {
    expect(rejected(text)).toMatch(reason);
  });

  it('refuses two regions in one filter, which no number can match', () => {
    expect(rejected('numbers DE US')).toBe('Give one region: `DE` and `US` cannot both hold.');
  });

  it('lists by a country code typed alone, and shows a whole number', () => {
    expect(parsed('numbers +49')).toEqual({ name: 'numbers.list', filter: { digits: '+49' } });
    expect(parsed('numbers +49 30 1234567')).toEqual({ name: 'numbers.show', number: '+49301234567' });
  });

  it('undoes the HTML escaping Slack applies to command text', () => {
    expect(tokenize('&lt;!channel&gt; &amp;')).toEqual(['<!channel>', '&']);
  });

  it('echoes an unknown command word in a code span, escaped and shortened', () => {
    expect(rejected('`*x*`<!here>')).toBe("I don't know `\u02CB*x*\u02CB&lt;!here&gt;`.");
    expect(rejected(`${'y'.repeat(500)} z`)).toBe(`I don't know \`${'y'.repeat(59)}…\`.`);
  });

  it('echoes a word it does not understand after numbers in a code span, escaped and shortened', () => {
    expect(rejected('numbers <!channel>')).toMatch(/^I don't understand `&lt;!channel&gt;` after `numbers`/);
    expect(rejected(`numbers \`x\`${'y'.repeat(500)}`)).toMatch(/^I don't understand `ˋxˋy+…` after/);
  });
});

describe('an agent named where an agent is taken', () => {
  const filter = { routed: false, region: 'DE' };
  it.each([
    ['agents delete "Berlin Support"', { name: 'agents.delete', agent: 'Berlin Support' }],
    ['agents delete “Berlin Support”', { name: 'agents.delete', agent: 'Berlin Support' }],
    ['agents delete Berlin Support', { name: 'agents.delete', agent: 'Berlin Support' }],
    ['map +49 30 23125001 "Berlin Support"', { name: 'map', number: '+493023125001', agent: 'Berlin Support' }],
    ['map +49 30 23125001 Berlin Support', { name: 'map', number: '+493023125001', agent: 'Berlin Support' }],
    ['map +493023125001 "Route to me"', { name: 'map', number: '+493023125001', agent: 'Route to me' }],
    ['map unrouted DE to "Berlin Support"', { name: 'map.bulk', filter, agent: 'Berlin Support' }],
    ['map unrouted DE to Berlin Support', { name: 'map.bulk', filter, agent: 'Berlin Support' }],
    ['map agent "Old desk" to "New desk"', { name: 'map.bulk', filter: { agentId: 'Old desk' }, agent: 'New desk' }],
    [
      'numbers agent "Berlin Support" DE',
      { name: 'numbers.list', filter: { agentId: 'Berlin Support', region: 'DE' } },
    ],
    ['numbers release agent "Berlin Support"', { name: 'numbers.release.bulk', filter: { agentId: 'Berlin Support' } }],
    ['history "Berlin Support"', { name: 'history', subject: 'Berlin Support' }],
    ['history Berlin Support', { name: 'history', subject: 'Berlin Support' }],
    ['audit "Berlin Support"', { name: 'audit', filter: { agentId: 'Berlin Support' } }],
    ['audit Berlin Support', { name: 'audit', filter: { agentId: 'Berlin Support' } }],
  ])('"%s" carries the agent as typed', (text, command) => {
    expect(parsed(text)).toEqual(command);
  });

  it.each([
    [
      'numbers agent Berlin Support',
      /don't understand `Support` after `numbers`.*put it in quotes: `agent "Front desk"`/,
    ],
    [`agents delete ${'a'.repeat(151)}`, /Agent ids and names are at most 150 characters/],
    [`map unrouted to ${'a'.repeat(151)}`, /Agent ids and names are at most 150 characters/],
    ['map unrouted DE to', /Give the agent after `to`/],
  ])('"%s" is answered with a reason', (text, reason) => {
    expect(rejected(text)).toMatch(reason);
  });
});

describe('agent names with control characters', () => {
  it.each([
    [
      'a line break, quoted',
      'agents create "Desk\n:white_check_mark: Released *+14155550100*" en-US',
      'a line break, U+000A',
    ],
    ['a line break between words', 'agents create Desk\n:white_check_mark: Released en-US', 'a line break, U+000A'],
    ['a line break and no language', 'agents create Desk\nReleased', 'a line break, U+000A'],
    ['a tab', 'agents create "Front\tdesk" en-US', 'a tab, U+0009'],
    ['a carriage return', 'agents create Front\rdesk en-US', 'a carriage return, U+000D'],
    ['a line separator', 'agents create Front\u2028desk en-US', 'U+2028'],
    ['a right-to-left override', 'agents create "Desk \u202eSU-ne" en-US', 'U+202E'],
    ['a C1 control', 'agents create Desk\u0085 en-US', 'U+0085'],
  ])('are refused when the name holds %s, naming it', (_case, text, found) => {
    expect(rejected(text)).toBe(
      `The agent name must be one line of plain text, without line breaks, tabs or other control characters (found ${found}).`,
    );
  });

  it('are not confused with the white space around a name', () => {
    expect(parsed('agents create   Front desk   en-US')).toEqual({
      name: 'agents.create',
      agentName: 'Front desk',
      language: 'en-US',
    });
    expect(parsed('agents\ncreate Front desk en-US')).toMatchObject({ agentName: 'Front desk' });
  });
});

describe('what the provider cannot do', () => {
  it('says under map in help that a route cannot be removed, and what to do instead', () => {
    const map = COMMANDS.find((spec) => spec.words.join(' ') === 'map');
    expect(map?.note).toMatch(/cannot remove a route.*route it to another agent, or release the number/);
  });

  it('never calls a national number, or a count, an unknown word; nor does it guess a region from other words', () => {
    expect(parsed('numbers release pn_123')).toEqual({ name: 'numbers.release', target: 'pn_123' });
    expect(parsed('numbers release 123456')).toEqual({ name: 'numbers.release', target: '123456' });
    expect(rejected('numbers everything')).toMatch(/don't understand/);
    expect(parsed('numbers search usa')).toEqual({ name: 'numbers.search', region: 'USA' });
  });
});

describe('the command table', () => {
  it('routes every entry it lists, alone when its arguments are optional (in brackets) or none', () => {
    for (const spec of COMMANDS) {
      const result = parseCommand(spec.words.join(' '));
      const needsArgs = spec.args !== '' && !spec.args.startsWith('[');
      expect(result.ok, spec.words.join(' ')).toBe(!needsArgs);
    }
  });

  it('gives each entry a role and a summary for help', () => {
    for (const spec of COMMANDS) {
      expect(['viewer', 'operator', 'admin']).toContain(spec.role);
      expect(spec.summary.length).toBeGreaterThan(5);
    }
  });
});

describe('normalisers', () => {
  it('compacts the ways people write numbers', () => {
    expect(compactNumber(['+49', '(30)', '1234.5678'])).toBe('+493012345678');
  });

  it('normalises locale case and separator, and leaves junk for validation', () => {
    expect(normalizeLocale('EN_us')).toBe('en-US');
    expect(normalizeLocale('english')).toBe('english');
  });
});

describe('arbitrary input', () => {
  it('never throws and always yields a command or a reason', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 4000 }), (text) => {
        const result = parseCommand(text);
        expect(result.ok ? typeof result.command.name : typeof result.error).toBe('string');
      }),
      { numRuns: 500 },
    );
  });
});

describe('a slip of a command word', () => {
  it.each([
    ['numbers by DE 1', '/voice numbers buy DE 1'],
    ['numbers serch US 415', '/voice numbers search US 415'],
    ['numbers relase +4930123456', '/voice numbers release +4930123456'],
    ['agents creat Foo de-DE', '/voice agents create Foo de-DE'],
    ['agents delte agt_1', '/voice agents delete agt_1'],
    ['serch DE', '/voice numbers search DE'],
    ['search DE', '/voice numbers search DE'],
    ['buy +14155550100', '/voice numbers buy +14155550100'],
    ['nubmers unrouted', '/voice numbers unrouted'],
    ['agnets', '/voice agents'],
    ['hlep', '/voice help'],
    ['mpa +14155550100 agt_1', '/voice map +14155550100 agt_1'],
    ['agents creat "Front desk" en-US', '/voice agents create "Front desk" en-US'],
  ])('"%s" is answered with "did you mean %s", and nothing runs', (text, meant) => {
    const result = parseCommand(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBe(
      `Did you mean \`${meant}\`? Nothing was listed or changed: copy it to run it.${
        text.startsWith('agents') ? ` To find agents named \`${text.split(' ')[1]}\`, put it in quotes.` : ''
      }`,
    );
    expect(result.attempted).toBeUndefined();
    expect(['/voice', ...(result.about?.words ?? [])].join(' ')).toBe(
      meant
        .split(' ')
        .slice(0, result.about?.words.length === 2 ? 3 : 2)
        .join(' '),
    );
  });

  it.each([
    ['numbers by', { name: 'numbers.list', filter: { region: 'BY' } }],
    ['numbers uy 598', { name: 'numbers.list', filter: { region: 'UY', digits: '598' } }],
    ['agents Delta', { name: 'agents.list', text: 'Delta' }],
    ['agents "crate"', { name: 'agents.list', text: 'crate' }],
  ])('"%s" is not a slip: a region, or a name a command word is not close to, or one in quotes', (text, command) => {
    expect(parsed(text)).toEqual(command);
  });

  it('names the filter meant when a filter word slips', () => {
    expect(rejected('numbers unroted DE')).toMatch(/Did you mean `unrouted`\?$/);
  });

  it('takes two slips from a word of eight letters or more, and one from a shorter word', () => {
    // `numberzz` and `numbezz` are both two slips from `numbers`: only the first is long enough to be read as it.
    expect(rejected('numberzz')).toBe(
      'Did you mean `/voice numbers`? Nothing was listed or changed: copy it to run it.',
    );
    expect(rejected('numbezz')).toBe("I don't know `numbezz`.");
    expect(rejected('numbers unroutxx')).toMatch(/Did you mean `unrouted`\?$/);
    expect(rejected('numbers unrotxx')).not.toContain('Did you mean');
  });

  it('guesses nothing when a slip is as close to two words', () => {
    // `nrouted` is one slip from `routed` and one from `unrouted`.
    const error = rejected('numbers nrouted');
    expect(error).toContain("I don't understand `nrouted` after `numbers`");
    expect(error).not.toContain('Did you mean');
  });
});

describe('a language named where the locale goes', () => {
  it('answers `/voice agents create NAME LANGUAGE_NAME` with the locales the name stands for', () => {
    expect(rejected('agents create Support german')).toBe(
      "`german` names a language, and an agent's language is a locale. Did you mean `de-DE` (German, Germany), " +
        '`de-AT` (German, Austria) or `de-CH` (German, Switzerland)? For example: `/voice agents create Support de-DE`. ' +
        'An agent named so is made with the name in quotes: `/voice agents create "Support german"`.',
    );
    expect(rejected('agents create Front desk English')).toContain('`/voice agents create Front desk en-US`');
  });

  it('takes a two- or three-letter word after a name as part of the name, not as a language code', () => {
    for (const text of ['agents create Support HR', 'agents create Helpdesk IT', 'agents create Team NO']) {
      const result = parseCommand(text);
      expect(result.ok, text).toBe(true);
    }
  });

  it('leaves a name whose last word names no language, or a quoted name, to the form', () => {
    expect(commandOf('agents create Support Germany')).toEqual({ name: 'agents.create', agentName: 'Support Germany' });
    expect(commandOf('agents create "Support german"')).toEqual({ name: 'agents.create', agentName: 'Support german' });
    expect(commandOf('agents create german')).toEqual({ name: 'agents.create', agentName: 'german' });
  });
});

describe('/voice label and /voice own', () => {
  it.each([
    ['label +14155550100 +VIP -old sales', { number: '+14155550100' }, ['vip', 'sales'], ['old']],
    ['label +1 415 555 0100 team:sales', { number: '+14155550100' }, ['team:sales'], []],
    ['label agent "Front desk" -vip', { agent: 'Front desk' }, [], ['vip']],
    ['label agent agt_1 +a.b/c_d', { agent: 'agt_1' }, ['a.b/c_d'], []],
  ])('%s', (text, target, add, remove) => {
    expect(parsed(text)).toEqual({ name: 'labels', target, add, remove });
  });

  it.each([
    ['own +14155550100 <!subteam^S0SALES|@sales-team>', { number: '+14155550100' }, { id: 'S0SALES' }],
    ['own +14155550100 S0SALES', { number: '+14155550100' }, { id: 'S0SALES' }],
    ['own agent Front desk @sales-team', { agent: 'Front desk' }, { handle: 'sales-team' }],
    ['own agent agt_1 NOBODY', { agent: 'agt_1' }, null],
  ])('%s', (text, target, owner) => {
    expect(parsed(text)).toEqual({ name: 'labels', target, add: [], remove: [], owner });
  });

  it('says what is wrong with a target, a label or a team, and audits the attempt as a label change', () => {
    expect(rejected('label vip')).toContain('Say what to change first');
    expect(rejected('label +14155550100')).toContain('Give labels to add');
    expect(rejected('label +14155550100 +two words!')).toContain('`words!` is not a label');
    expect(rejected('label agent')).toContain('Give the agent after `agent`');
    expect(rejected('own +14155550100')).toContain('Give one team');
    expect(rejected('own +14155550100 sales')).toContain('`sales` is no team');
    const refused = parseCommand('label +14155550100 +Bad!');
    expect(!refused.ok && refused.attempted).toBe('label.change');
  });

  it('suggests the command meant for a slip', () => {
    expect(rejected('lable +14155550100 vip')).toContain('Did you mean `/voice label +14155550100 vip`?');
  });
});

describe('labels and owners in bulk', () => {
  it.each([
    [
      'label numbers unrouted DE +team:sales -Old',
      { name: 'labels.bulk', filter: { routed: false, region: 'DE' }, add: ['team:sales'], remove: ['old'] },
    ],
    ['label numbers +415 +vip', { name: 'labels.bulk', filter: { digits: '+415' }, add: ['vip'], remove: [] }],
    [
      'own numbers DE <!subteam^S0123ABC|@sales-team>',
      { name: 'labels.bulk', filter: { region: 'DE' }, add: [], remove: [], owner: 'S0123ABC' },
    ],
    [
      'own numbers agent agt_1 S0123ABC',
      { name: 'labels.bulk', filter: { agentId: 'agt_1' }, add: [], remove: [], owner: 'S0123ABC' },
    ],
    ['own numbers routed nobody', { name: 'labels.bulk', filter: { routed: true }, add: [], remove: [], owner: null }],
  ])('"%s" is a plan of every number the filter picks', (text, command) => {
    expect(parsed(text)).toEqual(command);
  });

  it.each([
    ['label numbers DE', /Give the labels after the filter/],
    ['label numbers DE +Team!', /`team!` is not a label/],
    ['label numbers purple +vip', /don't understand `purple` after `label numbers`/],
    ['own numbers DE @sales', /Give the team last/],
  ])('"%s" is answered with a reason', (text, reason) => {
    expect(rejected(text)).toMatch(reason);
  });
});
