// The line atop a list asked in a bound channel, saying that it shows only what the binding covers.
import type { ChannelBinding } from '../../settings-schema.js';
import { code, mentionMember } from '../mrkdwn.js';

/** ":round_pushpin: Showing @sales-team's numbers labelled `vip`: this channel is bound to them." */
export function scopeLine(scope: ChannelBinding, what: 'numbers' | 'agents'): string {
  const labels = scope.labels?.length ? ` labelled ${scope.labels.map(code).join(', ')}` : '';
  const whose = scope.owner === undefined ? what : `${mentionMember(scope.owner)}'s ${what}`;
  return `:round_pushpin: Showing ${whose}${labels}: this channel is bound to them.`;
}

/** The line and a new line before the rest, or nothing outside a bound channel. */
export const scopeLead = (scope: ChannelBinding | undefined, what: 'numbers' | 'agents'): string =>
  scope ? `${scopeLine(scope, what)}\n` : '';
