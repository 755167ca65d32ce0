import { type Change, regionOf } from '../../ops/api.js';
import { bold, code, escapeMrkdwn } from '../mrkdwn.js';
import { agentLabel } from './text.js';

/** `*+14155550100* (US)`: a number with its region, told from its calling code. */
function numberWithRegion(number: string, id?: string): string {
  const region = regionOf(number);
  const details = [...(region ? [escapeMrkdwn(region)] : []), ...(id ? [`id ${code(id)}`] : [])];
  return details.length ? `${bold(number)} (${details.join(', ')})` : bold(number);
}

/**
 * What a finished change did, as a predicate in escaped mrkdwn: "bought *+1…* (US, id `pn_1`)". Numbers come with their
 * region and agents with their name and id. The announcement puts the actor before it; the requester's result
 * capitalises it.
 */
export function describeChange(change: Change): string {
  switch (change.action) {
    case 'agent.create': {
      const { name, id, language } = change.agent;
      return `created agent ${bold(name)} (${code(id)}, ${escapeMrkdwn(language)})`;
    }
    case 'agent.delete':
      return `deleted agent ${agentLabel(change.agent)}`;
    case 'number.buy':
      return `bought ${numberWithRegion(change.number.number, change.number.id)}`;
    case 'number.release': {
      const released = `released ${numberWithRegion(change.number.number, change.number.id)}`;
      if (!change.unroutedAgent) return released;
      return `${released}: it no longer routes to ${agentLabel(change.unroutedAgent)}`;
    }
    case 'routing.map': {
      const number = numberWithRegion(change.number);
      if (!change.previousAgent) return `routed ${number} to ${agentLabel(change.agent)}`;
      return `re-routed ${number} from ${agentLabel(change.previousAgent)} to ${agentLabel(change.agent)}`;
    }
  }
}

/** Where to read more of what a change was about: a card of what still exists, the audit of what is gone. */
export function lookUpCommand(change: Change): string {
  switch (change.action) {
    case 'agent.create':
      return `/voice agents ${change.agent.id}`;
    case 'agent.delete':
      return `/voice audit ${change.agent.id}`;
    case 'number.buy':
      return `/voice numbers ${change.number.number}`;
    case 'number.release':
      return `/voice audit ${change.number.number}`;
    case 'routing.map':
      return `/voice numbers ${change.number}`;
  }
}
