// Socket Mode. Slack closes the socket routinely and networks drop it; the client's own reconnection waits seconds,
// and on a refused token rejects a promise nobody holds, ending the process. So the app reconnects by itself (at once
// when Slack asks, with backoff otherwise), and a refused token becomes one fatal report.
import { type Logger as BoltLogger, SocketModeReceiver } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../log.js';
import { backoffDelay } from '../provider/retry.js';
import { SLACK_BUDGETS } from './clients.js';

type SocketModeClient = SocketModeReceiver['client'];

/** Told once when the app cannot go on; main.ts logs the reason, stops gracefully and exits non-zero. */
export type OnFatal = (reason: string, error?: unknown) => void;

const RECONNECT_BACKOFF = { baseDelayMs: 1_000, maxDelayMs: 30_000 };

// Slack's answers to apps.connections.open that no retry can change: the token is revoked or its workspace gone.
const TOKEN_REFUSALS = new Set([
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'account_inactive',
  'user_removed_from_team',
  'team_disabled',
]);
const platformError = z.object({
  code: z.literal('slack_webapi_platform_error'),
  data: z.object({ error: z.string() }),
});
const disconnectMessage = z.object({ type: z.literal('disconnect'), reason: z.string() });

/** What to do when an error means that Slack refused the app token; undefined for any other error. */
export function appTokenRefusal(error: unknown): string | undefined {
  const parsed = platformError.safeParse(error);
  const code = parsed.success ? parsed.data.data.error : '';
  if (!TOKEN_REFUSALS.has(code)) return undefined;
  return (
    `Slack refused the app token (${code}): generate a new SLACK_APP_TOKEN with the connections:write scope ` +
    'under Basic Information → App-Level Tokens, then restart the app.'
  );
}

export function socketModeReceiver(options: {
  appToken: string;
  apiUrl?: string;
  logger: BoltLogger;
}): SocketModeReceiver {
  return new SocketModeReceiver({
    appToken: options.appToken,
    logger: options.logger,
    // keepConnected reconnects instead.
    autoReconnectEnabled: false,
    // apps.connections.open is bounded like auth.test: keepConnected decides when to try again.
    installerOptions: {
      clientOptions: {
        ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
        timeout: SLACK_BUDGETS.identity.timeoutMs,
        retryConfig: { retries: 0 },
      },
    },
  });
}

/** The reason of Slack's `disconnect` message, when `data` is one. */
function disconnectReason(data: unknown): string | undefined {
  if (typeof data !== 'string' || !data.includes('"disconnect"')) return undefined;
  try {
    const message = disconnectMessage.safeParse(JSON.parse(data));
    return message.success ? message.data.reason : undefined;
  } catch {
    return undefined;
  }
}

/** Until the app stops or Slack refuses the token. The first connection is app.start()'s, its failure the start's. */
export function keepConnected(client: SocketModeClient, logger: Logger, onFatal: OnFatal): void {
  let connected = false;
  let stopping = false;
  let reconnecting = false;
  /** Why the current connection is ending, once Slack or the app has said. */
  let reason: string | undefined;
  let wake: (() => void) | undefined;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wake = done;
    });

  async function reconnect(slackAsked: boolean): Promise<void> {
    reconnecting = true;
    try {
      for (let attempt = 1; !stopping; attempt++) {
        // Slack asks for a new connection when it is ready to take one; after a loss, spread the attempts out.
        await pause(attempt === 1 && slackAsked ? 0 : backoffDelay(attempt, RECONNECT_BACKOFF));
        if (stopping) return;
        logger.info({ socketMode: 'reconnecting', attempt }, 'Socket Mode: reconnecting to Slack');
        try {
          await client.start();
          // A stop that came while the new connection was being opened still stops it.
          if (stopping) await client.disconnect();
          return;
        } catch (error) {
          const refusal = appTokenRefusal(error);
          if (refusal) {
            onFatal(refusal);
            return;
          }
          if (stopping) return;
          const why = error instanceof Error ? error.message : 'the connection closed before Slack greeted it';
          logger.warn({ socketMode: 'reconnecting', attempt, error: why }, 'Socket Mode: could not reconnect yet');
        }
      }
    } finally {
      reconnecting = false;
    }
  }

  // The client keeps Slack's reason to itself; every raw message also goes out as `ws_message`.
  client.on('ws_message', (data: unknown) => {
    reason = disconnectReason(data) ?? reason;
  });
  client.on('connected', () => {
    connected = true;
    logger.info({ socketMode: 'connected' }, 'Socket Mode: connected to Slack');
  });
  client.on('disconnecting', () => {
    stopping = true;
    reason ??= 'the app is stopping';
    wake?.();
  });
  client.on('disconnected', () => {
    const said = reason;
    reason = undefined;
    if (!connected) return;
    connected = false;
    logger.info(
      { socketMode: 'disconnected', reason: said ?? 'connection lost' },
      'Socket Mode: disconnected from Slack',
    );
    if (!stopping && !reconnecting) void reconnect(said !== undefined);
  });
}
