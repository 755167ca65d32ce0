// Each audit action as people read it, never as the `noun.verb` the log keeps: asked ("buy") and done ("bought"). An
// action without words here reads as its own words ("number note").
import type { AuditAction } from '../store/audit.js';

/** The audit action of the playground's Start over: its numbers, agents and messages cleared, its audit log kept. */
export const PLAYGROUND_RESET = 'playground.reset';

const WORDS: Record<AuditAction, { asked: string; done: string }> = {
  'number.buy': { asked: 'buy', done: 'bought' },
  'number.release': { asked: 'release', done: 'released' },
  'routing.map': { asked: 'route', done: 'routed' },
  'routing.drop': { asked: 'drop a route', done: 'route dropped' },
  'agent.create': { asked: 'create an agent', done: 'agent created' },
  'agent.delete': { asked: 'delete an agent', done: 'agent deleted' },
  'agent.token': { asked: 'show the agent token', done: 'agent token shown' },
  'settings.change': { asked: 'change the settings', done: 'settings changed' },
  'batch.buy': { asked: 'buy in bulk', done: 'bought in bulk' },
  'batch.release': { asked: 'release in bulk', done: 'released in bulk' },
  'batch.map': { asked: 'route in bulk', done: 'routed in bulk' },
  'change.undo': { asked: 'undo a change', done: 'change undone' },
  'change.announce': { asked: 'announce', done: 'announced' },
  'change.second_outcome': { asked: 'second answer', done: 'second answer' },
  'access.denied': { asked: 'attempt', done: 'attempt' },
  [PLAYGROUND_RESET]: { asked: 'reset the playground', done: 'playground reset' },
};

/** The action in words: as asked, or as done when it `succeeded`. */
export function actionWords(action: AuditAction, succeeded: boolean): string {
  // Own keys only: an action read from the log may be any text, `constructor` included.
  const words = Object.hasOwn(WORDS, action) ? WORDS[action] : undefined;
  if (!words) return action.replace(/[._]/g, ' ');
  return succeeded ? words.done : words.asked;
}
