// A sentence about a change, as a kind of change says it: plain words, and the things they name, told apart so that
// each surface draws them its own way (in Slack a number bold, an id as code) and escapes what it did not write.

export interface AgentRef {
  id: string;
  name?: string;
}

export type Mention =
  /** A number, with its region and its provider id when they help. */
  | { number: string; region?: string; id?: string }
  /** An agent by name and id, or by id when its name is unknown. */
  | { agent: AgentRef }
  /** An agent by name alone, or by id when its name is unknown: one already named nearby, or long gone. */
  | { agentName: AgentRef }
  /** A value that stands out: an agent's name. */
  | { strong: string }
  /** Text to copy as it is: an id, a command, a region code. */
  | { code: string }
  /** A Slack user (`U…`, `W…`) or user group (`S…`), as Slack draws a mention of them. */
  | { member: string }
  /** A Slack channel, as Slack draws a link to it. */
  | { channel: string }
  /** A warning sign, before what stops working. */
  | { warning: true }
  | { newLine: true };

export type Phrase = readonly (string | Mention)[];

export const WARNING: Mention = { warning: true };
/** A warning on a line of its own. */
export const WARNING_LINE: Phrase = [{ newLine: true }, WARNING];
