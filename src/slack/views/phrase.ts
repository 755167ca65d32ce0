// A kind of change's words (ops' phrases) in mrkdwn: what it wrote is escaped, and what it names is drawn as the
// views draw it everywhere, a number bold, an id as code, an agent by name and id.
import type { Failure, Mention, Phrase } from '../../ops/api.js';
import { bold, code, escapeMrkdwn, mentionChannel, mentionMember } from '../mrkdwn.js';
import { agentLabel, agentNameOrId } from './text.js';

function mention(part: Mention): string {
  if ('number' in part) {
    const details = [...(part.region ? [escapeMrkdwn(part.region)] : []), ...(part.id ? [`id ${code(part.id)}`] : [])];
    return details.length ? `${bold(part.number)} (${details.join(', ')})` : bold(part.number);
  }
  if ('agent' in part) return agentLabel(part.agent);
  if ('agentName' in part) return agentNameOrId(part.agentName);
  if ('strong' in part) return bold(part.strong);
  if ('code' in part) return code(part.code);
  if ('member' in part) return mentionMember(part.member);
  if ('channel' in part) return mentionChannel(part.channel);
  if ('warning' in part) return ':warning: ';
  return '\n';
}

export function mrkdwnOf(phrase: Phrase): string {
  return phrase.map((part) => (typeof part === 'string' ? escapeMrkdwn(part) : mention(part))).join('');
}

/** A failure's sentence in mrkdwn: with its mentions when it has them, else its plain text escaped. */
export const failureText = (failure: Failure): string =>
  failure.said ? mrkdwnOf(failure.said) : escapeMrkdwn(failure.message);
