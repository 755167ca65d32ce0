// What the Slack layer's listeners and flows share: the operations, the Web API clients, and what each replica keeps
// of a person's place (their Home tab's pages, their last search).
import type { DeliveryScope } from '../delivery-scope.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { VoiceOps } from '../ops/api.js';
import type { SlackClients } from './clients.js';
import type { HomePosition, ShownSearch } from './paging.js';
import type { People } from './people.js';
import { privateReply, type Recipient, type Respond } from './respond.js';

export interface SlackDeps {
  /** Outside any delivery (the sweeps, the middleware); a listener's know its delivery. */
  ops: VoiceOps;
  /** The operations bound to one delivery: they note what it set going and read at the versions its key found. */
  opsFor(delivery: DeliveryScope): VoiceOps;
  slack: SlackClients;
  /** What users.info says of a person (their org, whether a guest, their time zone), kept a while. */
  people: People;
  /** Where each user last left their Home tab (its pages and filter), so that a refresh keeps them. */
  homePositions: Map<string, HomePosition>;
  /** The last search each user was shown, so that a buy from it can show it again without the number bought. */
  searches: Map<string, ShownSearch>;
  /** The response_url of the settings summary each user last opened a settings form from, to bring it up to date. */
  settingsShown: Map<string, string>;
  /** True when the embedded sandbox stands in for the provider: nothing real is bought. */
  sandbox: boolean;
  now: () => Date;
  logger: Logger;
  metrics: Metrics;
}

/** The deps a delivery's listener gets: the same, with operations bound to the delivery. */
export function depsFor(deps: SlackDeps, delivery: DeliveryScope): SlackDeps {
  return { ...deps, ops: deps.opsFor(delivery) };
}

/** Private replies to a user: the response_url when there is one, then the channel, then a direct message. */
export function replyTo(deps: SlackDeps, to: Recipient): Respond {
  return privateReply(deps.slack, to, deps.logger);
}
