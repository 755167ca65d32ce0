import type { PoliciesInForce, Role } from '../../ops/api.js';
import type { CommandSpec } from '../command.js';
import { code, escapeProse } from '../mrkdwn.js';
import { context, message, packLines, type SlackMessage, section } from './blocks.js';
import { ruleLines, SANDBOX_WARNING } from './roles.js';

function usage(spec: CommandSpec): string {
  return ['/voice', ...spec.words, spec.args].filter(Boolean).join(' ');
}

/** Help for the commands the caller may run; the caller filters `commands` by role. */
export function helpMessage(input: {
  commands: readonly CommandSpec[];
  role: Role;
  sandbox: boolean;
  /** The settings in force: whom a viewer asks, and the guardrails, shown under the role. */
  inForce?: PoliciesInForce;
}): SlackMessage {
  const blocks = [
    ...(input.sandbox ? [section(SANDBOX_WARNING)] : []),
    // As many sections as Slack's limit on one section's text needs, a command's line never split.
    ...packLines(['*Voice Ops commands*', ...input.commands.map(helpLine)]).map((text) => section(text)),
    context(ruleLines(input.role, input.inForce).join('\n')),
  ];
  return message('Voice Ops commands', blocks);
}

// A command's line never changes: each is escaped once, not at every `/voice help`.
const helpLines = new WeakMap<CommandSpec, string>();

function helpLine(spec: CommandSpec): string {
  const known = helpLines.get(spec);
  if (known !== undefined) return known;
  const line = `${code(usage(spec))} — ${escapeProse(spec.summary)}`;
  const lines = spec.note ? `${line}\n      ↳ ${escapeProse(spec.note)}` : line;
  helpLines.set(spec, lines);
  return lines;
}

/** The grammar's error (mrkdwn that escapes what it echoes), then the line of help that applies. */
export function commandErrorMessage(input: { error: string; about?: CommandSpec }): SlackMessage {
  const error = `:warning: ${input.error}`;
  const all = '`/voice help` lists every command.';
  return message(error, [section(error), context(input.about ? `${helpLine(input.about)}\n${all}` : all)]);
}
