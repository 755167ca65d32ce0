// Phrases shared by the views, built from raw values with mrkdwn.ts: the caller never escapes.
import { bold, code, escapeMrkdwn } from '../mrkdwn.js';

/** `*Support bot* (`ag_1`)`, or just the id when the name is unknown. */
export function agentLabel(agent: { id: string; name?: string }): string {
  return agent.name ? `${bold(agent.name)} (${code(agent.id)})` : code(agent.id);
}

/** `+1…, +1… and 3 more`: a list that cannot outgrow the line it sits in. */
export function listOf(items: readonly string[], max: number): string {
  const shown = items.slice(0, max).map(escapeMrkdwn).join(', ');
  return items.length > max ? `${shown} and ${(items.length - max).toLocaleString('en-US')} more` : shown;
}

/** `*Support bot*`, or the id when the name is unknown: for an agent already named nearby or long gone. */
export function agentNameOrId(agent: { id: string; name?: string }): string {
  return agent.name ? bold(agent.name) : code(agent.id);
}
