// Desired routing as text: numbers as people write them, read into E.164 with the line they came from, every line at
// fault refused with a sentence to act on, and an export that reads back as the routing it printed.
import { describe, expect, it } from 'vitest';
import { parseRoutingText, ROUTING_TEXT_MAX_LINES, routingText } from '../../src/ops/routing-text.js';

/** The error of the one line `text` holds. */
async function errorOf(text: string): Promise<string | undefined> {
  const [line] = await parseRoutingText(text);
  return line && !line.ok ? line.error : undefined;
}

describe('parseRoutingText', () => {
  it('reads numbers as people write them into E.164', async () => {
    const text = [
      '+49 30 1234567 agt_1',
      '+1 (415) 555-0100 agt_2',
      '0049 30 1234568 agt_3',
      '+44 20 7946 0958 agt_4',
      '+4930123456 agt_5',
      '+49 (0)30 1234569 agt_6',
    ].join('\n');
    expect(await parseRoutingText(text)).toEqual([
      { line: 1, text: '+49 30 1234567 agt_1', ok: true, number: '+49301234567', agent: 'agt_1' },
      { line: 2, text: '+1 (415) 555-0100 agt_2', ok: true, number: '+14155550100', agent: 'agt_2' },
      { line: 3, text: '0049 30 1234568 agt_3', ok: true, number: '+49301234568', agent: 'agt_3' },
      { line: 4, text: '+44 20 7946 0958 agt_4', ok: true, number: '+442079460958', agent: 'agt_4' },
      { line: 5, text: '+4930123456 agt_5', ok: true, number: '+4930123456', agent: 'agt_5' },
      { line: 6, text: '+49 (0)30 1234569 agt_6', ok: true, number: '+49301234569', agent: 'agt_6' },
    ]);
  });

  it('skips blank and comment lines, ignores what follows a #, and counts lines as written', async () => {
    const text = '# desired routing\n\n   \r\n+49 30 1234567 agt_1 # front desk\n  +1 415 555 0100   agt_2#no space\n#';
    expect(await parseRoutingText(text)).toEqual([
      { line: 4, text: '+49 30 1234567 agt_1 # front desk', ok: true, number: '+49301234567', agent: 'agt_1' },
      { line: 5, text: '+1 415 555 0100   agt_2#no space', ok: true, number: '+14155550100', agent: 'agt_2' },
    ]);
    expect(await parseRoutingText('')).toEqual([]);
  });

  it('refuses a number without its country code rather than guess one', async () => {
    expect(await errorOf('030 1234567 agt_1')).toBe(
      '"030 1234567" needs its country code: start it with + and the country code, e.g. +49 30 1234567 rather than 030 1234567',
    );
    expect(await errorOf('+999 1234567 agt_1')).toBe('"+999 1234567" does not start with a known country code');
  });

  it('refuses what is not a phone number, or not one of a possible length', async () => {
    expect(await errorOf('call-me agt_1')).toBe('"call-me" is not a phone number');
    expect(await errorOf('+1 800 FLOWERS agt_1')).toBe('"+1 800 FLOWERS" is not a phone number');
    expect(await errorOf('+1 415 555 0100 ext 5 agt_1')).toBe('"+1 415 555 0100 ext 5" is not a phone number');
    expect(await errorOf('+49 agt_1')).toBe('"+49" is too short for a phone number in its country');
    expect(await errorOf('+1 415 555 01000 agt_1')).toBe(
      '"+1 415 555 01000" is too long for a phone number in its country',
    );
  });

  it('asks for the agent id when a line holds only a number', async () => {
    expect(await errorOf('+49 30 1234567')).toBe('give the agent id after the number');
    expect(await errorOf('+4930123456 # agt_1')).toBe('give the agent id after the number');
    expect(await errorOf('agt_1')).toBe('give a phone number, then the agent id, e.g. +49 30 1234567 agt_123');
  });

  it('checks the agent id against the shape the provider accepts', async () => {
    expect(await errorOf(`+49 30 1234567 agt_${'x'.repeat(150)}`)).toBe('the agent id must be at most 150 characters');
  });

  it('refuses a line too long to be an entry, without echoing it', async () => {
    const long = `+49 30 1234567 ${'x'.repeat(500)}`;
    const [line] = await parseRoutingText(`\n${long}`);
    expect(line).toEqual({
      line: 2,
      text: `${long.slice(0, 200)}…`,
      ok: false,
      error: 'this line is 515 characters long: a line holds one phone number and one agent id, at most 200 characters',
    });
  });

  it('reads every line of a text over the limit, so that the caller can refuse it', async () => {
    const count = ROUTING_TEXT_MAX_LINES + 1;
    const numbers = Array.from({ length: count }, (_, index) => `+1415555${String(index).padStart(4, '0')}`);
    const text = numbers.map((number, index) => `${number} agt_${index}`).join('\n');
    const lines = await parseRoutingText(text);
    expect(lines).toHaveLength(count);
    expect(lines.every((line) => line.ok)).toBe(true);
    expect(lines.map((line) => (line.ok ? line.number : line.error))).toEqual(numbers);
  });
});

