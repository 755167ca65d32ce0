// The secrets sweep every end-to-end test file runs when it closes its app: no agent token, provider key or
// Slack credential may appear in a log line, a database row, or anything posted where others can see it.
import type { FakeSlack, SlackCall } from './fake-slack.js';

/** Tokens the sandbox issues; collected from wherever the app showed them to their creator. */
const AGENT_TOKEN = /atk_[0-9a-f]{32}/g;

/**
 * Where a token may appear: seen by one user alone. The creator's ephemeral reply (through the response_url or
 * chat.postEphemeral), the creator's own modal, or the app's direct message with a user (a post to a user id).
 */
const PRIVATE_METHODS = new Set(['response_url', 'views.open', 'views.update', 'views.push', 'chat.postEphemeral']);
const isPrivate = (call: SlackCall) =>
  PRIVATE_METHODS.has(call.method) ||
  (call.method === 'chat.postMessage' && /^[UW][A-Z0-9]+$/.test(String(call.body.channel)));

export interface SweepInput {
  slack: FakeSlack;
  logText: string;
  /** Every row the app kept, as text (TestDatabase.text). */
  databaseText: string;
  credentials: string[];
}

/** Throws, naming the place, when any secret turns up where it must not be. */
export function sweepForSecrets(input: SweepInput): void {
  const calls = input.slack.calls();
  const agentTokens = new Set(calls.flatMap((call) => JSON.stringify(call.body).match(AGENT_TOKEN) ?? []));
  const everySecret = [...input.credentials, ...agentTokens];
  const places: [string, string][] = [
    ['the logs', input.logText],
    ['the database', input.databaseText],
    ...calls
      .filter((call) => !isPrivate(call))
      .map((call): [string, string] => [`a ${call.method} call`, JSON.stringify(call.body)]),
  ];
  const leaks = places.flatMap(([place, text]) =>
    everySecret.filter((secret) => text.includes(secret)).map((secret) => `${secret.slice(0, 8)}… in ${place}`),
  );
  // Credentials may not reach even the requester's messages.
  const shown = calls
    .filter(isPrivate)
    .flatMap((call) => input.credentials.filter((secret) => JSON.stringify(call.body).includes(secret)));
  leaks.push(...shown.map((secret) => `${secret.slice(0, 8)}… shown to a user`));
  if (leaks.length > 0) throw new Error(`secrets leaked: ${leaks.join('; ')}`);
}
