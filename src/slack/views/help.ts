import type { Role } from '../../ops/types.js';
import type { CommandSpec } from '../command.js';
import { code, escapeProse } from '../mrkdwn.js';
import { context, message, type SlackMessage, section } from './blocks.js';
import { roleLine, SANDBOX_WARNING } from './roles.js';

function usage(spec: CommandSpec): string {
  return ['/voice', ...spec.words, spec.args].filter(Boolean).join(' ');
}

/**
 * Help for the commands the caller may run; the caller filters `commands` by role. `error` is the grammar's mrkdwn,
 * which escapes what it echoes (see `Parsed`).
 */
export function helpMessage(input: {
  commands: CommandSpec[];
  role: Role;
  sandbox: boolean;
  error?: string;
  /** The guardrails in force, shown under the role. */
  policies?: string[];
}): SlackMessage {
  const lines = input.commands.map((spec) => {
    const line = `${code(usage(spec))} — ${escapeProse(spec.summary)}`;
    return spec.note ? `${line}\n      ↳ ${escapeProse(spec.note)}` : line;
  });
  const error = input.error === undefined ? undefined : `:warning: ${input.error}`;
  const blocks = [
    ...(error ? [section(error)] : []),
    ...(input.sandbox ? [section(SANDBOX_WARNING)] : []),
    section(`*Voice Ops commands*\n${lines.join('\n')}`),
    context([roleLine(input.role), ...(input.policies ?? [])].join('\n')),
  ];
  return message(error ?? 'Voice Ops commands', blocks);
}
