import { App } from '@slack/bolt';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { DeliveryKeys } from '../store/dedupe.js';
import { boltLogger } from './bolt-logger.js';
import { dropRepeatedDeliveries } from './deliveries.js';
import type { SlackDeps } from './flows.js';
import { registerActions } from './listeners/actions.js';
import { registerCommands } from './listeners/commands.js';
import { registerHome } from './listeners/home.js';
import { registerViews } from './listeners/views.js';
import { keepConnected, type OnFatal, socketModeReceiver } from './socket-mode.js';

/**
 * The Bolt app: Socket Mode when an app token is configured (kept connected by socket-mode.ts; `onFatal` when
 * Slack refuses the token), HTTP otherwise (`POST /slack/events`, plus `GET /healthz` for load balancers).
 */
export function createBoltApp(slack: Config['slack'], logger: Logger, onFatal: OnFatal): App {
  const bolt = boltLogger(logger);
  const receiver = slack.appToken
    ? socketModeReceiver({ appToken: slack.appToken, apiUrl: slack.apiUrl, logger: bolt })
    : undefined;
  const app = new App({
    token: slack.botToken,
    signingSecret: slack.signingSecret,
    receiver,
    // The app keeps no conversation state; Bolt's default store costs work on every request before the ack.
    convoStore: false,
    logger: bolt,
    clientOptions: slack.apiUrl ? { slackApiUrl: slack.apiUrl } : undefined,
    customRoutes: receiver
      ? undefined
      : [
          {
            path: '/healthz',
            method: ['GET'],
            handler: (_request, response) => {
              response.writeHead(200, { 'content-type': 'application/json' });
              response.end('{"ok":true}');
            },
          },
        ],
  });
  if (receiver) keepConnected(receiver.client, logger, onFatal);
  app.error(async (error) => {
    logger.error({ err: error }, 'unhandled error in a Slack listener');
  });
  return app;
}

export function registerListeners(app: App, deps: SlackDeps, deliveries: DeliveryKeys): void {
  app.use(dropRepeatedDeliveries(deliveries, deps.logger));
  registerCommands(app, deps);
  registerActions(app, deps);
  registerViews(app, deps);
  registerHome(app, deps);
}
