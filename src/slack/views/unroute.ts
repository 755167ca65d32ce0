import { NO_UNROUTE } from '../../ops/api.js';
import { code, escapeMrkdwn, truncate } from '../mrkdwn.js';
import { context, message, type SlackMessage, section } from './blocks.js';

/** What was typed as the number is echoed in the commands to type, cut short so that nothing outgrows its line. */
const TARGET_MAX = 40;

/** The answer to `/voice unmap NUMBER` and its kin: there is no such thing, and the two commands that do instead. */
export function unrouteMessage(number?: string): SlackMessage {
  const target = number === undefined ? 'NUMBER' : truncate(number, TARGET_MAX);
  const text = `:information_source: There is no unmap. ${escapeMrkdwn(NO_UNROUTE)}`;
  return message(text, [
    section(text),
    section(
      `• ${code(`/voice map ${target} AGENT_ID`)} routes it to another agent (operators)\n` +
        `• ${code(`/voice numbers release ${target}`)} releases it, after a confirmation (admins)`,
    ),
    context('`/voice agents` lists the agents and their ids.'),
  ]);
}
