import type { Change } from '../../ops/notify.js';
import { bold, code, escapeMrkdwn } from '../mrkdwn.js';
import { agentLabel, agentNameOrId } from './text.js';

/**
 * What a finished change did, as a predicate in escaped mrkdwn: "bought *+1…* (id `pn_1`)". The announcement puts
 * the actor before it; the requester's result capitalises it.
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
      return `bought ${bold(change.number.number)} (id ${code(change.number.id)})`;
    case 'number.release': {
      const released = `released ${bold(change.number.number)} (id ${code(change.number.id)})`;
      if (!change.unroutedAgent) return released;
      return `${released} (its route to ${agentNameOrId(change.unroutedAgent)} was removed)`;
    }
    case 'routing.map': {
      const routed = `routed ${bold(change.number)} to ${agentLabel(change.agent)}`;
      if (!change.previousAgent) return routed;
      return `${routed}, previously ${agentNameOrId(change.previousAgent)}`;
    }
  }
}