describe('routingText', () => {
  const routes = [
    { phoneNumber: '+442079460958', agentId: 'agt_2', agentName: 'Support #2\nafter hours' },
    { phoneNumber: '+14155550100', agentId: 'agt_1', agentName: 'Front desk' },
    { phoneNumber: '+4930123456', agentId: 'agt_3' },
  ];

  it('prints a header, then one line a number in number order, each agent named in a comment', () => {
    expect(routingText(routes, 'Routing on 1 March\n\nEdit, then paste into /voice plan')).toBe(
      [
        '# Routing on 1 March',
        '#',
        '# Edit, then paste into /voice plan',
        '+14155550100 agt_1  # Front desk',
        '+442079460958 agt_2  # Support #2 after hours',
        '+4930123456 agt_3',
      ].join('\n'),
    );
    expect(routingText([])).toBe('');
  });

  it('reads back as the routing it printed, whatever the names hold', async () => {
    const named = [
      ...routes,
      { phoneNumber: '+493023125000', agentId: 'agt_s0001', agentName: '\r\n# not a line \u2028+1 agt_x\u0000' },
    ];
    const lines = await parseRoutingText(routingText(named, 'header\n+4930123456 agt_header'));
    expect(lines.map((line) => ('agent' in line ? { phoneNumber: line.number, agentId: line.agent } : line))).toEqual(
      named
        .map(({ phoneNumber, agentId }) => ({ phoneNumber, agentId }))
        .sort((a, b) => (a.phoneNumber < b.phoneNumber ? -1 : 1)),
    );
  });
});

describe('the labels part', () => {
  it('reads each number with its labels, sorted, and its team last, after the `# labels` line', async () => {
    const text = [
      '+4930123456 agt_1',
      '# labels',
      '+4930123456 team:sales de <!subteam^S0123ABC>',
      '+49 30 1234567 vip S0SUPPORT # the hotline',
      '+4930123458',
    ].join('\n');
    expect(await parseRoutingText(text)).toEqual([
      { line: 1, text: '+4930123456 agt_1', ok: true, number: '+4930123456', agent: 'agt_1' },
      {
        line: 3,
        text: '+4930123456 team:sales de <!subteam^S0123ABC>',
        ok: true,
        number: '+4930123456',
        labels: ['de', 'team:sales'],
        owner: 'S0123ABC',
      },
      {
        line: 4,
        text: '+49 30 1234567 vip S0SUPPORT # the hotline',
        ok: true,
        number: '+49301234567',
        labels: ['vip'],
        owner: 'S0SUPPORT',
      },
      { line: 5, text: '+4930123458', ok: true, number: '+4930123458', labels: [] },
    ]);
  });

  it.each([
    ['+4930123456 Team!', '"Team!" is not a label'],
    ['+4930123456 <!subteam^S0123ABC> de', 'give the team last, once'],
    ['+4930123456 de @sales', 'give the team last, once'],
    ['030 123456 de', 'needs its country code'],
  ])('refuses %s', async (line, error) => {
    expect(await errorOf(`# labels\n${line}`)).toContain(error);
  });
});
