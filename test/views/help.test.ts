import { describe, expect, it } from 'vitest';
import type { PoliciesInForce } from '../../src/ops/api.js';
import { roleIncludes } from '../../src/ops/types.js';
import { DEFAULT_SETTINGS } from '../../src/settings-schema.js';
import { COMMANDS, parseCommand } from '../../src/slack/command.js';
import { commandErrorMessage, helpMessage } from '../../src/slack/views/help.js';
import { unrouteMessage } from '../../src/slack/views/unroute.js';
import { rendered, unescapedMarkup } from './support.js';

const forViewer = COMMANDS.filter((spec) => roleIncludes('viewer', spec.role));

describe('helpMessage', () => {
  it('lists each given command with its arguments and summary', () => {
    const text = rendered(helpMessage({ commands: COMMANDS, role: 'admin', sandbox: false }));
    expect(text).toContain('`/voice agents create [NAME LANGUAGE]` — Create an AI agent');
    expect(text).toContain('`/voice numbers release NUMBER_OR_ID | FILTER` — Release a number');
    expect(text).toContain('`/voice help` — Show this help');
  });

  it('says under map that a route cannot be removed, and what to do instead', () => {
    const text = rendered(helpMessage({ commands: COMMANDS, role: 'operator', sandbox: false }));
    expect(text).toMatch(
      /`\/voice map \[NUMBER AGENT \| FILTER to AGENT\]` — Route a purchased number[^\n]*\n +↳ The provider cannot remove a route: to stop a number reaching an agent, route it to another agent, or release the number \(admins\)\./,
    );
  });

  it('answers an unmap, which does not exist, with the two commands that do instead', () => {
    const text = rendered(unrouteMessage('+493023125001'));
    expect(text).toContain('There is no unmap. The provider cannot remove a route');
    expect(text).toContain('`/voice map +493023125001 AGENT_ID` routes it to another agent');
    expect(text).toContain('`/voice numbers release +493023125001` releases it');
    expect(rendered(unrouteMessage())).toContain('`/voice map NUMBER AGENT_ID`');
  });

  it('tells a viewer of no command she may not run, not even in another command’s summary', () => {
    const forViewer = COMMANDS.filter((spec) => spec.role === 'viewer');
    const text = rendered(helpMessage({ commands: forViewer, role: 'viewer', sandbox: false }));
    for (const spec of COMMANDS.filter((candidate) => candidate.role !== 'viewer')) {
      expect(text).not.toContain(`\`/voice ${spec.words.join(' ')}`);
    }
  });

  it('shows the words a summary names in backticks as code, never as look-alike backticks', () => {
    const text = rendered(helpMessage({ commands: COMMANDS, role: 'admin', sandbox: false }));
    expect(text).toContain('every number a filter picks (`unrouted`, `routed`, a region, `agent AGENT`, then digits)');
    expect(text).toContain('one `NUMBER AGENT_ID` a line: the format a plan reads back');
    expect(text).not.toMatch(/[\u02CB\u2018\u2019\u00B4\u02CA]/);
  });

  it('lists only the commands it is given', () => {
    const text = rendered(helpMessage({ commands: forViewer, role: 'viewer', sandbox: false }));
    expect(text).toContain('/voice numbers search [REGION [DIGITS]]');
    expect(text).not.toContain('/voice numbers buy');
    expect(text).not.toContain('/voice agents delete');
  });

  it("states the caller's role, and tells a viewer whom to ask: the admins, or the variable that locks the role", () => {
    const inForce = (locked: boolean): PoliciesInForce => ({
      policy: { ...DEFAULT_SETTINGS, admins: ['UADA', 'SLEADS'] },
      locks: locked ? { operators: { key: 'VOICE_OPERATORS', where: 'the environment' } } : {},
      buying: [],
    });
    const viewer = rendered(
      helpMessage({ commands: forViewer, role: 'viewer', sandbox: false, inForce: inForce(true) }),
    );
    expect(viewer).toContain('*viewer*');
    expect(viewer).toContain('to `VOICE_OPERATORS`');
    const inSlack = rendered(
      helpMessage({ commands: forViewer, role: 'viewer', sandbox: false, inForce: inForce(false) }),
    );
    expect(inSlack).toContain('ask an admin (<@UADA>, <!subteam^SLEADS>) for the operator role');
    const operator = rendered(helpMessage({ commands: COMMANDS, role: 'operator', sandbox: false }));
    expect(operator).toContain('*operator*');
    expect(operator).not.toContain('VOICE_OPERATORS');
  });

  it('warns when the provider is the sandbox', () => {
    expect(rendered(helpMessage({ commands: COMMANDS, role: 'admin', sandbox: true }))).toContain(
      'Sandbox provider: nothing real is bought or routed',
    );
    expect(rendered(helpMessage({ commands: COMMANDS, role: 'admin', sandbox: false }))).not.toContain('Sandbox');
  });

  it("puts the grammar's error first, the echoed word escaped, and uses it as the notification text", () => {
    const parsed = parseCommand('"<!channel> `*b*`" now');
    const help = commandErrorMessage({ error: parsed.ok ? '' : parsed.error });
    const first = help.blocks[0];
    expect(first?.type === 'section' && first.text?.text).toBe(
      ":warning: I don't know `&lt;!channel&gt; \u02CB*b*\u02CB`.",
    );
    expect(help.text).toBe(":warning: I don't know `&lt;!channel&gt; \u02CB*b*\u02CB`.");
    expect(unescapedMarkup(help)).toEqual([]);
  });

  it('shows with an error the one line of help that applies, not the whole help', () => {
    const parsed = parseCommand('numbers buy DE 0');
    expect(parsed.ok).toBe(false);
    const text = rendered(commandErrorMessage(parsed.ok ? { error: '' } : parsed));
    expect(text).toContain('`/voice numbers buy NUMBER | REGION COUNT [DIGITS]`');
    expect(text).not.toContain('/voice agents create');
    expect(text).not.toContain('Voice Ops commands');
    expect(text).toContain('`/voice help` lists every command.');
  });
});
