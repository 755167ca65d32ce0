import { App } from '@slack/bolt';
import type { Config } from '../config.js';
import type { Route } from '../http-front.js';
import type { Logger } from '../log.js';
import type { DeliveriesRepo } from '../store/store.js';
import { boltLogger } from './bolt-logger.js';
import { listenersHaveIt, sayWhenDatabaseFails } from './database-faults.js';
import { dropRepeatedDeliveries } from './deliveries.js';
import { deliveryIn } from './delivery.js';
import { depsFor, type SlackDeps } from './deps.js';
import type { SlackIdentity } from './identity.js';
import { EVENT } from './ids.js';
import { inOrder } from './in-order.js';
import { registerActions } from './listeners/actions.js';
import { registerBatchActions } from './listeners/batches.js';
import { registerCommands } from './listeners/commands.js';
import { registerHistory } from './listeners/history.js';
import { registerHome } from './listeners/home.js';
import { registerLabels } from './listeners/labels.js';
import { registerOptions } from './listeners/options.js';
import { registerRouteBought } from './listeners/route-bought.js';
import { registerRoutingPlan } from './listeners/routing-plan.js';
import { registerSettings } from './listeners/settings.js';
import { registerSteps } from './listeners/steps.js';
import { registerSubscriptions } from './listeners/subscriptions.js';
import { registerUndo } from './listeners/undo.js';
import { registerViews } from './listeners/views.js';
import { oneWorkspace } from './one-workspace.js';
import { EVENTS_PATH, slackHttpReceiver } from './receiver.js';
import { listenerRouter } from './router.js';
import type { Refusal } from './signed-request.js';
import { keepConnected, type OnFatal, socketModeReceiver } from './socket-mode.js';
import { ignoreUnlistenedEvents } from './unlistened-events.js';
import { identifyRequester } from './who-asked.js';

/**
 * Socket Mode with an app token, HTTP otherwise. The bot's identity comes from our own auth.test, not Bolt's on the
 * first request, so that an unreachable Slack is reported at start rather than as timeouts later.
 */
export function createBoltApp(
  slack: Config['slack'],
  input: {
    logger: Logger;
    identity: SlackIdentity;
    onFatal: OnFatal;
    onRefused: (refusal: Refusal) => void;
    onUnprovenBodies: (count: number) => void;
  },
): { app: App; events?: Route } {
  const { logger, identity } = input;
  const bolt = boltLogger(logger);
  const socket = slack.appToken
    ? socketModeReceiver({ appToken: slack.appToken, apiUrl: slack.apiUrl, logger: bolt })
    : undefined;
  const http = socket
    ? undefined
    : slackHttpReceiver(
        {
          signingSecret: slack.signingSecret ?? '',
          logger: bolt,
          onRefused: input.onRefused,
          onUnprovenBodies: input.onUnprovenBodies,
        },
        logger,
      );
  const receiver = socket ?? http;
  const app = new App({
    authorize: async () => ({
      botToken: slack.botToken,
      botUserId: identity.current?.botUserId,
      botId: identity.current?.botId,
    }),
    receiver,
    // The app keeps no conversation state; Bolt's default store costs work on every request before the ack.
    convoStore: false,
    logger: bolt,
    clientOptions: slack.apiUrl ? { slackApiUrl: slack.apiUrl } : undefined,
  });
  if (socket) keepConnected(socket.client, logger, input.onFatal);
  app.error(async (error) => {
    logger.error({ err: error }, 'unhandled error in a Slack listener');
  });
  return { app, events: http && { method: 'POST', path: EVENTS_PATH, handle: http.requestListener } };
}

export function registerListeners(
  app: App,
  deps: SlackDeps,
  stores: { deliveries: DeliveriesRepo; identity: SlackIdentity },
): void {
  // A listener's deps are bound to its delivery, opened by sayWhenDatabaseFails before the router: without it, what
  // the delivery set going could not be told after a database failure.
  const { router, middleware } = listenerRouter((context) => {
    const delivery = deliveryIn(context);
    if (!delivery)
      throw new Error('A listener was reached before its delivery was opened: sayWhenDatabaseFails must run first');
    return depsFor(deps, delivery);
  });
  registerCommands(router);
  registerActions(router);
  registerBatchActions(router);
  registerRoutingPlan(router);
  registerViews(router);
  registerOptions(router);
  registerRouteBought(router);
  registerHome(router);
  registerUndo(router);
  registerSettings(router);
  registerHistory(router);
  registerLabels(router);
  registerSteps(router);
  registerSubscriptions(router);
  app.use(
    inOrder([
      ignoreUnlistenedEvents(Object.values(EVENT), deps.logger),
      identifyRequester(),
      sayWhenDatabaseFails(deps),
      oneWorkspace(stores.identity, deps),
      dropRepeatedDeliveries(stores.deliveries, deps.logger),
      listenersHaveIt(),
      middleware,
    ]),
  );
}
