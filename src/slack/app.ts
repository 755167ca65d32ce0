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
import { slackHttpReceiver } from './receiver.js';

/**
 * The Bolt app: Socket Mode when an app token is configured, HTTP otherwise (`POST /slack/events`,
 * plus `GET /healthz` for load balancers and orchestrators).
 */
export function createBoltApp(slack: Config['slack'], logger: Logger): App {
  const socketMode = Boolean(slack.appToken);
  const bolt = boltLogger(logger);
  const app = new App({
    token: slack.botToken,
    appToken: slack.appToken,
    socketMode,
    // The app keeps no conversation state; Bolt's default store costs work on every request before the ack.
    convoStore: false,
    logger: bolt,
    clientOptions: slack.apiUrl ? { slackApiUrl: slack.apiUrl } : undefined,
    receiver: socketMode
      ? undefined
      : slackHttpReceiver(
          {
            signingSecret: slack.signingSecret ?? '',
            logger: bolt,
            customRoutes: [
              {
                path: '/healthz',
                method: ['GET'],
                handler: (_request, response) => {
                  response.writeHead(200, { 'content-type': 'application/json' });
                  response.end('{"ok":true}');
                },
              },
            ],
          },
          logger,
        ),
  });
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
